"""Parse memory budgets such as "4GB", "512MB", "2GiB" or a number of bytes."""
import re
from typing import Union

from ..errors import Errors, LinkguardError

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
