"""Checks on an edited chunk before the loop accepts it. Pure functions.

A reply may not be what we asked for: the model drops or repeats much of the
chunk, adds sentences of its own, echoes the prompt, or follows instructions
hidden in the document (prompt injection). Any of these is rejected; the loop
retries and finally keeps the original chunk. So whatever a document says,
the loop can only ever return an edit of that chunk that is close to it.
"""
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterable, List, Optional, Sequence, Set, Tuple

from ..errors import Errors, LinkguardError
from .reasons import (ADDITION, DISSIMILAR, DUPLICATION, ECHO, EMPTY, INVENTED, LENGTH, NO_CHANGE, NO_JSON,
                      REDACTED)

_WORD_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)

_CASED_RE = re.compile(r"\w+|[.!?]", re.UNICODE)
_TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "judge", "sir", "lady", "lord", "mme", "mlle", "herr", "frau"}


@dataclass(frozen=True)
class GuardSettings:
    """Bounds on an edited chunk, relative to the original chunk.

    min_length_ratio / max_length_ratio: edited words / original words.
    min_similarity: difflib ratio of the two word sequences (1 = identical).
    max_added_words: longest run of new words allowed beyond the words it
        replaces (a rephrased span may grow a little; a new sentence may not).
    echo_ngram: length of the word N-grams of the instructions that must not
        appear in the edit unless they were in the original chunk.
    reject_new_details: reject an edit that brings a number (digits: dates,
        house numbers, ages) or a capitalized word (a name, a street, a town)
        that the chunk does not have: a model must not add identifying details,
        whatever the document asks it to do.
    reject_redaction: reject an edit with more placeholders than the chunk:
        a model that writes the placeholder in place of a span redacts it
        instead of rephrasing it (retried; guarantee mode redacts only what
        is left after the last pass, and counts it).
    """

    min_length_ratio: float = 0.6
    max_length_ratio: float = 1.6
    min_similarity: float = 0.5
    max_added_words: int = 12
    echo_ngram: int = 6
    reject_new_details: bool = True
    reject_redaction: bool = True

    def __post_init__(self) -> None:
        checks = [
            ("min_length_ratio", 0 < self.min_length_ratio <= 1, "a number in (0, 1]"),
            ("max_length_ratio", self.max_length_ratio >= 1, "a number >= 1"),
            ("min_similarity", 0 <= self.min_similarity <= 1, "a number in [0, 1]"),
            ("max_added_words", isinstance(self.max_added_words, int) and self.max_added_words >= 1,
             "an integer >= 1"),
            ("echo_ngram", isinstance(self.echo_ngram, int) and self.echo_ngram >= 3, "an integer >= 3"),
            ("reject_new_details", isinstance(self.reject_new_details, bool), "true or false"),
            ("reject_redaction", isinstance(self.reject_redaction, bool), "true or false"),
        ]
        for name, ok, expected in checks:
            if not ok:
                raise LinkguardError(Errors.E207.format(name=name, expected=expected, value=getattr(self, name)))


def words(text: str) -> List[str]:
    """Lower-cased word and punctuation tokens (the guards' unit of text)."""
    return [w.casefold() for w in _WORD_RE.findall(text)]


def instruction_ngrams(prompt: str, chunk_text: str, n: int) -> Set[Tuple[str, ...]]:
    """Word N-grams of a rendered prompt that do not come from the chunk.

    An edit that contains one of them echoes the instructions or the few-shot
    examples. RETURNS (Set[Tuple[str, ...]]): The N-grams.
    """
    own = _ngrams(words(chunk_text), n)
    return _ngrams(words(prompt), n) - own


