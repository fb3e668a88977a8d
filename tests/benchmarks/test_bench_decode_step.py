"""benchmarks/gpu/bench_decode_step.py on the CPU (a tiny model): every variant
is timed, and the fixed buffers of GraphSteps (run eagerly on a CPU) give the
greedy tokens of the growing cache at every step, as the GPU run reports."""
import json
import subprocess
import sys

import pytest

from .scripts import BENCHMARKS

pytest.importorskip("transformers")


def test_cpu_smoke_run_reports_every_variant_and_the_same_tokens():
    run = subprocess.run([sys.executable, str(BENCHMARKS / "gpu" / "bench_decode_step.py"), "--device", "cpu",
                          "--batch", "3", "--prompt", "16", "--steps", "4", "--layers", "1", "--vocab", "300"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(result["decode_ms"]) == {"dynamic+sdpa", "growing+sdpa", "dynamic+grouped_sdpa",
                                        "growing+grouped_sdpa", "graph+grouped_sdpa"}
    assert all(ms > 0 for ms in result["decode_ms"].values())
    check = result["graph_check"]
    assert check["steps"] == 4 + 3 and check["steps_with_same_tokens"] == check["steps"]
    assert check["first_step_max_abs_logit_diff"] < 1e-4 < check["first_step_max_abs_logit"]
