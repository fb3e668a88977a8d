"""`rewrite` on one GPU and on a Dask cluster of one worker per GPU: documents per hour; prints ONE JSON object.

    # on a machine with 2 GPUs (the index built, the model in models/):
    python benchmarks/bench_gpu_workers.py --index indexes/echr --limit 32 --gpus 2
    # a CPU rehearsal of the same steps (lexical rewriter, 2 Dask workers, no GPU):
    python benchmarks/bench_gpu_workers.py --index indexes/echr --limit 4 --gpus 2 --cpu \\
        --config configs/rewrite_lexical.cfg
    # the summary of runs made already (OUTPUT:WALL_SECONDS:WORKERS, one per run):
    python benchmarks/bench_gpu_workers.py --summarize g1.jsonl:533:1 g2.jsonl:426:2 --batch-size 8

Run 1 is the plain command on the first GPU (`CUDA_VISIBLE_DEVICES=0 python
-m spacy_linkguard rewrite ... -o OUT`, one process); run 2 starts `dask
scheduler` and one `dask worker --nworkers 1 --nthreads 1` per GPU (each with
its own CUDA_VISIBLE_DEVICES) and runs the same command with `--scheduler`.
Both rewrite the first `--limit` queries with the same config, `k`,
`max_arity`, verdict and component `batch_size` (the Dask partition size).
The wall time is the command's, end to end: model loads (and, with a static
KV cache, the one-off torch.compile of each worker) included; the cluster's
start is not.

Per run the JSON gives documents per hour, and from the output lines (each
pass records its share of the batch's seconds) the seconds of work in each
partition of `batch_size` documents, in input order. Dask hands partitions to
whichever worker is free, so with few partitions one worker can get most of
the work: compare the wall time with the largest partition sums.
Target (issue): two GPUs >= 1.8x the documents per hour of one.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
TARGET_SPEEDUP = 1.8


def log(msg: str) -> None:
    print(f"[bench_gpu_workers] {msg}", file=sys.stderr, flush=True)


def summarize(out: Path, wall_s: float, workers: int, batch_size: int) -> Dict[str, Any]:
    """The run's numbers from its output lines and wall time."""
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    work = [sum(p.get("seconds", 0.0) for p in rec.get("passes", [])) for rec in lines]
    parts = [round(sum(work[i:i + batch_size]), 1) for i in range(0, len(work), batch_size)]
    return {
        "output": out.name, "gpus": workers, "n_docs": len(lines), "wall_s": round(wall_s, 1),
        "docs_per_hour": round(len(lines) * 3600 / wall_s, 1),
        "seconds_per_doc": round(wall_s / max(1, len(lines)), 2),
        "work_s": round(sum(work), 1), "partition_work_s": parts,
        "passes_max": max((len(rec.get("passes", [])) for rec in lines), default=0),
        "safe": sum(bool(rec.get("safe")) for rec in lines),
        "forced_redactions": sum(rec.get("forced_redactions", 0) for rec in lines),
        "system": lines[0].get("system") if lines else None, "model": lines[0].get("model") if lines else None,
        "max_arity": lines[0].get("max_arity") if lines else None,
        "verdict": lines[0].get("verdict") if lines else None,
    }


def rewrite_cmd(args: argparse.Namespace, queries: Path, out: Path, scheduler: Optional[str]) -> List[str]:
    cmd = [sys.executable, "-m", "spacy_linkguard", "rewrite", str(queries), "--index", str(args.index),
           "--config", str(args.config), "--output", str(out), "--verdict", args.verdict, "--no-progress",
           "--components.linkguard_rewrite.k", str(args.k),
           "--components.linkguard_rewrite.max_arity", str(args.max_arity),
           "--components.linkguard_rewrite.batch_size", str(args.batch_size)]
    return cmd + (["--scheduler", scheduler] if scheduler else [])


def run_timed(cmd: List[str], env: Dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{proc.stderr[-3000:]}")
    return wall


def start_cluster(gpus: int, cpu: bool, env: Dict[str, str], port: int, logdir: Path) -> List[subprocess.Popen]:
    """A scheduler and one single-threaded worker per GPU, each in its own session."""
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", str(port), "--no-dashboard"], cwd=REPO, env=env,
                              stdout=subprocess.DEVNULL, stderr=(logdir / "scheduler.log").open("w"),
                              start_new_session=True)]
    for g in range(gpus):
        wenv = dict(env, CUDA_VISIBLE_DEVICES="" if cpu else str(g))
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", f"tcp://127.0.0.1:{port}",
                                       "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--memory-limit", "0",
                                       "--name", f"gpu{g}"], cwd=REPO, env=wenv, stdout=subprocess.DEVNULL,
                                      stderr=(logdir / f"worker{g}.log").open("w"), start_new_session=True))
    return procs


