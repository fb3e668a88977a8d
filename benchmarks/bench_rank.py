"""Benchmark the ranking attackers; prints ONE JSON object.

    python benchmarks/bench_rank.py                                   # ECHR + paper-scale synthetic
    python benchmarks/bench_rank.py --synthetic-index DIR --echr-index DIR   # indexes already built

ECHR: the BM25 attacker is built from the pruned index of
assets/echr/collection.jsonl (1,635 documents) and the 127 released texts of
assets/echr/queries.jsonl are ranked (each against its own id); `rank_s` is
that ranking alone, after the build (target: under 10 s). Paper-scale: a
synthetic collection of 13,759 documents of 750 words (benchmarks/synthetic.py,
as bench_index.py) is indexed (pruned layout) and the attacker built from it
(target: under 2 minutes and 2 GB). Each build runs in a child process so
that `peak_rss_mb` is its own (`ru_maxrss`: the opened index's touched pages
and the attacker); the index build itself is timed apart (`index_build_s`).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
from spacy_linkguard.attack import BM25Attacker
from spacy_linkguard.index import open_index
idx = open_index(sys.argv[1])
t1 = time.perf_counter()
att = BM25Attacker.from_index(idx)
t2 = time.perf_counter(); c2 = time.process_time()
out = {"n_docs": att.n_docs, "vocabulary": len(att.word_id), "load_s": round(t1 - t0, 3),
       "build_s": round(t2 - t1, 3), "build_cpu_s": round(c2 - c0, 3)}
if len(sys.argv) > 2:
    from spacy_linkguard.corpus import iter_records
    qs = list(iter_records(sys.argv[2]))
    att.rank(qs[0].text, [0])  # the tokenizer's first call (spaCy's start-up) is not ranking
    t3 = time.perf_counter()
    ranks = [att.rank(q.text, [idx.doc_number(q.id)]) for q in qs]
    out.update(n_queries=len(qs), rank_s=round(time.perf_counter() - t3, 3),
               top1=sum(r == 1 for r in ranks), top10=sum(r <= 10 for r in ranks))
out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def build_index(corpus: Path, out: Path) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spacy_linkguard", "build-index", str(corpus), str(out), "--no-progress"],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - t, 2)


def attacker_child(index: Path, queries: Path = None) -> dict:
    args = [sys.executable, "-c", CHILD, str(index)] + ([str(queries)] if queries else [])
    res = subprocess.run(args, check=True, capture_output=True, text=True, cwd=REPO)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--echr-index", type=Path, help="pruned index of assets/echr/collection.jsonl (built if absent)")
    ap.add_argument("--synthetic-index", type=Path, help="pruned paper-scale index (built if absent)")
    ap.add_argument("--synthetic-docs", type=int, default=13759)
    ap.add_argument("--words", type=int, default=750)
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    import bm25s

    out = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_avg": os.getloadavg()},
           "bm25s": bm25s.__version__, "method": "lucene", "k1": 1.5, "b": 0.75}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        echr = args.echr_index
        if echr is None:
            echr = tmp / "echr"
            out["echr_index_build_s"] = build_index(REPO / "assets" / "echr" / "collection.jsonl", echr)
        out["echr"] = attacker_child(echr, REPO / "assets" / "echr" / "queries.jsonl")
        if not args.skip_synthetic:
            synth = args.synthetic_index
            if synth is None:
                from benchmarks.synthetic import write_corpus

                corpus = write_corpus(tmp / "synth.jsonl", args.synthetic_docs, args.words)
                synth = tmp / "synth"
                out["synthetic_index_build_s"] = build_index(corpus, synth)
            out["synthetic"] = {"corpus": f"synthetic: {args.synthetic_docs} docs x {args.words} words "
                                          "(order-1 word Markov chain trained on assets/echr)",
                                **attacker_child(synth)}
    out["targets_met"] = {
        "echr_rank_127_under_10s": out["echr"]["rank_s"] < 10,
        **({"synthetic_build_under_120s": out["synthetic"]["build_s"] < 120,
            "synthetic_peak_rss_under_2gb": out["synthetic"]["peak_rss_mb"] < 2048} if "synthetic" in out else {}),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
