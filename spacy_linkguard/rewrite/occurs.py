"""SPEC.md's test for "still occurs": a phrase occurs in a text token-wise and case-folded."""
from typing import Dict, Iterable, Set, Tuple

from ..ngrams import NgramSettings, phrase_keys, text_segments


def occurs(phrase: str, text: str, settings: NgramSettings) -> bool:
    """Whether `phrase` occurs in `text` token-wise and case-folded (SPEC.md's
    test for "still occurs"), within one segment."""
    return occurs_any([phrase], text, settings)


def occurs_any(phrases: Iterable[str], text: str, settings: NgramSettings) -> bool:
    """Whether any of `phrases` occurs in `text` (as `occurs`), the text
    tokenized once however many phrases there are."""
    by_len: Dict[int, Set[Tuple[str, ...]]] = {}
    for phrase in phrases:
        keys = phrase_keys(phrase, settings)
        if keys:
            by_len.setdefault(len(keys), set()).add(keys)
    if not by_len:
        return False
    for seg in text_segments(text, settings):
        seq = seg.keys
        for n, wanted in by_len.items():
            if any(seq[i : i + n] in wanted for i in range(len(seq) - n + 1)):
                return True
    return False
