"""Seconds and counts per phase of a run, for `benchmarks/profile_rewrite.py`.

Off (nothing is timed, nothing written) unless the environment variable
LINKGUARD_PROFILE names a folder. Then each process adds up the wall seconds
of every `phase(...)` and the numbers given to `count(...)`, and `flush()`
(the rewrite loop calls it after each batch of documents) writes them to
`<folder>/profile-<pid>.json`; the benchmark adds the processes up.

Each second of a process is counted at most once: a phase inside another
(the prompt prefix computed inside the ranking's loss) counts for itself,
and the outer phase's seconds leave it out. On a
GPU a phase given `sync=True` waits for the card at its end, so that its
seconds are the card's work and not only the launch of it (slower: profile
runs only).

Standard library only.
"""
import json
import os
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, List

ENV = "LINKGUARD_PROFILE"

_folder = os.environ.get(ENV) or None
_seconds: Dict[str, float] = defaultdict(float)
_counts: Dict[str, int] = defaultdict(int)
_inner: List[float] = []  # per open phase, the seconds of the phases inside it so far


def enabled() -> bool:
    """Whether this process profiles (LINKGUARD_PROFILE was set when it started)."""
    return _folder is not None


@contextmanager
def phase(name: str, sync: bool = False) -> Iterator[None]:
    """Add the block's wall seconds to phase `name` (nothing when off)."""
    if _folder is None:
        yield
        return
    start = time.perf_counter()
    _inner.append(0.0)
    try:
        yield
    finally:
        if sync:
            _cuda_sync()
        elapsed = time.perf_counter() - start
        _seconds[name] += elapsed - _inner.pop()
        if _inner:
            _inner[-1] += elapsed
        _counts[f"{name}_calls"] += 1


def count(name: str, n: int = 1) -> None:
    """Add `n` to the count `name` (tokens, rows, steps; nothing when off)."""
    if _folder is not None:
        _counts[name] += int(n)


def snapshot() -> Dict[str, Dict[str, float]]:
    """What this process has counted so far: {"seconds": {...}, "counts": {...}}."""
    return {"seconds": {k: round(v, 4) for k, v in sorted(_seconds.items())}, "counts": dict(sorted(_counts.items()))}


def flush() -> None:
    """Write this process's snapshot to `<folder>/profile-<pid>.json` (nothing when off)."""
    if _folder is None:
        return
    path = Path(_folder) / f"profile-{os.getpid()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), **snapshot()}), encoding="utf-8")
    tmp.replace(path)


def _cuda_sync() -> None:
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
