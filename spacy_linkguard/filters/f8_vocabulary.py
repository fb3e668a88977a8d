"""The vocabulary guard: a regenerated sentence uses only known words.

A model that cannot find a paraphrase may misspell the span instead
("applicnat" for "applicant"): the N-gram no longer matches, but the text is
not rewritten, only damaged. Every word of a candidate must therefore be
known: occur in the collection or in the document being rewritten
(`spacy_linkguard.rewrite.vocabulary.vocabulary_of` builds that test from an
index).

A word is a run of letters, with inner apostrophes and hyphens kept
("applicant's", "didn't", "non-pecuniary"); `known` decides on it as written
(`vocabulary_of` splits it into the index's tokens, each of which must be
known). Runs holding digits ("1990s", "12th", "6a") are not words (numbers are
the fact guard's), and neither is the redaction placeholder. Pure function.
"""
import re
from typing import Any, Callable, List, Optional

from ..errors import Errors, LinkguardError
from ..llm.chunking import Chunk
from .reasons import UNKNOWN_WORD

_WORD_RE = re.compile(r"\w+(?:['’\-‐‑]\w+)*", re.UNICODE)


def candidate_words(candidate: str, placeholder: str = "") -> List[str]:
    """The words of `candidate` the guard checks, in order (module docstring).

    candidate (str): Any text.
    placeholder (str): The redaction placeholder, never a word ("" for none).
    RETURNS (List[str]): The words as written.
    """
    if placeholder:
        candidate = candidate.replace(placeholder, " ")
    return [w for w in _WORD_RE.findall(candidate)
            if not any(c.isdigit() or c == "_" for c in w)]


def unknown_words(candidate: str, known: Callable[[str], bool], placeholder: str = "") -> List[str]:
    """The words of `candidate` that `known` does not know, in order, each once.

    Arguments as `check_vocabulary`. RETURNS (List[str]): The unknown words.
    """
    if not callable(known):
        raise LinkguardError(Errors.E232.format(value=known))
    out: List[str] = []
    for word in candidate_words(candidate, placeholder):
        if word not in out and not known(word):
            out.append(word)
    return out


def check_vocabulary(candidate: str, known: Callable[[str], bool], placeholder: str = "") -> Optional[str]:
    """Decide whether every word of `candidate` is known.

    candidate (str): The regenerated sentence.
    known (Callable[[str], bool]): Whether a word (as written) is known.
    placeholder (str): The redaction placeholder, never checked.
    RETURNS (Optional[str]): None when accepted, else ``unknown_word`` (in
        `filters.reasons.REASONS`).
    RAISES: LinkguardError E232 when `known` is not callable.
    """
    if not callable(known):
        raise LinkguardError(Errors.E232.format(value=known))
    for word in candidate_words(candidate, placeholder):
        if not known(word):
            return UNKNOWN_WORD
    return None


def check_known_words(chunk: Chunk, edited: str, judge: Any) -> Optional[str]:
    """The filter as the sentence rewriter runs it: the words the loop's judge
    finds in neither the collection nor the chunk's input document
    (`EditJudge.unknown_words`). None when there are none (or no judge
    that can tell), else ``unknown_word``."""
    unknown = getattr(judge, "unknown_words", None)
    return UNKNOWN_WORD if unknown is not None and unknown(chunk, edited) else None