def wait_for_workers(address: str, n: int, timeout: float = 120.0) -> None:
    from distributed import Client

    with Client(address, timeout=timeout) as client:
        client.wait_for_workers(n, timeout=timeout)


def stop(procs: List[subprocess.Popen]) -> None:
    for p in reversed(procs):
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, default=REPO / "indexes" / "echr")
    ap.add_argument("--queries", type=Path, default=REPO / "assets" / "echr" / "queries.jsonl")
    ap.add_argument("--config", type=Path, default=REPO / "configs" / "rewrite_qwen25_1p5b.cfg")
    ap.add_argument("--limit", type=int, default=32, help="The first N queries.")
    ap.add_argument("--gpus", type=int, default=2, help="Dask workers, one per GPU (0..N-1).")
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--max-arity", type=int, default=3)
    ap.add_argument("--verdict", default="source")
    ap.add_argument("--batch-size", type=int, default=8, help="The component's batch_size: a Dask partition.")
    ap.add_argument("--port", type=int, default=8786)
    ap.add_argument("--cpu", action="store_true", help="No GPU: a rehearsal (workers see no CUDA device).")
    ap.add_argument("--keep", type=Path, default=None, help="Copy the two outputs into this folder.")
    ap.add_argument("--summarize", nargs="+", default=None, metavar="OUTPUT:WALL_S:GPUS",
                    help="Only summarize runs made already.")
    args = ap.parse_args()

    if args.summarize:
        runs = []
        for spec in args.summarize:
            path, wall, gpus = spec.rsplit(":", 2)
            runs.append(summarize(Path(path), float(wall), int(gpus), args.batch_size))
    else:
        env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        with tempfile.TemporaryDirectory(prefix="bench-gpu-workers-") as tmp:
            tmp_path = Path(tmp)
            queries = tmp_path / "queries.jsonl"
            with args.queries.open(encoding="utf-8") as f:
                queries.write_text("".join(islice(f, args.limit)), encoding="utf-8")
            one = tmp_path / "one_gpu.jsonl"
            log(f"run 1: one process on {'the CPU' if args.cpu else 'GPU 0'} ...")
            wall1 = run_timed(rewrite_cmd(args, queries, one, None),
                              dict(env, CUDA_VISIBLE_DEVICES="" if args.cpu else "0"))
            log(f"  {wall1:.1f} s")
            address = f"tcp://127.0.0.1:{args.port}"
            procs = start_cluster(args.gpus, args.cpu, env, args.port, tmp_path)
            try:
                wait_for_workers(address, args.gpus)
                many = tmp_path / f"{args.gpus}_gpus.jsonl"
                log(f"run 2: a Dask cluster of {args.gpus} worker(s) ...")
                wall2 = run_timed(rewrite_cmd(args, queries, many, address), env)
                log(f"  {wall2:.1f} s")
            finally:
                stop(procs)
            runs = [summarize(one, wall1, 1, args.batch_size), summarize(many, wall2, args.gpus, args.batch_size)]
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(one, args.keep / one.name)
                shutil.copy(many, args.keep / many.name)
    base = next((r for r in runs if r["gpus"] == 1), None)
    speedup = {f"{r['gpus']}_vs_1": round(r["docs_per_hour"] / base["docs_per_hour"], 3)
               for r in runs if base is not None and r is not base}
    print(json.dumps({
        "benchmark": "rewrite: one GPU vs a Dask cluster of one worker per GPU",
        "batch_size": args.batch_size, "runs": runs, "speedup": speedup,
        "target_speedup": TARGET_SPEEDUP,
        "meets_target": all(v >= TARGET_SPEEDUP for v in speedup.values()) if speedup else None,
        "note": "wall time end to end (model loads and one-off compiles included, cluster start not); "
                "partition_work_s: seconds of work per partition of batch_size documents, from the lines",
    }, indent=2))


if __name__ == "__main__":
    main()
