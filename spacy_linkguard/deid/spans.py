"""Detected PII spans and the pure operations on them (no Presidio, no spaCy).

A detection is a half-open character range `[start, end)` of the original
text with an entity label and a confidence score.
"""
import re
from dataclasses import dataclass
from typing import Iterable, List, Sequence, Tuple


@dataclass(frozen=True, order=True)
class PiiSpan:
    """One detection: characters `text[start:end]`, its entity type and score."""

    start: int
    end: int
    label: str
    score: float = 1.0
    recognizer: str = ""

    def __len__(self) -> int:
        return self.end - self.start

    def shifted(self, offset: int) -> "PiiSpan":
        """The same span with both offsets moved by `offset` characters."""
        return PiiSpan(self.start + offset, self.end + offset, self.label, self.score, self.recognizer)


def merge_overlaps(spans: Iterable[PiiSpan]) -> List[PiiSpan]:
    """Merge detections that share at least one character; the longest wins.

    Overlapping detections form one cluster; the result covers the union of the
    cluster (so no detected character is left unmasked) and takes the label,
    score and recognizer of its longest member (ties: higher score, then the
    earlier start). Spans that only touch (`a.end == b.start`) stay apart.

    spans (Iterable[PiiSpan]): Detections in any order; empty ones are dropped.
    RETURNS (List[PiiSpan]): Non-overlapping spans sorted by start.
    """
    ordered = sorted((s for s in spans if s.end > s.start), key=lambda s: (s.start, -s.end))
    clusters: List[List[PiiSpan]] = []
    cluster_end = -1
    for span in ordered:
        if clusters and span.start < cluster_end:
            clusters[-1].append(span)
            cluster_end = max(cluster_end, span.end)
        else:
            clusters.append([span])
            cluster_end = span.end
    merged = []
    for members in clusters:
        best = min(members, key=lambda s: (-len(s), -s.score, s.start))
        start = min(s.start for s in members)
        end = max(s.end for s in members)
        merged.append(PiiSpan(start, end, best.label, best.score, best.recognizer))
    return merged


def trim_spans(text: str, spans: Iterable[PiiSpan]) -> List[PiiSpan]:
    """Drop leading/trailing whitespace from each span (empty results are dropped)."""
    out = []
    for s in spans:
        start, end = s.start, s.end
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            out.append(PiiSpan(start, end, s.label, s.score, s.recognizer))
    return out


def covered_chars(spans: Sequence[Tuple[int, int]], length: int) -> bytearray:
    """A 0/1 byte per character of a text of `length` chars: 1 where any span covers it."""
    mask = bytearray(length)
    for start, end in spans:
        start, end = max(0, start), min(length, end)
        if end > start:
            mask[start:end] = b"\x01" * (end - start)
    return mask


# What may stand between two detections of one entity type that belong
# together: "Częstochowa, Poland", "Diyarbakır (Turkey)", "PLN 200 [approx. EUR 50]".
BRIDGE_GAP = re.compile(r"[\s,;(\[–-]*(?:(?:approx\.|approximately|about|i\.e\.|equal to|or)\s*)?[\s,;(\[–-]*")
_CLOSERS = {"(": ")", "[": "]", "“": "”", "«": "»"}


def bridge_gaps(text: str, spans: Sequence[PiiSpan], *, max_gap: int = 16) -> List[PiiSpan]:
    """Join neighbouring detections of the same type across a short, empty gap.

    Two consecutive spans with the same label are joined when the text
    between them is at most `max_gap` characters of separators (comma,
    bracket, dash, "approx.", ...; see BRIDGE_GAP). A span whose opening
    bracket is not closed inside it is then extended over the closing
    bracket that directly follows it. Masking the separators hides the
    structure "<place>, <country>" that would otherwise stay readable.

    text (str): The text the spans refer to.
    spans (Sequence[PiiSpan]): Non-overlapping spans sorted by start.
    RETURNS (List[PiiSpan]): Non-overlapping spans sorted by start.
    """
    out: List[PiiSpan] = []
    for span in spans:
        if out:
            prev = out[-1]
            gap = text[prev.end : span.start]
            if prev.label == span.label and len(gap) <= max_gap and BRIDGE_GAP.fullmatch(gap):
                best = prev if len(prev) >= len(span) else span
                out[-1] = PiiSpan(prev.start, span.end, best.label, max(prev.score, span.score), best.recognizer)
                continue
        out.append(span)
    return [_close_brackets(text, s) for s in out]


def _close_brackets(text: str, span: PiiSpan) -> PiiSpan:
    inner = text[span.start : span.end]
    end = span.end
    for opener, closer in _CLOSERS.items():
        if inner.count(opener) > inner.count(closer) and end < len(text) and text[end] == closer:
            end += 1
    return span if end == span.end else PiiSpan(span.start, end, span.label, span.score, span.recognizer)


def glued_to_placeholder(text: str, spans: Sequence[PiiSpan], placeholder: str, *,
                         label: str = "MISC") -> List[PiiSpan]:
    """Mask words glued to a placeholder, with the placeholder and their entity.

    "[REDACTED]John Smith" is what an earlier masking leaves when it cut a
    token: the tokenizer sees "REDACTED]John", NER finds only "Smith", and
    "John" would leak. A word written against a placeholder (no space
    between) is masked together with the placeholder, and joined with a
    detection that follows or precedes it across whitespace only (taking
    that detection's label; else `label`).

    text (str): The analyzed text.
    spans (Sequence[PiiSpan]): Non-overlapping detections sorted by start.
    placeholder (str): The masking placeholder, e.g. "[REDACTED]".
    RETURNS (List[PiiSpan]): Non-overlapping spans sorted by start.
    """
    if not placeholder:
        return list(spans)
    p = re.escape(placeholder)
    glued = re.compile(rf"{p}(?:{p})*[^\W_][\w'’-]*|[\w'’-]*[^\W_](?:{p})+")
    extra = [PiiSpan(m.start(), m.end(), label, 1.0, "glued_to_placeholder") for m in glued.finditer(text)]
    if not extra:
        return list(spans)
    merged = merge_overlaps(list(spans) + extra)
    out: List[PiiSpan] = []
    for span in merged:
        if out and not text[out[-1].end : span.start].strip():
            prev = out[-1]
            if "glued_to_placeholder" in (prev.recognizer, span.recognizer):
                keep = span if prev.recognizer == "glued_to_placeholder" else prev
                out[-1] = PiiSpan(prev.start, span.end, keep.label, keep.score, keep.recognizer)
                continue
        out.append(span)
    return out
