"""Detection memory on long texts: peak RSS and wall time, one child process per text.

    python benchmarks/bench_detect_memory.py --index indexes/echr --pin

Texts (k = 2, max_arity = 3 by default), each detected in a fresh child
process so that its peak RSS (VmHWM) is its own:

- `largest_echr`: the largest bundled ECHR document (001-105434/law of
  assets/echr/collection.jsonl, 206k characters): verbatim collection text,
  so nearly every pair of its candidates singles it out (41M minimal pairs);
- `joined_1mb`: whole judgments of the collection joined by blank lines,
  cut at 1,000,000 characters;
- `spliced_1mb`: 1,000,000 characters of runs of 1..6 words cut at random
  from random collection documents (seed 0), like a heavy rewrite: every
  phrase occurs somewhere, no document holds much of it.

Each child loads the index, detects a short text first (spaCy's tokenizer
loads then), and reports the RSS after that, the detection's wall and CPU
seconds, its peak RSS, and the report's sizes. Target (issue #15): peak RSS
<= 1.5 GB for every text. Prints ONE JSON object; writes it to --out
(paths relative to the repository).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
COLLECTION = REPO / "assets/echr/collection.jsonl"
LARGEST = "001-105434/law"
ONE_MB = 1_000_000
TARGET_PEAK_MB = 1536.0
CASES = ("largest_echr", "joined_1mb", "spliced_1mb")


def log(msg: str) -> None:
    print(f"[bench_detect_memory] {msg}", file=sys.stderr, flush=True)


def rss_mb() -> Dict[str, float]:
    """Current (VmRSS) and peak (VmHWM) resident memory of this process, MB."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return {"current": out["VmRSS"], "peak": out["VmHWM"]}


def rel(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def case_text(case: str, collection: Path) -> str:
    from spacy_linkguard.corpus import iter_records

    records = list(iter_records(collection))
    if case == "largest_echr":
        return next(r.text for r in records if r.id == LARGEST)
    if case == "joined_1mb":
        parts: List[str] = []
        size = 0
        for r in records:
            if "/" in r.id:  # whole judgments only (not their law / law-10pct parts)
                continue
            parts.append(r.text)
            size += len(r.text) + 2
            if size >= ONE_MB:
                break
        return "\n\n".join(parts)[:ONE_MB]
    if case == "spliced_1mb":
        rng = random.Random(0)
        words = [r.text.split() for r in records]
        pieces: List[str] = []
        size = 0
        while size < ONE_MB:
            doc = rng.choice(words)
            length = rng.randint(1, 6)
            at = rng.randrange(max(len(doc) - length, 1))
            piece = " ".join(doc[at : at + length])
            pieces.append(piece)
            size += len(piece) + 1
        return " ".join(pieces)[:ONE_MB]
    raise ValueError(f"unknown case {case!r}; choose from {CASES}")


def child(args: argparse.Namespace) -> None:
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex

    text = case_text(args.child, args.collection)
    t0 = time.perf_counter()
    index = NgramIndex.load(args.index)
    load_s = time.perf_counter() - t0
    kwargs = {"max_combos": args.max_combos} if args.max_combos else {}
    det = Detector(index, k=args.k, max_arity=args.max_arity, **kwargs)
    det.detect("The applicant was born in 1960 and lives in Strasbourg.")  # tokenizer loaded
    before = rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    out = det.detect(text)  # the spans too: their evidence is part of the memory
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rep = out.report
    print(json.dumps({
        "case": args.child, "chars": len(text), "tokens": rep["tokens"], "index_load_s": round(load_s, 2),
        "rss_before_mb": before["current"], "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "peak_rss_mb": rss_mb()["peak"], "candidates": rep["candidates"], "rare_minimal": rep["rare_minimal"],
        "minimal_linkable": rep["minimal_linkable"], "counts_exact": rep["counts_exact"],
        "combo_keys": rep["combo_keys"], "spans": rep["spans"], "safe": out.safe,
    }))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--index", type=Path, default=REPO / "indexes/echr")
    p.add_argument("--collection", type=Path, default=COLLECTION)
    p.add_argument("--k", type=int, default=2)
    p.add_argument("--max-arity", type=int, default=3)
    p.add_argument("--max-combos", type=int, default=0, help="Detector max_combos (0: its default).")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--pin", action="store_true", help="Pin each child to one CPU.")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks/results/bench_detect_memory.json")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        if args.pin:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
        child(args)
        return
    result: Dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "loadavg_start": [round(x, 2) for x in os.getloadavg()]},
        "index": rel(args.index), "collection": rel(args.collection), "k": args.k, "max_arity": args.max_arity,
        "max_combos": args.max_combos or "default", "target_peak_rss_mb": TARGET_PEAK_MB, "cases": {},
    }
    for case in args.cases.split(","):
        log(f"{case} (child process)")
        cmd = [sys.executable, __file__, "--child", case, "--index", str(args.index), "--collection",
               str(args.collection), "--k", str(args.k), "--max-arity", str(args.max_arity),
               "--max-combos", str(args.max_combos)] + (["--pin"] if args.pin else [])
        run = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
        if run.returncode != 0:
            result["cases"][case] = {"failed": run.returncode, "stderr_tail": run.stderr[-2000:]}
            continue
        result["cases"][case] = json.loads(run.stdout)
        log(json.dumps(result["cases"][case]))
    result["targets"] = {f"{case}_peak_rss_mb<={TARGET_PEAK_MB:.0f}": bool(
        "peak_rss_mb" in row and row["peak_rss_mb"] <= TARGET_PEAK_MB) for case, row in result["cases"].items()}
    result["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(result)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
