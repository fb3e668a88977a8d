"""The fact guard: a regenerated sentence states the facts of the original.

A candidate for a sentence holding flagged (linkable) spans may reword
everything, but (facts as `facts.py` defines them):

- every fact of the sentence outside the flagged spans is in the candidate
  as often as in the sentence (else ``fact_dropped``); a fact that overlaps a
  flagged span may go: the span is what must change;
- the candidate states no fact the sentence lacks (else ``fact_invented``),
  except a generalization of a number inside a flagged span: a decade
  (``decade:D``) covering a year written inside a flagged span ("the late
  1990s" for "1998": D <= year <= D + 9), or a century (``century:C``)
  covering such a year or decade (the 20th century is 1900-2000 inclusive:
  usage puts "1900" on either side, so both count). A flagged number is never
  replaced by another specific number, ordinal or reference. Vague
  quantifiers ("several", "some", "a number of", "in the late 1990s" less its
  decade) are not facts, so writing them is always allowed;
- the candidate has as many negation cues as the sentence, flagged spans
  included, counted per value (``neg``, ``neg:unanimous``), else
  ``negation_changed``: a flagged span is reworded, its polarity is not.

What it does not catch: changes that no fact of `facts.py` records -- a
qualifier dropped ("partly inadmissible" -> "inadmissible"), a verb of
outcome swapped ("dismissed" -> "allowed"), a month or a name changed, a
negation cue traded for another ("not" -> "never").
Pure function, no model.
"""
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from ..errors import Errors, LinkguardError
from ..llm.facts import fact_spans, is_negation, kind, year_of
from .reasons import FACT_DROPPED, FACT_INVENTED, NEGATION_CHANGED


@dataclass(frozen=True)
class FactDiff:
    """How the facts of a candidate differ from those of its sentence.

    dropped: facts outside the flagged spans that the candidate lacks.
    invented: facts of the candidate that the sentence lacks and that
        generalize no flagged number.
    negations_before / negations_after: negation cues per value.
    """

    dropped: "Counter[str]"
    invented: "Counter[str]"
    negations_before: "Counter[str]"
    negations_after: "Counter[str]"

    def reason(self) -> Optional[str]:
        """The guard's verdict: None, or the first reason that applies
        (``negation_changed``, then ``fact_dropped``, then ``fact_invented``)."""
        if self.negations_before != self.negations_after:
            return NEGATION_CHANGED
        if self.dropped:
            return FACT_DROPPED
        if self.invented:
            return FACT_INVENTED
        return None


def check_facts(sentence: str, candidate: str, flagged: Sequence[Tuple[int, int]]) -> Optional[str]:
    """Decide whether `candidate` states the facts of `sentence` (module docstring).

    sentence (str): The original sentence.
    candidate (str): Its regenerated version.
    flagged (Sequence[Tuple[int, int]]): Character spans of `sentence` that
        the candidate must reword (start < end, inside the sentence).
    RETURNS (Optional[str]): None when accepted, else ``negation_changed``,
        ``fact_dropped`` or ``fact_invented`` (in `filters.reasons.REASONS`).
    RAISES: LinkguardError E231 for a span that is not in the sentence.
    """
    return fact_diff(sentence, candidate, flagged).reason()


def fact_diff(sentence: str, candidate: str, flagged: Sequence[Tuple[int, int]]) -> FactDiff:
    """The facts `check_facts` judges by. Arguments and errors as `check_facts`."""
    spans = _checked(flagged, len(sentence))
    inside: "Counter[str]" = Counter()
    outside: "Counter[str]" = Counter()
    for start, end, value in fact_spans(sentence):
        if any(start < b and a < end for a, b in spans):
            inside[value] += 1
        else:
            outside[value] += 1
    after = Counter(value for _, _, value in fact_spans(candidate))
    before = inside + outside
    negations_before = Counter({v: n for v, n in before.items() if is_negation(v)})
    negations_after = Counter({v: n for v, n in after.items() if is_negation(v)})
    facts_after = after - negations_after
    dropped = Counter({v: n for v, n in (outside - facts_after).items() if not is_negation(v)})
    extra = facts_after - Counter({v: n for v, n in before.items() if not is_negation(v)})
    invented = Counter({v: n for v, n in extra.items() if not generalizes(v, inside)})
    return FactDiff(dropped, invented, negations_before, negations_after)


def generalizes(value: str, flagged_facts: "Counter[str]") -> bool:
    """True when the fact `value` is an accepted generalization of a number
    among `flagged_facts` (the facts written inside flagged spans): a decade
    covering a flagged year, a century covering a flagged year or decade."""
    k = kind(value)
    if k not in ("decade", "century"):
        return False
    n = int(value.split(":", 1)[1])
    years = [y for y in map(year_of, flagged_facts) if y is not None]
    if k == "decade":
        return any(n <= y <= n + 9 for y in years) if n % 10 == 0 else False
    decades = [int(v.split(":", 1)[1]) for v in flagged_facts if kind(v) == "decade"]
    return any(100 * (n - 1) <= y <= 100 * n for y in years) or any(
        100 * (n - 1) <= d <= 100 * n - 10 for d in decades)


def _checked(flagged: Sequence[Tuple[int, int]], length: int) -> Sequence[Tuple[int, int]]:
    out = []
    for span in flagged:
        try:
            a, b = (int(x) for x in span)
        except (TypeError, ValueError):
            a, b = -1, -1
        if not 0 <= a < b <= length:
            raise LinkguardError(Errors.E231.format(span=span, length=length))
        out.append((a, b))
    return out
