"""Look-alike character folding (SPEC.md, "Tokens, segments, normalization").

Every replacement maps one character to one ASCII character, so character
offsets into the normalized text are offsets into the original text too.
"""
from typing import Dict

NORMALIZATION_VERSION = "lookalike-v1"

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032`"  # ‘ ’ ‚ ‛ ′ `
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"  # “ ” „ ‟ ″ « »
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # ‐ ‑ ‒ – — ― −

LOOKALIKES: Dict[str, str] = {
    **{c: "'" for c in _SINGLE_QUOTES},
    **{c: '"' for c in _DOUBLE_QUOTES},
    **{c: "-" for c in _DASHES},
}
_TABLE = str.maketrans(LOOKALIKES)


def normalize_lookalikes(text: str) -> str:
    """Return `text` with look-alike quotes and dashes replaced by ASCII.

    text (str): Any text.
    RETURNS (str): A string of the same length; offsets are unchanged.
    """
    return text.translate(_TABLE)


def token_key(token_text: str) -> str:
    """The index key of one token: its (already normalized) text case-folded."""
    return token_text.casefold()
