"""CPU threads of a process that only detects (`detect`, `show` and their workers).

Two start-up settings, both made before NumPy or spaCy load in that process:

- one BLAS thread (`OMP_NUM_THREADS`, `OPENBLAS_NUM_THREADS`, `MKL_NUM_THREADS`),
  unless the variable is set already. Detection's pair and triple products
  are small; a second BLAS thread bought almost no wall time and cost 60% more
  CPU (127 ECHR queries: 23.3 s of CPU with 2 threads, 14.5 s with 1, and the
  wall time 15.7 s against 14.7 s), and N worker processes with a thread per
  core each would fight for the cores;
- spaCy imported without PyTorch: thinc imports torch when it is installed
  (about 1 s of a 2.5 s start-up here), and detection never uses it. Only
  thinc's own check sees no torch; a later `import torch` in the process works.

`for_detection()` does both; the fork server of the detection jobs imports
`spacy_linkguard.parallel.detection_preload`, which calls it, before the job's
modules.
"""
import os
import sys
from contextlib import contextmanager
from typing import Iterator

BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def set_blas_threads(threads: int) -> None:
    """Each BLAS thread variable the environment does not set, to `threads`.
    Takes effect only in a process whose BLAS has not loaded yet (before NumPy)."""
    for var in BLAS_THREAD_VARS:
        os.environ.setdefault(var, str(threads))


@contextmanager
def blas_threads_while(threads: int) -> Iterator[None]:
    """`set_blas_threads(threads)` for the block (child processes started in it
    inherit the variables); the variables it set are removed afterwards."""
    added = [var for var in BLAS_THREAD_VARS if var not in os.environ]
    set_blas_threads(threads)
    try:
        yield
    finally:
        for var in added:
            os.environ.pop(var, None)


def import_spacy_without_torch() -> None:
    """Import spaCy with torch hidden from thinc, unless spaCy or torch is
    loaded already (then nothing changes)."""
    if "spacy" in sys.modules or "torch" in sys.modules:
        return
    sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError
    try:
        import spacy  # noqa: F401
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]


def for_detection() -> None:
    """One BLAS thread (if NumPy has not loaded yet), spaCy without torch."""
    if "numpy" not in sys.modules:
        set_blas_threads(1)
    import_spacy_without_torch()
