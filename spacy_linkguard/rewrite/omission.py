"""Leave out before blanking out: guarantee mode's first, truthful step.

What still links after the last pass goes to guarantee mode, which writes
the placeholder over each flagged span. At arity <= 3 a sentence can hold
many: a judgment's paragraph became "[REDACTED] commit [REDACTED] to
[REDACTED] of culpable neglect, [REDACTED]". Before that, `omit_until_safe`
leaves out what the sentence can do without: for each flagged span, the
smallest optional constituent that holds it (`model_free.smallest_optional`:
a modifier, a prepositional, appositive or relative phrase, with its comma)
is deleted, unless it holds a fact outside the flagged spans (a number, a
negation, a legal reference: `llm/facts.py`), and the text is detected
again, until it is safe, nothing is left to omit, or `max_rounds`. A
deletion states nothing new; what it cannot reach is left to the
placeholder.
"""
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ..llm.facts import fact_spans
from .guarantee import detect_with
from .model_free import Edit, smallest_optional

DEFAULT_MAX_ROUNDS = 4


def omissions(doc: Any, spans: Sequence[Tuple[int, int]]) -> List[Edit]:
    """The deletions that take each flagged span out with its smallest optional
    constituent, none dropping a fact outside the spans; overlapping ones
    merged into the larger."""
    text = doc.text
    facts = [(s, e) for s, e, _ in fact_spans(text)]
    out: List[Edit] = []
    for s, e in spans:
        drop = smallest_optional(doc, s, e)
        if drop is None:
            continue
        a, b, _ = drop
        kept_fact = any(a <= fs and fe <= b and not any(x <= fs and fe <= y for x, y in spans) for fs, fe in facts)
        if not kept_fact:
            out.append(drop)
    out.sort()
    merged: List[Edit] = []
    for a, b, rep in out:
        if merged and a < merged[-1][1]:
            pa, pb, _ = merged[-1]
            merged[-1] = (min(a, pa), max(b, pb), "")
        else:
            merged.append((a, b, rep))
    return merged


def omit_until_safe(text: str, detector: Any, parse: Callable[[str], Any], sources: Optional[Sequence[str]] = None,
                    max_rounds: int = DEFAULT_MAX_ROUNDS) -> Tuple[str, int]:
    """Leave out flagged spans with their optional constituents (see the module).

    RETURNS (Tuple[str, int]): (the text, constituents left out). The text
        may still link: guarantee mode redacts what is left.
    """
    omitted = 0
    for _ in range(max_rounds):
        det = detect_with(detector, text, sources)
        if det.safe or not det.spans:
            break
        edits = omissions(parse(text), [(s.start_char, s.end_char) for s in det.spans])
        new = apply_omissions(text, edits) if edits else text
        if new == text:
            break
        text, omitted = new, omitted + len(edits)
    return text, omitted


def apply_omissions(text: str, edits: Sequence[Edit]) -> str:
    """`text` with the (non-overlapping) deletions made, the last first: the
    words around a deletion are joined by one space (none before punctuation
    or after a line break, no punctuation left alone after an opening
    bracket), and a sentence whose first words were left out starts with a
    capital again."""
    for a, b, _ in sorted(edits, reverse=True):
        left = text[:a].rstrip(" ")
        right = text[b:].lstrip(" ")
        if left.endswith("(") and right[:1] in (".", ",", ";", ":"):
            right = right[1:].lstrip(" ")  # "(nos. 1, 2)" less "nos" is "(1, 2)", not "(. 1, 2)"
        if right and (not left or left[-1] in ".!?\n") and right[0].islower():
            right = right[0].upper() + right[1:]
        glue = "" if not left or not right or left[-1] in "\n(" or right[0] in ",.;:!?)" else " "
        text = left + glue + right
    return text
