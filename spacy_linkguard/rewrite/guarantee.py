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
    text, _, n = redact_tracked(text, spans, placeholder, [])
    return text, n


def visible_chars(text: str, placeholder: str) -> int:
    """Non-space characters outside placeholders (decreases every round)."""
    return sum(not c.isspace() for c in text.replace(placeholder, " "))


def detect_with(detector: Any, text: str, sources: Optional[Sequence[str]]) -> Any:
    """`detector.detect(text, sources)`; `detector.detect(text)` when `sources`
    is None (the any verdict), so detectors without the source verdict still serve."""
    return detector.detect(text) if sources is None else detector.detect(text, sources)


GUARANTEE_UNITS = ("span", "token")


def check_guarantee_unit(unit: Any) -> None:
    """RAISES: LinkguardError E288 when `unit` is not one of GUARANTEE_UNITS."""
    if unit not in GUARANTEE_UNITS:
        raise LinkguardError(Errors.E288.format(value=unit, expected=", ".join(GUARANTEE_UNITS)))


def redact_until_safe(text: str, detector: Any, placeholder: str,
                      sources: Optional[Sequence[str]] = None, unit: str = "span") -> Tuple[str, int, int, bool]:
    """Redact flagged spans and re-detect until the detector says safe.

    text (str): The text after the last LLM pass.
    detector: Has `detect(text, sources) -> Detection` (spans with start_char/end_char, safe).
    placeholder (str): The index's placeholder (a segment boundary).
    sources (Sequence[str]): the text's source ids (the source verdict), or None (any).
    unit (str): "span": each flagged span is replaced whole; "token": only
        its rarest token (the lowest document frequency in the detector's
        index; the first on ties), and the text is detected again, so that a
        span whose other words no longer link keeps them. Without an index
        to read frequencies from, "token" acts as "span".
    Placeholders written here that end up next to each other, with only
    spaces between them, become one ("[REDACTED] [REDACTED]" reads as one
    gap); the input's own placeholders are left as they are.
    RETURNS (Tuple[str, int, int, bool]): (safe text, replacements made,
        rounds, whether the input was already safe).
    RAISES: LinkguardError E208 (unsafe but no span), E216 (no progress), E288 (unknown unit).
    """
    check_guarantee_unit(unit)
    index = getattr(detector, "index", None) if unit == "token" else None
    redacted = rounds = 0
    written: List[int] = []  # start offsets of the placeholders written here
    while True:
        det = detect_with(detector, text, sources)
        if det.safe:
            return join_written(text, written, placeholder), redacted, rounds, rounds == 0
        if not det.spans:
            raise LinkguardError(Errors.E208.format(preview=text[:60]))
        before = visible_chars(text, placeholder)
        spans = [(s.start_char, s.end_char) for s in det.spans]
        if index is not None:
            spans = rarest_tokens(text, spans, index)
        text, written, n = redact_tracked(text, spans, placeholder, written)
        redacted += n
        rounds += 1
        if visible_chars(text, placeholder) >= before:
            raise LinkguardError(Errors.E216.format(rounds=rounds, preview=text[:60]))


def rarest_tokens(text: str, spans: Sequence[Tuple[int, int]], index: Any) -> List[Tuple[int, int]]:
    """For each span, the character range of its token of lowest document
    frequency in `index` (the first on ties); a span holding no token stays whole."""
    from ..ngrams import text_segments

    tokens = [(s, e, k) for seg in text_segments(text, index.settings)
              for s, e, k in zip(seg.starts, seg.ends, seg.keys)]
    inside = [[t for t in tokens if t[0] >= s and t[1] <= e] for s, e in spans]
    keys = list(dict.fromkeys(t[2] for ts in inside for t in ts))
    df = dict(zip(keys, (int(x) for x in index.key_doc_freqs(keys)))) if keys else {}
    out: List[Tuple[int, int]] = []
    for (s, e), ts in zip(spans, inside):
        if not ts:
            out.append((s, e))
            continue
        best = min(range(len(ts)), key=lambda i: (df[ts[i][2]], i))
        out.append((int(ts[best][0]), int(ts[best][1])))
    return out


def redact_tracked(text: str, spans: Sequence[Tuple[int, int]], placeholder: str,
                   written: Sequence[int]) -> Tuple[str, List[int], int]:
    """`redact_spans`, keeping track of the placeholders written so far.

    written: start offsets of earlier placeholders (never inside a span: a
        span is made of tokens, and a placeholder is none).
    RETURNS (Tuple[str, List[int], int]): (text, the start offsets of every
        placeholder written, old and new, in the new text, sorted; spans replaced).
    """
    merged = merge_intervals([(s, e) for s, e in spans if e > s])
    out: List[str] = []
    moved: List[int] = []
    pos = shift = 0
    old = sorted(written)
    j = 0
    for s, e in merged:
        while j < len(old) and old[j] < s:
            moved.append(old[j] + shift)
            j += 1
        out.append(text[pos:s])
        moved.append(s + shift)
        out.append(placeholder)
        shift += len(placeholder) - (e - s)
        pos = e
    moved.extend(p + shift for p in old[j:])
    out.append(text[pos:])
    return "".join(out), sorted(moved), len(merged)


def join_written(text: str, written: Sequence[int], placeholder: str) -> str:
    """Runs of the placeholders at `written` with only spaces (no line break)
    between them, each replaced by one placeholder."""
    if len(written) < 2:
        return text
    n = len(placeholder)
    starts = sorted(written)
    cuts: List[Tuple[int, int]] = []  # (end of a kept placeholder, end of the last one joined to it)
    for a, b in zip(starts, starts[1:]):
        gap = text[a + n:b]
        if gap.strip(" \t") == "" and text[b:b + n] == placeholder:
            cuts.append((a + n, b + n))
    if not cuts:
        return text
    pieces: List[str] = []
    pos = 0
    for s, e in cuts:
        pieces.append(text[pos:s])
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)
