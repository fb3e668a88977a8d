"""What the review page shows of a document: every paragraph of the input and
of the output once, in order, paired as the paragraph metrics pair them; the
facts and placeholders a paragraph lost or gained, checked against the
evaluation's own counts (`experiments.metrics`) and by hand."""
import random

import pytest

from spacy_linkguard.experiments.metrics import fact_counts, placeholders_added
from spacy_linkguard.llm.facts import facts_of
from spacy_linkguard.paragraphs import paragraph_pairs, split_paragraphs
from spacy_linkguard.review.items import missing_facts, paragraph_reviews, review_item

P = "[REDACTED]"
SENTENCES = [
    "The applicant was arrested on [REDACTED] and held for two weeks.",
    "The applicant was detained on [REDACTED] and held for three weeks.",
    "The court did not hear the witness under Article 6 § 1.",
    "The court heard the witness under Article 6 § 3.",
    "The hearing was adjourned.",
    "The hearing was postponed.",
    "On [REDACTED] the third applicant lodged an appeal.",
    "The first applicant never appealed.",
    "[REDACTED] and [REDACTED] were born in [REDACTED].",
]


def test_missing_facts_are_written_as_in_the_text():
    a, b = SENTENCES[0], SENTENCES[1]
    assert missing_facts(a, b) == ["two weeks"]
    assert missing_facts(b, a) == ["three weeks"]
    assert missing_facts(SENTENCES[2], SENTENCES[3]) == ["not", "Article 6 § 1"]
    assert missing_facts(SENTENCES[4], SENTENCES[5]) == []


@pytest.mark.parametrize("seed", range(60))
def test_missing_facts_count_as_the_evaluation_counts(seed):
    rng = random.Random(seed)
    a = " ".join(rng.choices(SENTENCES, k=rng.randint(0, 4)))
    b = " ".join(rng.choices(SENTENCES, k=rng.randint(0, 4)))
    n_in, kept, new = fact_counts(a, b)
    assert len(missing_facts(a, b)) == n_in - kept
    assert len(missing_facts(b, a)) == new
    for surface in missing_facts(a, b):  # each is a fact of `a` as written there
        assert surface in a and facts_of(surface)


def test_paragraphs_paired_in_order_with_dropped_and_added_ones():
    # the dropped and added paragraphs share no word with any other, so the pairing is clear
    old = "\n\n".join(["PROCEDURE", SENTENCES[0], "Witnesses testified extensively.", SENTENCES[4]])
    new = "\n\n".join(["PROCEDURE", SENTENCES[1], SENTENCES[5], "Zebras graze quietly.", "Purple elephants dance."])
    reviews = paragraph_reviews(old, new, P)
    kinds = [r.kind for r in reviews]
    assert kinds.count("unchanged") == 1 and kinds[0] == "unchanged"
    assert kinds[1] == "changed" and reviews[1].facts_dropped == ["two weeks"]
    assert reviews[1].facts_added == ["three weeks"] and reviews[1].attention
    assert kinds == ["unchanged", "changed", "dropped", "changed", "added", "added"]
    assert all(r.attention for r in reviews if r.kind in ("dropped", "added"))
    # every paragraph once, in order, on its own side
    assert [r.old for r in reviews if r.kind != "added"] == split_paragraphs(old)
    assert [r.new for r in reviews if r.kind != "dropped"] == split_paragraphs(new)
    # the pairs are the metrics' pairs
    a, b, pairs = paragraph_pairs(old, new)
    assert [(r.old, r.new) for r in reviews if r.kind in ("changed", "unchanged")] == [(a[i], b[j]) for i, j in pairs]


def test_a_reworded_paragraph_asks_no_attention_but_a_lost_placeholder_does():
    r = paragraph_reviews(SENTENCES[4], SENTENCES[5], P)
    assert [x.kind for x in r] == ["changed"] and not r[0].attention
    r = paragraph_reviews(SENTENCES[8], "They were born in [REDACTED].", P)
    assert r[0].placeholders_added == -2 and r[0].attention and not r[0].facts_dropped


def test_spacing_alone_leaves_a_paragraph_unchanged():
    r = paragraph_reviews("The hearing\nwas adjourned.", "The hearing was adjourned.", P)
    assert [x.kind for x in r] == ["unchanged"] and not r[0].attention


@pytest.mark.parametrize("seed", range(40))
def test_review_item_counts(seed):
    rng = random.Random(seed)
    old = "\n\n".join(rng.choices(SENTENCES, k=rng.randint(1, 5)))
    new = "\n\n".join(rng.choices(SENTENCES, k=rng.randint(1, 5)))
    item = review_item(old, {"id": 7, "text": new, "safe": True, "verdict": "source", "forced_redactions": 2},
                       placeholder=P)
    assert (item["id"], item["safe"], item["verdict"], item["forced_redactions"]) == ("7", True, "source", 2)
    assert item["placeholders_added"] == placeholders_added(old, new, P)
    assert sum(p.placeholders_added for p in item["paragraphs"]) == placeholders_added(old, new, P)
    assert item["n_changed"] == sum(p.old != p.new for p in item["paragraphs"])
    assert item["n_attention"] == sum(bool(p.facts_dropped or p.facts_added or p.placeholders_added
                                            or not p.old or not p.new) for p in item["paragraphs"])


def test_an_output_line_without_a_linkage_check():
    item = review_item("The hearing was adjourned.", {"id": "d", "text": "The hearing was postponed."})
    assert item["safe"] is None and item["verdict"] is None and item["forced_redactions"] is None
    assert item["n_changed"] == 1 and item["n_attention"] == 0
