"""Detection latency on each index layout of the same collection; prints ONE JSON object.

    python benchmarks/bench_layouts.py --limit 40 --workdir indexes/bench_layouts

Builds the full, pruned and sharded (5 shards) indexes of
`assets/echr/collection.jsonl` (once, in --workdir) and runs
`Detector(index, k, max_arity=3).detect(text)` on the masked queries of
`assets/echr/queries.jsonl`, the layouts interleaved query by query so that
they share the machine's load. Reports per layout the median / p95 / total
wall and CPU seconds per document, and whether every layout gave the same
spans and verdicts as the full one.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LAYOUTS = {"full": {"full": True}, "pruned": {}, "sharded5": {"shards": 5}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--collection", type=Path, default=REPO / "assets/echr/collection.jsonl")
    p.add_argument("--queries", type=Path, default=REPO / "assets/echr/queries.jsonl")
    p.add_argument("--workdir", type=Path, default=REPO / "indexes/bench_layouts")
    p.add_argument("--limit", type=int, default=40)
    p.add_argument("--k", type=int, default=2)
    args = p.parse_args()

    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex

    args.workdir.mkdir(parents=True, exist_ok=True)
    detectors = {}
    for name, kw in LAYOUTS.items():
        path = args.workdir / name
        try:
            idx = NgramIndex.load(path)
        except Exception:
            idx = NgramIndex.build(iter_records(args.collection), path, progress=False, **kw)
        detectors[name] = Detector(idx, k=args.k, max_arity=3)
    queries = [r.text for i, r in zip(range(args.limit), iter_records(args.queries))]
    wall = {n: [] for n in LAYOUTS}
    cpu = {n: [] for n in LAYOUTS}
    same = {n: True for n in LAYOUTS}
    for text in queries:
        ref = None
        for name, det in detectors.items():
            t, c = time.perf_counter(), time.process_time()
            res = det.detect(text)
            wall[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)
            got = [(s.start_char, s.end_char, s.label, s.key) for s in res.spans], res.safe
            if ref is None:
                ref = got
            same[name] &= got == ref
    out = {"machine": {"cpus": os.cpu_count()}, "collection": "assets/echr/collection.jsonl",
           "queries": len(queries), "k": args.k, "max_arity": 3, "load_avg": [round(x, 2) for x in os.getloadavg()]}
    for name in LAYOUTS:
        w, c = sorted(wall[name]), sorted(cpu[name])
        out[name] = {"median_wall_s": round(statistics.median(w), 4), "p95_wall_s": round(w[int(0.95 * (len(w) - 1))], 4),
                     "total_wall_s": round(sum(w), 3), "median_cpu_s": round(statistics.median(c), 4),
                     "total_cpu_s": round(sum(c), 3), "same_spans_as_full": same[name]}
    for name in ("pruned", "sharded5"):
        out[f"{name}_cpu_vs_full"] = round(out[name]["total_cpu_s"] / out["full"]["total_cpu_s"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
