"""Fluency: a candidate the rewriting model finds far less natural than its input.

The last filter, run by the ranking (`rewrite/ranking.py`) since it needs the
rewriting model's loss of every candidate: the mean negative log-likelihood
per token of the candidate as the answer to its prompt, against that of the
sentence it replaces. A garbled sentence (a dropped constituent that leaves
"was born in and lives in", a word salad) rises by a nat or more per token; a
rise above `max_loss_rise` is ``ungrammatical``. A backend without a loss
(llama.cpp, an OpenAI-compatible server) skips this filter.
"""
from typing import Optional

from ..errors import Errors, LinkguardError
from .reasons import UNGRAMMATICAL

DEFAULT_MAX_LOSS_RISE = 1.0


def check_max_loss_rise(value: object) -> Optional[float]:
    """RETURNS `value` when None or a number > 0. RAISES: LinkguardError E207 otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise LinkguardError(Errors.E207.format(name="max_loss_rise", expected="a number > 0 or null", value=value))
    return float(value)


def check_fluency(rise: float, max_loss_rise: Optional[float]) -> Optional[str]:
    """None when the loss rise is within `max_loss_rise` (or there is no limit), else ``ungrammatical``."""
    return UNGRAMMATICAL if max_loss_rise is not None and rise > max_loss_rise else None
