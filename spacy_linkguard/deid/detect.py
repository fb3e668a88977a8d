"""From raw recognizer results to the spans that get masked (pure functions)."""
from typing import Iterable, List, Optional

from .denylist import DenyList, filter_denied
from .spans import PiiSpan, bridge_gaps, glued_to_placeholder, merge_overlaps, trim_spans


def resolve_spans(text: str, raw: Iterable[PiiSpan], deny: DenyList,
                  placeholder: Optional[str] = None) -> List[PiiSpan]:
    """Clean Presidio's results into the final, non-overlapping detections.

    Steps: trim whitespace at the edges; drop boilerplate the deny list names
    (checked per detection, before merging, so "the Court" found on its own is
    dropped but a name next to it is kept); merge overlapping detections, the
    longest giving the label (see `merge_overlaps`); join neighbours of one
    type across a separator ("Częstochowa, Poland"; see `bridge_gaps`); with
    a placeholder, mask words glued to it ("[REDACTED]John"; see
    `glued_to_placeholder`).

    text (str): The analyzed text.
    raw (Iterable[PiiSpan]): Recognizer results, possibly overlapping.
    deny (DenyList): Boilerplate never masked.
    RETURNS (List[PiiSpan]): Non-overlapping spans sorted by start.
    """
    spans = bridge_gaps(text, merge_overlaps(filter_denied(text, trim_spans(text, raw), deny)))
    return glued_to_placeholder(text, spans, placeholder) if placeholder else spans
