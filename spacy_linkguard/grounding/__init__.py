"""Grounded words: which words of a rewrite its input accounts for.

A rewrite may generalize or leave out a detail; it may not change or invent
one. A content word that a rewrite adds is *grounded* when the input has it,
when it is a WordNet synonym or hypernym (up to 3 steps) of a content word of
the input with the same part of speech, or when it is on a short list of
generic words (`generic_words.txt`). The grounded-words guard
(`filters/f5_grounded.py`), the metric "ungrounded words / changed
paragraph" (`experiments/metrics.py`) and the review page's marks share this
one definition (docs/SPEC.md, "Metrics").
"""
from .grounder import Grounder, load_generic_words
from .words import ContentWord, content_words

__all__ = ["ContentWord", "Grounder", "content_words", "load_generic_words"]
