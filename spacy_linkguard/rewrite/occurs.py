"""SPEC.md's test for "still occurs": a phrase occurs in a text token-wise and case-folded."""
from typing import Iterable

from ..ngrams import NgramSettings, phrase_keys, text_segments


def occurs(phrase: str, text: str, settings: NgramSettings) -> bool:
    """Whether `phrase` occurs in `text` token-wise and case-folded (SPEC.md's
    test for "still occurs"), within one segment."""
    keys = phrase_keys(phrase, settings)
    if not keys:
        return False
    n = len(keys)
    for seg in text_segments(text, settings):
        seq = seg.keys
        if any(seq[i : i + n] == keys for i in range(len(seq) - n + 1)):
            return True
    return False


def occurs_any(phrases: Iterable[str], text: str, settings: NgramSettings) -> bool:
    """Whether any of `phrases` occurs in `text` (as `occurs` decides), the text
    tokenized once however many phrases there are: the matcher of banned
    phrases while decoding (`banned_phrases.first_occurrence`) on the whole text."""
    from ..llm.models.banned_phrases import PhraseSet, first_occurrence

    return first_occurrence(text, PhraseSet(phrases, settings)) is not None
