"""CPU threads: one BLAS thread per detecting process, BLAS threads per worker
for the fork server's workers, and spaCy without torch in `detect` (`threads.py`).
Each case runs in a fresh Python: BLAS threads and imports are fixed per process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_linkguard.parallel.threads import BLAS_THREAD_VARS

pytest.importorskip("threadpoolctl")
REPO = Path(__file__).resolve().parents[2]


def python(code: str, **env_vars: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARS}
    env.update(env_vars)
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


DETECTION = """
import json, os
from spacy_linkguard.parallel.threads import for_detection
for_detection()
import spacy, thinc.compat
from threadpoolctl import threadpool_info
blas = max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
has_torch = thinc.compat.has_torch
try:
    import torch
    torch_after = torch.tensor([1, 2]).sum().item() == 3
except ImportError:
    torch_after = None
print(json.dumps({"blas": blas, "thinc_has_torch": has_torch, "torch_after": torch_after,
                  "env": os.environ["OPENBLAS_NUM_THREADS"]}))
"""


def test_detection_process_has_one_blas_thread_and_spacy_without_torch():
    got = python(DETECTION)
    assert got["blas"] == 1 and got["env"] == "1"
    assert got["thinc_has_torch"] is False
    if got["torch_after"] is not None:  # torch installed: still importable afterwards
        assert got["torch_after"] is True


def test_a_thread_count_the_user_set_is_kept():
    got = python(DETECTION, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2")
    assert got["env"] == "2" and got["blas"] == 2


def test_spacy_already_loaded_is_left_alone():
    got = python("""
import json, spacy, thinc.compat
from spacy_linkguard.parallel.threads import for_detection
before = thinc.compat.has_torch
for_detection()
print(json.dumps({"same": thinc.compat.has_torch == before}))
""")
    assert got["same"] is True


WORKERS = """
import json, os
import numpy  # this process's BLAS loads first, with the machine's default threads
from spacy_linkguard.corpus import Record
from spacy_linkguard.parallel import map_records
from spacy_linkguard.parallel.pool import _threads_per_worker
from tests.parallel.blas_job import BlasJob
if __name__ == "__main__":
    recs = [Record(id=f"d{i}", text="x", line=i + 1) for i in range(8)]
    got = list(map_records(BlasJob(), recs, workers=2))
    print(json.dumps({"threads": sorted({t for _, t in got}), "expected": _threads_per_worker(2),
                      "parent_env": os.environ.get("OPENBLAS_NUM_THREADS")}))
"""


def test_fork_server_workers_get_their_share_of_the_cores():
    """The workers fork from a server that loaded NumPy (the job's preload):
    their BLAS threads are set when that server starts, not after the fork."""
    got = python(WORKERS)
    assert got["threads"] == [got["expected"]]
    assert got["parent_env"] is None  # the caller's environment is left as it was
