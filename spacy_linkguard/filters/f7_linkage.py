"""The index: a candidate leaves no flagged span and writes no new linking N-gram.

The loop's judge (`rewrite/judge.py`, `EditJudge`) detects the candidate
against the index under its document's verdict (arity 1): a flagged span
still there, or a rare N-gram that links and that the sentence did not have,
is ``still_linking``. Combinations are the next pass's detection.
"""
from typing import Any, Optional

from ..llm.chunking import Chunk
from .reasons import STILL_LINKING


def check_linkage(chunk: Chunk, edited: str, judge: Any) -> Optional[str]:
    """None when the judge counts nothing left (or there is no judge), else ``still_linking``."""
    if judge is not None and judge(chunk, edited)[0] > 0:
        return STILL_LINKING
    return None
