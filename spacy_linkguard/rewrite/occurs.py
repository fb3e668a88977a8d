"""SPEC.md's test for "still occurs": a phrase occurs in a text token-wise and case-folded."""
from ..ngrams import NgramSettings, text_segments


def occurs(phrase: str, text: str, settings: NgramSettings) -> bool:
    """Whether `phrase` occurs in `text` token-wise and case-folded (SPEC.md's
    test for "still occurs"), within one segment."""
    keys = tuple(k for seg in text_segments(phrase, settings) for k in seg.keys)
    if not keys:
        return False
    n = len(keys)
    for seg in text_segments(text, settings):
        seq = seg.keys
        if any(seq[i : i + n] == keys for i in range(len(seq) - n + 1)):
            return True
    return False

