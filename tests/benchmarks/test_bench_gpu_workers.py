"""benchmarks/bench_gpu_workers.py: its summary of rewrite outputs (documents per
hour, work per partition) against a direct count, and the committed summary
against the committed outputs it was made from."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from .scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_gpu_workers.py"
RESULTS = ROOT / "benchmarks" / "results" / "gpu_workers"
bench = load_script("bench_gpu_workers")


@pytest.mark.parametrize("seed,n_docs,batch_size", [(0, 7, 3), (1, 8, 8), (2, 1, 4), (3, 12, 1)])
def test_summary_counts_every_document_and_partition(tmp_path, seed, n_docs, batch_size):
    rng = random.Random(seed)
    lines = []
    for i in range(n_docs):
        passes = [{"seconds": round(rng.uniform(0.1, 9.0), 3)} for _ in range(rng.randint(1, 5))]
        lines.append({"id": f"d{i}", "safe": rng.random() < 0.7, "forced_redactions": rng.randint(0, 4),
                      "passes": passes, "system": "llm", "model": "m", "max_arity": 3, "verdict": "source"})
    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    wall = rng.uniform(10, 100)
    got = bench.summarize(out, wall, 2, batch_size)
    # Direct count: document i belongs to partition i // batch_size.
    expected_parts = {}
    for i, x in enumerate(lines):
        expected_parts[i // batch_size] = expected_parts.get(i // batch_size, 0.0) + sum(p["seconds"] for p in x["passes"])
    assert got["partition_work_s"] == [round(expected_parts[k], 1) for k in sorted(expected_parts)]
    assert got["n_docs"] == n_docs and got["gpus"] == 2
    assert got["docs_per_hour"] == round(n_docs * 3600 / wall, 1)
    assert got["safe"] == sum(x["safe"] for x in lines)
    assert got["forced_redactions"] == sum(x["forced_redactions"] for x in lines)
    assert got["passes_max"] == max(len(x["passes"]) for x in lines)


def test_committed_summary_is_what_the_script_makes_of_the_committed_outputs():
    committed = json.loads((RESULTS / "summary.json").read_text(encoding="utf-8"))
    specs = [f"{RESULTS / r['output']}:{r['wall_s']}:{r['gpus']}" for r in committed["runs"]]
    out = subprocess.run([sys.executable, str(SCRIPT), "--summarize", *specs,
                          "--batch-size", str(committed["batch_size"])], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == committed
    assert committed["speedup"]["2_vs_1"] == round(committed["runs"][1]["docs_per_hour"]
                                                 / committed["runs"][0]["docs_per_hour"], 3)
