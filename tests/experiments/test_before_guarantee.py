"""Metrics of the text the LLM passes left before guarantee mode redacted (issue 14)."""
from spacy_linkguard.experiments.evaluate import aggregate, before_guarantee


def test_before_guarantee_uses_the_pre_redaction_text_and_forced_redactions():
    spans = {1: [["rare phrase"], ["other words"]], 3: [["rare phrase", "pair one"], []]}
    objs = [
        # the LLM kept "rare phrase"; guarantee mode then redacted it
        {"id": "a", "text": "[REDACTED] and pair two", "text_before_guarantee": "rare phrase and pair two",
         "forced_redactions": 1},
        # the LLM removed everything itself
        {"id": "b", "text": "new text", "text_before_guarantee": "new text", "forced_redactions": 0},
    ]
    out = before_guarantee(objs, spans)
    assert out["linkable_prop_a1_before"] == [1.0, 0.0]
    assert out["linkable_prop_a3_before"] == [0.5, None]  # nothing flagged in b at arity 3
    assert out["unsafe_before_guarantee"] == [1.0, 0.0]


def test_lines_without_the_field_fall_back_to_the_released_text():
    out = before_guarantee([{"id": "a", "text": "rare phrase"}], {1: [["rare phrase"]]})
    assert out["linkable_prop_a1_before"] == [1.0]
    assert out["unsafe_before_guarantee"] == [None]


def test_aggregate_means_and_seconds_per_pass():
    per_doc = {"linkable_prop_a1_before": [1.0, 0.0], "unsafe_before_guarantee": [1.0, 0.0], "similarity": {}}
    costs = [{"seconds": 10.0, "passes": 5}, {"seconds": 2.0, "passes": 1}]
    row = aggregate(per_doc, costs)
    assert row["linkable_prop_a1_before"] == 0.5 and row["unsafe_before_guarantee"] == 0.5
    assert row["seconds_per_doc"] == 6.0
    assert row["seconds_per_pass"] == 2.0  # mean of 10/5 and 2/1
