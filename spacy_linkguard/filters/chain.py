"""The way from a flagged sentence's candidate to an accepted one, top to bottom.

`CandidateFilters.check` runs the filters in their modules' order and stops
at the first that rejects; its reason is counted in the pass record. The
model's candidates and the model-free ones (`rewrite/model_free.py`) pass the
same filters; the survivors are ranked (`rewrite/ranking.py`), whose fluency
term is the last filter (`f9_fluency.py`).
"""
from typing import Any, Optional, Sequence, Tuple

from ..llm.chunking import Chunk
from ..ngrams import NgramSettings
from .f5_grounded import GroundedGuard
from .f6_banned import check_banned
from .f7_linkage import check_linkage
from .f8_vocabulary import check_known_words


class CandidateFilters:
    """The filters of one sentence rewriter.

    task: the sentence task; its `check(chunk, prompt, edited, change)` runs
        f1 (the reply), f2 (facts), f3 (polarity) and, in the words form, f4
        (the words kept).
    grounded (Optional[GroundedGuard]): f5; None: no grounded-words guard.
    """

    def __init__(self, task: Any, grounded: Optional[GroundedGuard] = None) -> None:
        self.task = task
        self.grounded = grounded

    def check(self, chunk: Chunk, prompt: str, edited: Optional[str], banned: Sequence[str],
              settings: NgramSettings, judge: Optional[Any] = None,
              change: Optional[Sequence[str]] = None) -> Tuple[Optional[str], Optional[str]]:
        """(edited, None) when `edited` passes f1-f8, else (None, reason).

        prompt: the prompt that produced it ("" for a model-free candidate:
            nothing to echo).
        banned: the sentence's banned phrases (f6); judge: the loop's
            `EditJudge` (f7 the index, f8 the vocabulary), or None.
        """
        # f1-f4: the reply, its facts, its opposites, the words it had to keep
        reason = self.task.check(chunk, prompt, edited, change=change)
        # f5: every content word grounded in the input
        if reason is None and self.grounded is not None:
            reason = self.grounded(chunk, edited)
        # f6: no banned phrase
        if reason is None:
            reason = check_banned(edited, banned, settings)
        # f7: the index finds nothing left and nothing new that links
        if reason is None:
            reason = check_linkage(chunk, edited, judge)
        # f8: every word known to the collection or the document
        if reason is None:
            reason = check_known_words(chunk, edited, judge)
        return (edited, None) if reason is None else (None, reason)
