"""Memory budgets: parse "4GB", "512MB", "2GiB" or a number of bytes; check
the one-process pruned build's need against one."""
import re
import warnings
from typing import Union

from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings

MIN_BUDGET = 32 * 2**20
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6,
          "mib": 2**20, "g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12, "tib": 2**40}
_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def parse_memory_budget(value: Union[str, int, float]) -> int:
    """Bytes of a budget like "4GB" (decimal units), "4GiB" (binary) or 4000000000.

    RAISES: LinkguardError E055 (unreadable), E056 (below 32 MiB).
    """
    if isinstance(value, bool):
        raise LinkguardError(Errors.E055.format(value=repr(value)))
    if isinstance(value, (int, float)):
        n = int(value)
    else:
        m = _RE.match(str(value))
        unit = m.group(2).lower() if m else None
        if not m or unit not in _UNITS:
            raise LinkguardError(Errors.E055.format(value=repr(value)))
        n = int(float(m.group(1)) * _UNITS[unit])
    if n < MIN_BUDGET:
        raise LinkguardError(Errors.E056.format(value=repr(value), n=n))
    return n


# The one-process pruned build (prune.py) keeps its level arrays for every token
# position at once, whatever the budget: measured 115 bytes per token above a
# base of ~0.5 GB (spaCy and Python), with benchmarks/bench_index.py at 2.6M and
# 5.2M synthetic tokens (0.82 and 1.13 GB); 1.79 GB at 10.4M tokens.
PRUNED_BYTES_PER_TOKEN = 120


def check_pruned_budget(n_tokens: int, budget: int) -> None:
    """Warn (W051) when the one-process pruned build of `n_tokens` needs more than `budget` bytes."""
    need = PRUNED_BYTES_PER_TOKEN * n_tokens
    if need > budget:
        warnings.warn(Warnings.W051.format(n_tokens=n_tokens, need_gb=need / 1e9, per_token=PRUNED_BYTES_PER_TOKEN,
                                           budget_gb=budget / 1e9), LinkguardWarning, stacklevel=3)
