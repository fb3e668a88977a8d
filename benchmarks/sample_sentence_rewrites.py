"""Rewrite a random sample of flagged sentences with the sentence backend, to read them; prints ONE JSON object.

    python benchmarks/sample_sentence_rewrites.py --index indexes/echr --n 10 --seed 0 \\
        --config configs/rewrite_qwen25_1p5b_cpu.cfg --out sample.jsonl

Picks `--n` documents of `--queries` at random (`random.Random(seed)`), one
flagged sentence of each (source verdict, k = 2, arity <= 3), and runs the
config's `rewriter` block (linkguard.SentenceRewriter.v1: banned phrases,
guards, fact guard, index and vocabulary filters, ranking) on them in one
call, as one pass of the loop would. Each line of `--out` has the document,
the sentence, its phrases, the kept rewrite (null: no candidate survived) and
the rejections by reason: what a reader judges. The JSON gives the counts.
"""
import argparse
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=Path, default=REPO / "assets" / "echr" / "queries.jsonl")
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "rewrite_qwen25_1p5b_cpu.cfg")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-dtype", default=None, help="Override the model's dtype (float32 is faster on a CPU).")
    ap.add_argument("--n-candidates", type=int, default=None, help="Override the rewriter's n_candidates.")
    ap.add_argument("--threads", type=int, default=None, help="Override the model's num_threads (CPU).")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    from spacy_llm.registry import registry  # spaCy's registries with spacy-llm's (llm_tasks, llm_models)
    from thinc.api import Config

    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import open_index
    from spacy_linkguard.rewrite.judge import EditJudge

    section = Config().from_disk(args.config, interpolate=False)["components"]["linkguard_rewrite"]["rewriter"]
    if args.model_dtype:
        section["model"]["dtype"] = args.model_dtype
    if args.n_candidates:
        section["n_candidates"] = args.n_candidates
    if args.threads:
        section["model"]["num_threads"] = args.threads
    rewriter = registry.resolve({"r": section})["r"]
    index = open_index(args.index)
    detector = Detector(index, k=2, max_arity=3)
    records = [json.loads(line) for line in args.queries.open(encoding="utf-8") if line.strip()]
    rng = random.Random(args.seed)
    chunks, texts, sources = [], [], []
    for rec in rng.sample(records, args.n):
        det = detector.detect(rec["text"], sources=[rec["id"]])
        flagged = [c for c in rewriter.chunks(rec["text"], [(s.start_char, s.end_char) for s in det.spans],
                                              doc_index=len(texts)) if c.flagged]
        if flagged:
            chunks.append(rng.choice(flagged))
            texts.append(rec["text"])
            sources.append([rec["id"]])
    judge = EditJudge(detector, index.settings, sources, texts=texts)
    t0 = time.perf_counter()
    outcomes = rewriter.rewrite_chunks(chunks, judge=judge)
    seconds = time.perf_counter() - t0
    rejected: dict = {}
    with args.out.open("w", encoding="utf-8") as f:
        for o, src in zip(outcomes, sources):
            for reason, n in o.rejected.items():
                rejected[reason] = rejected.get(reason, 0) + n
            f.write(json.dumps({"id": src[0], "sentence": o.chunk.text, "phrases": rewriter.task.banned(o.chunk),
                                "rewrite": o.edited, "rejected": o.rejected, "calls": o.calls},
                               ensure_ascii=False) + "\n")
    print(json.dumps({"config": str(args.config), "seed": args.seed, "sentences": len(outcomes),
                      "kept": sum(o.edited is not None for o in outcomes), "calls": sum(o.calls for o in outcomes),
                      "rejected": rejected, "seconds": round(seconds, 1), "out": str(args.out)}, indent=1))


if __name__ == "__main__":
    main()
