"""Exact linkage detection on plain text (SPEC.md): no spaCy Doc needed.

`Detector(index, k, max_arity).detect(text, sources)` returns the spans to
rephrase: minimal rare N-grams (label NGRAM) and a small hitting set of the
minimal linkable combinations of candidates (label COMBO), under the source
verdict when `sources` (collection ids) are given, else under the any verdict.
"""
from .detector import SPAN_COSTS, UNIFORM, WEIGHTED, Analysis, Detector, check_span_cost
from .types import ANY, COMBO, LABELS, NGRAM, SOURCE, VERDICTS, Detection, FlaggedSpan
from .verdict import AUTO, VERDICT_OPTIONS, check_verdict, resolve_sources

__all__ = ["ANY", "AUTO", "Analysis", "COMBO", "Detection", "Detector", "FlaggedSpan", "LABELS", "NGRAM", "SOURCE",
           "SPAN_COSTS", "UNIFORM", "VERDICTS", "VERDICT_OPTIONS", "WEIGHTED", "check_span_cost", "check_verdict",
           "resolve_sources"]
