"""The banned phrases: a candidate writes no phrase its document may not hold.

A sentence's banned phrases are its flagged spans and every minimal linking
N-gram (arity 1) of the flagged sentences of its document, reported or not
(`SentenceRewriter._banned`): writing one of those would link again. A model
that takes them while decoding cannot write one; every candidate is still
checked here, token-wise (SPEC.md's "still occurs"), else ``banned_phrase``.
"""
from typing import Optional, Sequence

from ..ngrams import NgramSettings
from ..rewrite.occurs import occurs_any
from .reasons import BANNED_PHRASE


def check_banned(edited: str, banned: Sequence[str], settings: NgramSettings) -> Optional[str]:
    """None when `edited` holds no banned phrase, else ``banned_phrase``."""
    return BANNED_PHRASE if occurs_any(banned, edited, settings) else None
