"""The content words of a text, as the grounded-words rule reads them.

A word is a run of letters with inner apostrophes and hyphens
("applicant's", "non-pecuniary"); a clitic ("'s", "'", "n't") is cut off.
A *content* word is one that is not a function word (spaCy's English stop
words: "the", "was", "however", "several", ...), has two letters or more and
is not part of the redaction placeholder. Runs holding digits are numbers,
the fact guard's business, and are no words here. No tagger: the part of
speech of a word is every reading WordNet gives it (`grounder.py`). Pure
functions.
"""
import re
from dataclasses import dataclass
from typing import List

from spacy.lang.en.stop_words import STOP_WORDS

from ..ngrams import DEFAULT_PLACEHOLDER

# Letters and digits together, so that "3rd" or "1990s" is one run (a number), not "rd" or "s".
_WORD_RE = re.compile(r"[^\W_]+(?:['’\-‐‑][^\W_]+)*['’]?", re.UNICODE)
_CLITIC_RE = re.compile(r"(?:['’]s|n['’]t|['’])$", re.IGNORECASE)


@dataclass(frozen=True)
class ContentWord:
    """One word of a text: its characters `text[start:end]` and its key
    (case-folded, clitic cut off, hyphens and apostrophes as written)."""

    start: int
    end: int
    key: str


def words_of(text: str, placeholder: str = DEFAULT_PLACEHOLDER) -> List[ContentWord]:
    """Every word of `text` (function words too), in order; the placeholder's
    characters hold none."""
    if placeholder:
        text = text.replace(placeholder, " " * len(placeholder))
    out = []
    for m in _WORD_RE.finditer(text):
        if any(c.isdigit() for c in m.group()):
            continue
        key = _CLITIC_RE.sub("", m.group().casefold()).replace("’", "'")
        if key:
            out.append(ContentWord(m.start(), m.end(), key))
    return out


def is_function_word(key: str) -> bool:
    """A stop word or a single letter: never counted, never checked."""
    return len(key) < 2 or key in STOP_WORDS or key.replace("'", "’") in STOP_WORDS


def content_words(text: str, placeholder: str = DEFAULT_PLACEHOLDER) -> List[ContentWord]:
    """The content words of `text`, in order (see the module)."""
    return [w for w in words_of(text, placeholder) if not is_function_word(w.key)]
