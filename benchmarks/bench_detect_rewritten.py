"""Detection latency and memory on LLM-rewritten text, both verdicts (arity 3, k 2).

    python benchmarks/bench_detect_rewritten.py --index indexes/echr --pin --repeat 2

Over `benchmarks/data/echr_qwen25_llm_a3_before_guarantee.jsonl` (127 ECHR
documents rewritten by Qwen2.5 before guarantee mode, `{id, text}` lines),
one `Detector(index, k=2, max_arity=3)` (default `max_combos`) runs
`detect(text, sources)` on every line, once with `sources=[id]` (the "source"
verdict) and once with `sources=None` (the strict "any" verdict, where
rewritten text has the most minimal linkable combinations). Per document, CPU
time (`time.process_time`, the process is single-threaded: BLAS threads = 1;
`--pin` pins it to one CPU); the peak RSS of the process (VmHWM, index loaded
included). The detector is warmed on one text first; lookups of a new text are
included in its time, as in a pass of the rewrite loop.

`--repeat N` runs the whole set N times, each time with a fresh `Detector`
(its caches empty: every text's lookups are counted again), and keeps each
document's least CPU time: on a shared machine a transient slowdown of a few
seconds moves a single run's median by 20-30%; the medians of the single runs
are printed too (`runs`).

Prints ONE JSON object on stdout (median / p95 / max CPU ms per verdict, peak
RSS, the issue's targets and pass/fail for each, load averages, how many
documents had their combinations streamed); progress goes to stderr.
"""
import os

# One core: set before numpy loads BLAS.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "benchmarks/data/echr_qwen25_llm_a3_before_guarantee.jsonl"
# The issue ("strict verdict fast on rewritten text"), k = 2, arity 3, one core.
TARGETS = {"any_median_ms": 150.0, "any_p95_ms": 1500.0, "peak_rss_mb": 1536.0}


def log(msg: str) -> None:
    print(f"[bench_detect_rewritten] {msg}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def summary(ms: List[float]) -> Dict[str, float]:
    a = np.asarray(ms, dtype=float)
    return {"median": round(float(np.median(a)), 1), "p95": round(float(np.percentile(a, 95)), 1),
            "max": round(float(a.max()), 1), "mean": round(float(a.mean()), 1)}


def _where(path: Path) -> str:
    """`path` relative to the checkout when inside it, else its last two parts."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return "/".join(path.parts[-2:])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes/echr", help="Index of assets/echr/collection.jsonl.")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--limit", type=int, default=None, help="Only the first N lines.")
    p.add_argument("--verdicts", default="any,source", help="Comma-separated: any, source.")
    p.add_argument("--pin", action="store_true", help="Pin the process to the last allowed CPU.")
    p.add_argument("--per-doc", action="store_true", help="Also list each document's CPU ms and counts.")
    p.add_argument("--repeat", type=int, default=1,
                   help="Runs of the whole set, a fresh Detector each; each document's least CPU time is kept.")
    args = p.parse_args()
    cpu = None
    if args.pin:
        cpu = sorted(os.sched_getaffinity(0))[-1]
        os.sched_setaffinity(0, {cpu})

    import spacy_linkguard
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import open_index

    rows = [json.loads(line) for line in args.data.open(encoding="utf8") if line.strip()]
    rows = rows[: args.limit] if args.limit else rows
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    result: Dict[str, Any] = {
        "benchmark": "bench_detect_rewritten", "data": str(args.data.relative_to(REPO) if args.data.is_relative_to(
            REPO) else args.data), "docs": len(rows), "k": 2, "max_arity": 3, "commit": commit,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "pinned_cpu": cpu,
                    "loadavg_start": [round(x, 2) for x in os.getloadavg()]},
        "targets": TARGETS,
        # The code measured (a paired run of older code sets PYTHONPATH to its
        # tree): relative to this checkout, else the folder's name (no absolute path).
        "package": _where(Path(spacy_linkguard.__file__).resolve().parent),
    }
    index = open_index(args.index)
    result["repeat"] = args.repeat
    for verdict in args.verdicts.split(","):
        runs: List[List[float]] = []
        for run in range(args.repeat):
            det = Detector(index, k=2, max_arity=3)  # fresh caches: lookups counted in every run
            result["max_combos"] = det.max_combos
            det.detect(rows[0]["text"])  # warm: tokenizer, first page faults
            ms, per_doc, streamed, not_safe = [], [], 0, 0
            for i, row in enumerate(rows):
                sources = [row["id"]] if verdict == "source" else None
                c0 = time.process_time()
                res = det.detect(row["text"], sources)
                ms.append((time.process_time() - c0) * 1000)
                rep = res.report
                streamed += not rep["counts_exact"]
                not_safe += not res.safe
                per_doc.append({"id": row["id"], "cpu_ms": round(ms[-1], 1), "candidates": rep["candidates"],
                                "minimal_linkable": rep["minimal_linkable"], "counts_exact": rep["counts_exact"],
                                "combo_keys": rep["combo_keys"]})
                if (i + 1) % 20 == 0:
                    log(f"{verdict}, run {run + 1}: {i + 1}/{len(rows)} (median so far {np.median(ms):.0f} ms)")
            runs.append(ms)
        ms = np.min(np.asarray(runs), axis=0).tolist()
        for d, best in zip(per_doc, ms):
            d["cpu_ms"] = round(best, 1)
        out: Dict[str, Any] = {"cpu_ms": summary(ms), "streamed_docs": streamed, "unsafe_docs": not_safe}
        if args.repeat > 1:
            out["runs"] = [summary(r) for r in runs]
        if args.per_doc:
            out["per_doc"] = per_doc
        result[verdict] = out
    result["peak_rss_mb"] = peak_rss_mb()
    result["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    checks = {"any_median_ms": result.get("any", {}).get("cpu_ms", {}).get("median"),
              "any_p95_ms": result.get("any", {}).get("cpu_ms", {}).get("p95"),
              "peak_rss_mb": result["peak_rss_mb"]}
    result["pass"] = {name: (value is not None and value <= TARGETS[name]) for name, value in checks.items()}
    result["all_pass"] = all(result["pass"].values())
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
