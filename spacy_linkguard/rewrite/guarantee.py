"""Guarantee mode: redact what is still linkable, re-detect, until safe.

With an exact detector one round is enough (SPEC.md, "Why one round of
redaction is enough"): every N-gram left after redaction was one of the text
before, and the closed candidates already include every shorter piece of a
redacted N-gram that could single a document out. The loop still re-detects,
because redaction can change how the tokens next to a span are split. Every
round replaces at least one non-space character outside placeholders, so the
rounds end; a round that does not is a bug (E216).
"""
from typing import Any, List, Optional, Sequence, Tuple

from ..errors import Errors, LinkguardError


def merge_intervals(spans: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """Sorted union of (start, end) intervals; touching ones are merged."""
    out: List[Tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def redact_spans(text: str, spans: Sequence[Tuple[int, int]], placeholder: str) -> Tuple[str, int]:
    """Replace each (merged) span by `placeholder`. RETURNS (text, spans replaced)."""
    merged = merge_intervals([(s, e) for s, e in spans if e > s])
    for s, e in reversed(merged):
        text = text[:s] + placeholder + text[e:]
    return text, len(merged)


def visible_chars(text: str, placeholder: str) -> int:
    """Non-space characters outside placeholders (decreases every round)."""
    return sum(not c.isspace() for c in text.replace(placeholder, " "))


def detect_with(detector: Any, text: str, sources: Optional[Sequence[str]]) -> Any:
    """`detector.detect(text, sources)`; `detector.detect(text)` when `sources`
    is None (the any verdict), so detectors without the source verdict still serve."""
    return detector.detect(text) if sources is None else detector.detect(text, sources)


def redact_until_safe(text: str, detector: Any, placeholder: str,
                      sources: Optional[Sequence[str]] = None) -> Tuple[str, int, int, bool]:
    """Redact flagged spans and re-detect until the detector says safe.

    text (str): The text after the last LLM pass.
    detector: Has `detect(text, sources) -> Detection` (spans with start_char/end_char, safe).
    placeholder (str): The index's placeholder (a segment boundary).
    sources (Sequence[str]): the text's source ids (the source verdict), or None (any).
    RETURNS (Tuple[str, int, int, bool]): (safe text, spans redacted, rounds,
        whether the input was already safe).
    RAISES: LinkguardError E208 (unsafe but no span), E216 (no progress).
    """
    redacted = rounds = 0
    while True:
        det = detect_with(detector, text, sources)
        if det.safe:
            return text, redacted, rounds, rounds == 0
        if not det.spans:
            raise LinkguardError(Errors.E208.format(preview=text[:60]))
        before = visible_chars(text, placeholder)
        text, n = redact_spans(text, [(s.start_char, s.end_char) for s in det.spans], placeholder)
        redacted += n
        rounds += 1
        if visible_chars(text, placeholder) >= before:
            raise LinkguardError(Errors.E216.format(rounds=rounds, preview=text[:60]))
