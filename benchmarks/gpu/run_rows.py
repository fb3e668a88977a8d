"""Run the GPU rows of the report on one machine, several GPUs at once; prints ONE JSON object.

Each job is a command (a `rewrite` of the project, or any other) with the GPUs
it may use; a job starts as soon as its GPUs are free and the jobs it waits
for are done, in the order given, so that rows run side by side on a machine
of 2, 4 or 8 GPUs. Every job's wall time, documents and documents per hour
go to `<out>/timings.json` (updated as jobs end); its output and log to
`<out>/<name>.jsonl` and `<out>/<name>.log`. The timings keep each command as
the jobs file writes it ({out}, {kit}), so that a committed record names no
folder of the machine it ran on.

    # the jobs: a JSON list of {"name", "gpus": [0], "cmd": [...], "after": [names], "docs": true,
    #   "share": true (runs beside other jobs on its GPUs instead of waiting for them to be free)};
    #   in "cmd", {out} stands for the --out folder and {kit} for $KIT_DIR (default /tmp/kit)
    python benchmarks/gpu/run_rows.py start --jobs jobs.json --out /tmp/rows   # in the background (setsid)
    python benchmarks/gpu/run_rows.py wait --out /tmp/rows --max-seconds 560   # blocks, prints progress
    python benchmarks/gpu/run_rows.py status --out /tmp/rows                   # the JSON so far

`start` detaches (a new session), so the jobs outlive the call that started
them on a lent machine; `wait` returns when every job has ended or after
--max-seconds. The wall time of a job is its command's, end to end (model
loading and the index's opening included).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List


def log(msg: str) -> None:
    print(f"[run_rows] {msg}", file=sys.stderr, flush=True)


def count_lines(path: Path) -> int:
    if not path.is_file():
        return 0
    with path.open("rb") as f:
        return sum(1 for line in f if line.strip())


def expand(cmd: List[str], out: Path, kit: str) -> List[str]:
    """RETURNS the command with {out} and {kit} replaced by the folders of this run."""
    return [arg.replace("{out}", str(out)).replace("{kit}", kit) for arg in cmd]


def run(jobs: List[Dict[str, Any]], out: Path, poll: float = 1.0) -> Dict[str, Any]:
    """Run the jobs (see the module); RETURNS the timings written to out/timings.json."""
    kit = os.environ.get("KIT_DIR", "/tmp/kit")
    out.mkdir(parents=True, exist_ok=True)
    state: Dict[str, Dict[str, Any]] = {j["name"]: {"status": "pending", "gpus": j["gpus"]} for j in jobs}
    running: Dict[str, Any] = {}
    busy: set = set()
    start_all = time.time()

    def save() -> None:
        doc = {"elapsed_s": round(time.time() - start_all, 1), "jobs": state}
        tmp = out / "timings.json.tmp"
        tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        tmp.replace(out / "timings.json")

    while True:
        for job in jobs:
            st = state[job["name"]]
            if st["status"] != "pending":
                continue
            deps = [state[d]["status"] for d in job.get("after", [])]
            if any(d in ("failed", "skipped") for d in deps):
                st["status"] = "skipped"  # a prerequisite failed: this job never starts
                save()
                continue
            if any(d in ("pending", "running") for d in deps):
                continue
            if busy & set(job["gpus"]) and not job.get("share"):
                continue
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=",".join(str(g) for g in job["gpus"]),
                       PYTHONUNBUFFERED="1")
            logf = (out / f"{job['name']}.log").open("w", encoding="utf-8")
            proc = subprocess.Popen(expand(job["cmd"], out, kit), env=env, stdout=logf, stderr=subprocess.STDOUT)
            running[job["name"]] = (proc, logf)
            if not job.get("share"):
                busy |= set(job["gpus"])
            st.update(status="running", started_s=round(time.time() - start_all, 1), cmd=job["cmd"])
            log(f"started {job['name']} on GPU {job['gpus']}")
            save()
        for name, (proc, logf) in list(running.items()):
            rc = proc.poll()
            if rc is None:
                continue
            logf.close()
            del running[name]
            job = next(j for j in jobs if j["name"] == name)
            if not job.get("share"):
                busy -= set(job["gpus"])
            st = state[name]
            wall = time.time() - start_all - st["started_s"]
            docs = count_lines(out / f"{name}.jsonl") if job.get("docs") else 0
            st.update(status="done" if rc == 0 else "failed", rc=rc, wall_s=round(wall, 1), docs=docs,
                      docs_per_hour=round(docs * 3600 / wall, 1) if docs and wall > 0 else None)
            log(f"{name} ended rc={rc} after {wall:.0f} s ({docs} docs)")
            save()
        if not running and all(s["status"] != "pending" for s in state.values()):
            break
        time.sleep(poll)
    save()
    return json.loads((out / "timings.json").read_text(encoding="utf-8"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["start", "run", "wait", "status"])
    ap.add_argument("--jobs", type=Path, help="JSON list of jobs (start, run).")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-seconds", type=float, default=540.0, help="wait: return after this long at most.")
    args = ap.parse_args()
    if args.action == "run":
        print(json.dumps(run(json.loads(args.jobs.read_text(encoding="utf-8")), args.out), indent=1))
    elif args.action == "start":
        args.out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, os.path.abspath(__file__), "run", "--jobs", str(args.jobs.resolve()),
               "--out", str(args.out.resolve())]
        with (args.out / "run_rows.log").open("a", encoding="utf-8") as f:
            subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        log(f"started in the background; timings in {args.out / 'timings.json'}")
    else:
        t0 = time.time()
        while True:
            path = args.out / "timings.json"
            doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"jobs": {}}
            states = [j["status"] for j in doc["jobs"].values()]
            done = bool(states) and all(s not in ("pending", "running") for s in states)
            if args.action == "status" or done or time.time() - t0 > args.max_seconds:
                print(json.dumps(doc, indent=1))
                return
            for name, j in doc["jobs"].items():
                if j["status"] == "running":
                    n = count_lines(args.out / f"{name}.jsonl")
                    log(f"{name}: running, {n} lines written")
            time.sleep(30)


if __name__ == "__main__":
    main()
