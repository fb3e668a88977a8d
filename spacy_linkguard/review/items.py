"""What the review page shows of one rewritten document.

Its paragraphs are paired with the input's (`paragraphs.paragraph_pairs`);
each pair whose text differs is a changed paragraph, shown as a word diff
(`diff.word_diff`), and an input paragraph without a partner is a dropped
one, an output paragraph without a partner an added one. A paragraph asks
for attention first when the rewrite dropped or added a fact of `llm.facts`
(a number, an ordinal, a negation, a legal reference) or a placeholder, or
when it is dropped or added whole: a reader checks those before anything
else, though a paragraph without them can still say something its input does
not. Pure functions, no model.
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ..llm.facts import Span, fact_spans
from ..ngrams import DEFAULT_PLACEHOLDER
from ..paragraphs import paragraph_pairs
from .diff import Segment, word_diff


@dataclass
class ParagraphReview:
    """One paragraph of the input beside what the rewrite made of it.

    old, new: the input paragraph and the output paragraph ("" for an added /
        a dropped paragraph).
    segments: the word diff of old and new.
    facts_dropped, facts_added: facts of the input the output lacks, and of
        the output the input lacks, as written ("two weeks", "not"), each as
        often as it is missing.
    placeholders_added: placeholders in new minus those in old (negative: some left out).
    """

    old: str
    new: str
    segments: List[Segment] = field(default_factory=list)
    facts_dropped: List[str] = field(default_factory=list)
    facts_added: List[str] = field(default_factory=list)
    placeholders_added: int = 0

    @property
    def kind(self) -> str:
        """"unchanged" (the same words; the spacing may differ), "changed",
        "dropped" (no output paragraph) or "added" (no input one)."""
        if not self.new:
            return "dropped"
        if not self.old:
            return "added"
        return "unchanged" if all(s.op == "equal" for s in self.segments) else "changed"

    @property
    def attention(self) -> bool:
        """Whether a fact or a placeholder came or went (a placeholder left out can
        take a redacted mention with it), or the paragraph was dropped or added."""
        return bool(self.facts_dropped or self.facts_added or self.placeholders_added
                    or self.kind in ("dropped", "added"))


def review_paragraph(old: str, new: str, placeholder: str = DEFAULT_PLACEHOLDER) -> ParagraphReview:
    """`old` beside `new` (ParagraphReview); either may be "" (a paragraph dropped or added)."""
    if old == new:  # nothing to diff, no fact can change
        return ParagraphReview(old, new, [Segment("equal", old, new)])
    dropped, added = fact_changes(old, new)
    return ParagraphReview(
        old, new, word_diff(old, new), facts_dropped=dropped, facts_added=added,
        placeholders_added=new.count(placeholder) - old.count(placeholder) if placeholder else 0,
    )


def fact_changes(old: str, new: str) -> Tuple[List[str], List[str]]:
    """(the facts of `old` that `new` lacks, those of `new` that `old` lacks):
    `missing_facts` both ways, each text's facts read once."""
    spans_old, spans_new = fact_spans(old), fact_spans(new)
    return _missing(old, spans_old, spans_new), _missing(new, spans_new, spans_old)


def missing_facts(text: str, other: str) -> List[str]:
    """The facts of `text` that `other` lacks (a multiset difference of
    canonical facts), each as written in `text`, in text order."""
    return _missing(text, fact_spans(text), fact_spans(other))


def _missing(text: str, spans: List[Span], other_spans: List[Span]) -> List[str]:
    missing = Counter(v for _, _, v in spans) - Counter(v for _, _, v in other_spans)
    out = []
    for start, end, value in spans:
        if missing[value] > 0:
            missing[value] -= 1
            out.append(text[start:end])
    return out


def paragraph_reviews(input_text: str, output_text: str,
                      placeholder: str = DEFAULT_PLACEHOLDER) -> List[ParagraphReview]:
    """Every paragraph of the input and of its rewrite, paired, in text order:
    a dropped input paragraph comes before the pair that follows it, an added
    output paragraph likewise."""
    a, b, pairs = paragraph_pairs(input_text, output_text)
    out: List[ParagraphReview] = []
    i = j = 0
    for pi, pj in pairs + [(len(a), len(b))]:
        out.extend(review_paragraph(p, "", placeholder) for p in a[i:pi])
        out.extend(review_paragraph("", p, placeholder) for p in b[j:pj])
        if pi < len(a):
            out.append(review_paragraph(a[pi], b[pj], placeholder))
        i, j = pi + 1, pj + 1
    return out


def review_item(input_text: str, output: Mapping[str, Any], *,
                placeholder: str = DEFAULT_PLACEHOLDER) -> Dict[str, Any]:
    """What the page shows of one document.

    input_text: the document as the rewrite read it.
    output: its line of the rewrite's output: "id" and "text", and where the
        rewrite wrote them "safe", "verdict" and "forced_redactions".
    RETURNS (dict): id, safe (None: not checked), verdict, forced_redactions,
        paragraphs (List[ParagraphReview]), n_changed (paragraphs not
        unchanged), n_attention, placeholders_added (whole document).
    """
    paragraphs = paragraph_reviews(input_text, output["text"], placeholder)
    forced: Optional[int] = output.get("forced_redactions")
    return {
        "id": str(output["id"]),
        "safe": output.get("safe"),
        "verdict": output.get("verdict"),
        "forced_redactions": forced,
        "paragraphs": paragraphs,
        "n_changed": sum(p.kind != "unchanged" for p in paragraphs),
        "n_attention": sum(p.attention for p in paragraphs),
        "placeholders_added": (output["text"].count(placeholder) - input_text.count(placeholder)
                               if placeholder else 0),
    }