def check_edit(
    original: str,
    edited: Optional[str],
    spans: Sequence[str],
    settings: GuardSettings = GuardSettings(),
    *,
    forbidden: Iterable[Tuple[str, ...]] = (),
    placeholder: str = "",
) -> Optional[str]:
    """Decide whether `edited` is an acceptable edit of `original`.

    original (str): The chunk that was sent.
    edited (Optional[str]): The parsed reply (None: the reply had no JSON object).
    spans (Sequence[str]): The spans the model was asked to replace.
    settings (GuardSettings): The bounds.
    forbidden (Iterable[Tuple[str, ...]]): Instruction N-grams (`instruction_ngrams`).
    placeholder (str): The redaction placeholder (its words are never a new
        detail; with `reject_redaction`, an edit may not add one).
    RETURNS (Optional[str]): None when accepted, else the reason (one of REASONS).
    """
    if edited is None:
        return NO_JSON
    new = words(edited)
    if not new:
        return EMPTY
    old = words(original)
    ratio = len(new) / max(1, len(old))
    if ratio < settings.min_length_ratio or ratio > settings.max_length_ratio:
        return LENGTH
    forbidden = set(forbidden)
    if forbidden and _ngrams(new, settings.echo_ngram) & forbidden:
        return ECHO
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    if matcher.ratio() < settings.min_similarity:
        return DISSIMILAR
    if _repeats(old, new, min(settings.echo_ngram, 5)):
        return DUPLICATION
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace") and (j2 - j1) - (i2 - i1) > settings.max_added_words:
            return ADDITION
    if spans and all(_contains(new, words(s)) for s in spans):
        return NO_CHANGE
    if settings.reject_new_details and new_details(original, edited, placeholder=placeholder):
        return INVENTED
    if settings.reject_redaction and placeholder and edited.count(placeholder) > original.count(placeholder):
        return REDACTED
    return None


def new_details(original: str, edited: str, *, placeholder: str = "") -> List[str]:
    """Numbers and names in `edited` that `original` does not have.

    A number: a new word with a digit sequence the chunk lacks (a date, a
    house number, an age).
    A name: a new capitalized word next to another new capitalized word
    ("Mary Smith", "Baker Street"), after a title ("Mr", "Dr", ...) or next
    to a number ("12 Baker"). A lone new capitalized word ("a French town")
    is a generalization, not a detail. Words are compared case-folded, so
    re-casing a word of the chunk adds nothing.
    RETURNS (List[str]): The new details, in order (empty: none).
    """
    if placeholder:
        original, edited = original.replace(placeholder, " "), edited.replace(placeholder, " ")
    known = {w.casefold() for w in _CASED_RE.findall(original)}
    numbers = set(re.findall(r"\d+", original))
    tokens = _CASED_RE.findall(edited)
    fresh = [t.casefold() not in known for t in tokens]
    digit = [any(c.isdigit() for c in t) for t in tokens]
    capital = [t[:1].isupper() for t in tokens]

    # "1961" -> "1961s" keeps the number; "12" where the chunk has none is new
    new_number = [fresh[i] and digit[i] and not set(re.findall(r"\d+", t)) <= numbers for i, t in enumerate(tokens)]

    def new_name(i: int) -> bool:
        return 0 <= i < len(tokens) and fresh[i] and capital[i] and not digit[i]

    def near_number(i: int) -> bool:
        return (i > 0 and new_number[i - 1]) or (i + 1 < len(tokens) and new_number[i + 1])

    out = []
    for i, tok in enumerate(tokens):
        if new_number[i]:
            out.append(tok)
        elif new_name(i) and (new_name(i - 1) or new_name(i + 1) or near_number(i)
                              or (i > 0 and tokens[i - 1].casefold() in _TITLES)):
            out.append(tok)
    return out


def _ngrams(seq: Sequence[str], n: int) -> Set[Tuple[str, ...]]:
    return {tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)}


def _repeats(old: Sequence[str], new: Sequence[str], n: int) -> bool:
    """True when some N-gram occurs more often in `new` than in `old` (and at
    least twice): a duplicated sentence or clause."""
    def counts(seq):
        c = {}
        for i in range(len(seq) - n + 1):
            g = tuple(seq[i : i + n])
            c[g] = c.get(g, 0) + 1
        return c

    old_c, new_c = counts(old), counts(new)
    return any(v >= 2 and v > old_c.get(g, 0) for g, v in new_c.items() if any(w.isalnum() for w in g))


def _contains(seq: Sequence[str], sub: Sequence[str]) -> bool:
    n = len(sub)
    if n == 0:
        return False
    return any(list(seq[i : i + n]) == list(sub) for i in range(len(seq) - n + 1))
