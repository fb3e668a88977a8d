"""Paired A/B in one process: the former `minimal_triples` and `greedy_hitting_set`
(`tests/detect/reference_combos.py`, commit 62d9bbb) against the current ones.

    python benchmarks/ab_detect_combos.py --index indexes/echr   # under taskset -c N

One `Detector(index, k=2, max_arity=3)` (default budget: both paths in memory)
on each line of the Qwen2.5 rewrites, "any" verdict: a warm-up detection (index
lookups cached), then former, current, current, former (CPU time); asserts
that both give the same `Detection.to_dict()`. Prints one line per document
(id, former ms, current ms: means of two) and a JSON summary last.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import spacy_linkguard.detect.detector as D  # noqa: E402
from spacy_linkguard.index import open_index  # noqa: E402
from tests.detect import reference_combos as ref  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes/echr")
    p.add_argument("--data", type=Path, default=REPO / "benchmarks/data/echr_qwen25_llm_a3_before_guarantee.jsonl")
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args()
    det = D.Detector(open_index(args.index), k=2, max_arity=3)
    rows = [json.loads(line) for line in args.data.open(encoding="utf8") if line.strip()][: args.limit]
    current, former = (D.minimal_triples, D.greedy_hitting_set), (ref.minimal_triples, ref.greedy_hitting_set)

    def run(fs, text):
        D.minimal_triples, D.greedy_hitting_set = fs
        c0 = time.process_time()
        res = det.detect(text)
        dt = time.process_time() - c0
        out = res.to_dict()
        out["report"].pop("seconds")
        return dt, out

    pairs = []
    for row in rows:
        run(current, row["text"])
        a1, da = run(former, row["text"])
        b1, db = run(current, row["text"])
        b2, _ = run(current, row["text"])
        a2, _ = run(former, row["text"])
        assert da == db, row["id"]
        pairs.append(((a1 + a2) / 2 * 1000, (b1 + b2) / 2 * 1000))
        print(row["id"], round(pairs[-1][0]), round(pairs[-1][1]), flush=True)
    o, n = np.array([x[0] for x in pairs]), np.array([x[1] for x in pairs])

    def stats(a):
        return {"median": round(float(np.median(a)), 1), "p95": round(float(np.percentile(a, 95)), 1),
                "max": round(float(a.max()), 1)}

    print(json.dumps({"docs": len(pairs), "former_ms": stats(o), "current_ms": stats(n),
                      "median_ratio_current_over_former": round(float(np.median(n / o)), 3),
                      "identical_detections": True, "loadavg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
