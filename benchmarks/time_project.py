"""Per-step timing of the spaCy project's `all` workflow (what `make run` runs).

    python benchmarks/time_project.py > benchmarks/results/time_project_after.json
    python benchmarks/time_project.py --project-dir /tmp/old-checkout --label before \
        --steps baseline-wordnet rewrite-lexical evaluate
    python benchmarks/time_project.py -- --vars.n_eval_docs 10     # vars for every step

Runs each step of the workflow (default: every step of `all`, in order) as
`python -m spacy project run STEP DIR --force [VARS]` in a child process and
records, per step: wall seconds; CPU seconds (user + sys) of the step's whole
process tree (this process is the tree's subreaper and `wait4`s every process
of it, the worker processes under a multiprocessing forkserver included);
peak RSS (the largest single process of the tree, not a sum); the load
averages (1, 5, 15 minutes) before and after.
On a shared machine the wall time moves with what else runs, the CPU seconds
much less: they are the figure to compare. `--force` runs a step even when
weasel's lock file says its outputs are up to date, so every step is timed.

Where a step writes paraphrase lines (baseline-wordnet, rewrite-lexical), the
mean of their `seconds` field (the report's seconds a document) is added.

Prints ONE JSON object on stdout; each step's own output goes to stderr.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[1]
# Steps whose output lines carry a per-document `seconds` field, by project var.
SECONDS_OUTPUTS = {"baseline-wordnet": "out_wordnet", "rewrite-lexical": "out_lexical_am"}
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def log(msg: str) -> None:
    print(f"[time_project] {msg}", file=sys.stderr, flush=True)


def project_config(project_dir: Path, overrides: List[str]) -> Dict[str, Any]:
    """project.yml with its variables substituted (weasel's own loader)."""
    from weasel.util.config import parse_config_overrides
    from weasel.util import load_project_config

    return load_project_config(project_dir, overrides=parse_config_overrides(overrides))


def git_commit(project_dir: Path) -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", str(project_dir), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    dirty = subprocess.run(["git", "-C", str(project_dir), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+dirty" if dirty else "")


def mean_seconds(path: Path) -> Optional[Dict[str, float]]:
    """Documents and mean of the `seconds` field of a JSONL output, None when absent."""
    if not path.is_file():
        return None
    values = [json.loads(line).get("seconds") for line in path.read_text(encoding="utf-8").splitlines()
              if line.strip()]
    values = [v for v in values if isinstance(v, (int, float))]
    if not values:
        return None
    return {"docs": len(values), "mean_seconds_per_doc": round(sum(values) / len(values), 3)}


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux
    PR_SET_CHILD_SUBREAPER): a step's worker pool runs under a multiprocessing
    forkserver that its command does not wait for, so without this the
    workers' CPU time is lost to init. RETURNS whether it worked."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def reap_all(first_pid: int) -> Tuple[int, float, float, int]:
    """Wait for `first_pid` and then for every descendant re-parented to us
    (subreaper), until none is left. RETURNS (exit code of `first_pid`, user s,
    sys s, largest ru_maxrss in KiB): each wait4 rusage covers the process and
    the descendants it waited for, so the sums cover the whole tree."""
    code, user, sys_, peak = 0, 0.0, 0.0, 0
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return code, user, sys_, peak
        user += usage.ru_utime
        sys_ += usage.ru_stime
        peak = max(peak, usage.ru_maxrss)
        if pid == first_pid:
            code = os.waitstatus_to_exitcode(status)


def time_step(project_dir: Path, step: str, overrides: List[str]) -> Dict[str, Any]:
    """Run one project step in a child process; its wall, CPU and peak RSS."""
    cmd = [sys.executable, "-m", "spacy", "project", "run", step, str(project_dir), "--force", *overrides]
    env = dict(os.environ, **ENV)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=project_dir, env=env, stdout=sys.stderr, stderr=sys.stderr)
    code, user, sys_, peak = reap_all(proc.pid)
    wall = time.perf_counter() - t0
    proc.returncode = code
    return {
        "step": step,
        "returncode": code,
        "wall_s": round(wall, 2),
        "cpu_s": round(user + sys_, 2),
        "user_s": round(user, 2),
        "sys_s": round(sys_, 2),
        "peak_rss_mb": round(peak / 1024, 1),  # Linux: KiB
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project-dir", type=Path, default=REPO, help="checkout whose project.yml runs")
    parser.add_argument("--workflow", default="all")
    parser.add_argument("--steps", nargs="*", default=None, help="only these steps (default: the workflow's)")
    parser.add_argument("--label", default=None, help="a name for the run, kept in the JSON")
    parser.add_argument("--keep-going", action="store_true", help="time the next steps after a failed one")
    parser.add_argument("overrides", nargs="*", help="after --: vars for every step (--vars.NAME VALUE)")
    args = parser.parse_args(argv)
    project_dir = args.project_dir.resolve()
    subreaper = become_subreaper()
    config = project_config(project_dir, args.overrides)
    steps = args.steps or list(config["workflows"][args.workflow])
    steps_out = []
    t0 = time.perf_counter()
    load_start = os.getloadavg()
    for step in steps:
        log(f"{step} ...")
        row = time_step(project_dir, step, args.overrides)
        var = SECONDS_OUTPUTS.get(step)
        if var and row["returncode"] == 0:
            per_doc = mean_seconds(project_dir / config["vars"][var])
            if per_doc:
                row.update(per_doc)
        print(json.dumps(row), file=sys.stderr, flush=True)
        log(f"{step}: wall {row['wall_s']} s, CPU {row['cpu_s']} s, peak RSS {row['peak_rss_mb']} MB, "
            f"rc {row['returncode']}")
        steps_out.append(row)
        if row["returncode"] != 0 and not args.keep_going:
            break
    result = {
        "benchmark": "time_project",
        "label": args.label,
        "workflow": args.workflow if args.steps is None else None,
        "steps_asked": steps,
        "overrides": args.overrides,
        "commit": git_commit(project_dir),
        "subreaper": subreaper,  # False: worker processes' CPU may be missing
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "load_start": [round(x, 2) for x in load_start],
        "load_end": [round(x, 2) for x in os.getloadavg()],
        "total": {"wall_s": round(time.perf_counter() - t0, 2),
                  "cpu_s": round(sum(s["cpu_s"] for s in steps_out), 2),
                  "peak_rss_mb": max((s["peak_rss_mb"] for s in steps_out), default=None)},
        "steps": steps_out,
    }
    print(json.dumps(result, indent=2))
    return 0 if all(s["returncode"] == 0 for s in steps_out) else 1


if __name__ == "__main__":
    sys.exit(main())
