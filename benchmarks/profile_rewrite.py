"""Where a `rewrite` run's time goes: seconds per phase, tokens a document, the card's busy share; prints ONE JSON object.

    python benchmarks/profile_rewrite.py --out benchmarks/results/profile/echr_a3.json -- \\
        benchmarks/data/dev/echr_queries.jsonl --index indexes/echr --config configs/rewrite_qwen25_1p5b.cfg \\
        -o /tmp/echr_a3.jsonl --components.linkguard_rewrite.max_arity 3 --no-progress
    python benchmarks/profile_rewrite.py --summarize DIR WALL_S OUT.jsonl   # the JSON of profiles written already

Everything after `--` is `python -m spacy_linkguard rewrite`'s arguments.
The command runs with LINKGUARD_PROFILE set (`spacy_linkguard/profiling.py`):
every process of it (one, or one a `--workers` worker) adds up its phases:

    prefix      the shared prompt prefix's keys and values (once a run)
    prefill     the prompts' forward pass (each distinct prompt once, the
                shared prefix copied in)
    decode      the decoding steps: forward, sampling, banned-phrase checks, rewinds
    loss        the model's own loss of candidates and originals (the ranking)
    embeddings  sentence embeddings of candidates (the ranking)
    ranking_kept the words-kept term of the ranking
    filters     the candidate filters (`filters/`: guards, grounding, the index)
    model_free  the parse and edits of the model-free candidates
    detection   detection of every unfinished document before each pass
    guarantee   guarantee mode (omission, then placeholders)

and counts: prompt_tokens (every prompt row as the model would read it
whole), prefill_tokens (the positions the prefill computed), prefix_tokens,
loss_tokens, generated_tokens, decode_steps, decode_row_steps, rewinds,
rows (replies asked for), documents. The JSON gives them summed over the
processes and per document, the run's wall seconds, and, with nvidia-smi on
the machine, the card's utilization sampled every 0.5 s (mean: the share of
time a kernel was running) and its memory.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]


def summarize(folder: Path, wall_s: float, output: Optional[Path] = None,
              gpu: Optional[List[List[float]]] = None) -> Dict[str, Any]:
    """The run's figures from the profiles in `folder` (profile-<pid>.json)."""
    seconds: Dict[str, float] = {}
    counts: Dict[str, int] = {}
    profiles = sorted(folder.glob("profile-*.json"))
    for path in profiles:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for k, v in doc["seconds"].items():
            seconds[k] = seconds.get(k, 0.0) + v
        for k, v in doc["counts"].items():
            counts[k] = counts.get(k, 0) + v
    docs = counts.get("documents", 0)
    if output is not None and output.is_file():
        docs = sum(1 for line in output.read_text(encoding="utf-8").splitlines() if line.strip())
    per_doc = {k: round(v / docs, 1) for k, v in counts.items() if docs and not k.endswith("_calls")}
    out: Dict[str, Any] = {
        "processes": len(profiles),
        "documents": docs,
        "wall_s": round(wall_s, 1),
        "seconds_per_document": round(wall_s / docs, 2) if docs else None,
        "phase_seconds": {k: round(v, 1) for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])},
        "phase_seconds_sum": round(sum(seconds.values()), 1),
        "counts": counts,
        "per_document": per_doc,
    }
    if counts.get("prompt_tokens") and counts.get("prefill_tokens") is not None:
        computed = counts.get("prefill_tokens", 0) + counts.get("prefix_tokens", 0)
        out["prompt_tokens_per_prefilled_token"] = round(counts["prompt_tokens"] / max(1, computed), 2)
    if gpu:
        util = [u for u, _ in gpu]
        out["gpu"] = {"samples": len(util), "busy_share": round(sum(util) / len(util) / 100, 3),
                      "memory_used_mib_max": max(m for _, m in gpu)}
    return out


class GpuSampler:
    """nvidia-smi's utilization and memory every 0.5 s, in the background (nothing without nvidia-smi)."""

    def __init__(self) -> None:
        self.proc = None
        self.file = tempfile.TemporaryFile(mode="w+")
        smi = shutil.which("nvidia-smi")
        if smi:
            query = ["--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits", "-lms", "500"]
            self.proc = subprocess.Popen([smi, *query], stdout=self.file, stderr=subprocess.DEVNULL)

    def stop(self) -> List[List[float]]:
        if self.proc is None:
            return []
        self.proc.terminate()
        self.proc.wait()
        self.file.seek(0)
        rows = []
        for line in self.file.read().splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2 and parts[0].replace(".", "").isdigit():
                rows.append([float(parts[0]), float(parts[1])])
        return rows


def output_of(args: List[str]) -> Optional[Path]:
    for flag in ("-o", "--output"):
        if flag in args and args.index(flag) + 1 < len(args):
            return Path(args[args.index(flag) + 1])
    return None


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    rest: List[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, rest = argv[:cut], argv[cut + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    ap.add_argument("--profiles", type=Path,
                    help="where the processes write their profiles (default: a new temporary folder)")
    ap.add_argument("--summarize", nargs=3, metavar=("DIR", "WALL_S", "OUTPUT"),
                    help="only summarize profiles written already")
    a = ap.parse_args(argv)
    if a.summarize:
        result = summarize(Path(a.summarize[0]), float(a.summarize[1]), Path(a.summarize[2]))
    else:
        if not rest:
            ap.error("give the rewrite's arguments after --")
        folder = a.profiles or Path(tempfile.mkdtemp(prefix="linkguard-profile-"))
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("profile-*.json"):
            old.unlink()
        env = dict(os.environ, LINKGUARD_PROFILE=str(folder))
        sampler = GpuSampler()
        start = time.perf_counter()
        rc = subprocess.call([sys.executable, "-m", "spacy_linkguard", "rewrite", *rest], env=env, cwd=REPO)
        wall = time.perf_counter() - start
        gpu = sampler.stop()
        result = summarize(folder, wall, output_of(rest), gpu)
        result.update({"command": ["rewrite", *rest], "rc": rc})
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0 if result.get("rc", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
