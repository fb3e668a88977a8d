"""Exact linkage detection on plain text (SPEC.md): no spaCy Doc needed.

`Detector(index, k, max_arity).detect(text)` returns the spans to rephrase:
minimal rare N-grams (label NGRAM) and a small hitting set of the minimal
linkable combinations of candidates (label COMBO).
"""
from .detector import Analysis, Detector
from .types import COMBO, LABELS, NGRAM, Detection, FlaggedSpan

__all__ = ["Analysis", "COMBO", "Detection", "Detector", "FlaggedSpan", "LABELS", "NGRAM"]
