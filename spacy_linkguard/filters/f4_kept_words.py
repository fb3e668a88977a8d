"""The words guard: a sentence of the words form keeps the words it was not told to change.

With `words_to_change` the prompt names the words to change (`pivots.py`) and
asks the model to keep every other word. A small model often rewrites the
whole sentence anyway ("The Government contested that claim" -> "The State
disputed it" when only "claim" was named), and what it rewrites unasked is
where it drifts from what the input says. A candidate is rejected
(``other_words_changed``) when it lacks a word of the sentence that it had to
keep: a content word (no function word, no placeholder) that is not named and
lies more than NEAR words away from every named word (the prompt allows
rewording the two or three words next to a named one; "applicant's" is the
named "applicant" with its clitic). Words are compared case-folded, as a
multiset, in any order. Facts are the fact guard's. Pure function, no model.
"""
import re
from collections import Counter
from typing import List, Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from ..ngrams import DEFAULT_PLACEHOLDER

NEAR = 2
_WORD_RE = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)


def words_to_keep(sentence: str, change: Sequence[str], placeholder: str = DEFAULT_PLACEHOLDER) -> List[str]:
    """The words of `sentence` a candidate must keep (module docstring), case-folded, in order."""
    toks = _WORD_RE.findall(sentence)
    named = set(change)
    near = set()
    for i, w in enumerate(toks):
        if _is_named(w, named):
            near.update(range(i - NEAR, i + NEAR + 1))
    ph = {w.casefold() for w in _WORD_RE.findall(placeholder)}
    return [w.casefold() for i, w in enumerate(toks)
            if i not in near and w.casefold() not in STOP_WORDS and w.casefold() not in ph]


def _is_named(word: str, named: set) -> bool:
    """Whether `word` is a named word, also with a clitic the tokenizer splits
    off ("applicant's" when "applicant" is named)."""
    return word in named or re.split(r"['’]", word)[0] in named


def dropped_words(sentence: str, change: Sequence[str], candidate: str,
                  placeholder: str = DEFAULT_PLACEHOLDER) -> List[str]:
    """The words to keep that `candidate` lacks (each as often as it lacks it), in sentence order."""
    have = Counter(w.casefold() for w in _WORD_RE.findall(candidate))
    out = []
    for w in words_to_keep(sentence, change, placeholder):
        if have[w] > 0:
            have[w] -= 1
        else:
            out.append(w)
    return out
