"""Metric functions against values computed by hand."""
import itertools
import math
import random

import pytest

from spacy_linkguard.experiments.metrics import (
    document_linkage_rate,
    edit_volume,
    linkable_proportion,
    mean_defined,
    placeholders_added,
    ratio_to,
    surviving_spans,
    wilson_interval,
)
from spacy_linkguard.ngrams import NgramSettings


def test_surviving_spans_case_folded_and_token_wise():
    out = "The court held, that the Applicant lived in Oslo."
    flags = surviving_spans(["The Court held", "applicant lived", "court", "Oslo", "courts", "held that"], out)
    # "held that" is split by a comma in the output: a phrase search would not find it.
    assert flags == [True, True, True, True, False, False]


def test_surviving_spans_normalizes_lookalikes():
    # Without folding U+2011, "non\u2011pecuniary" would be one token and
    # "pecuniary damage" would not be found.
    out = "the non\u2011pecuniary damage"
    assert surviving_spans(["pecuniary damage", "non-pecuniary damage", "non pecuniary"], out) == [True, True, False]


def test_surviving_spans_and_edit_volume_see_through_spacing_and_encoding():
    # A rewrite that only re-spaces or re-encodes a phrase has not removed it.
    out = "the\u00a0\u200bapplicant  was\tborn in \uff11\uff19\uff16\uff10 in Mu\u0308nchen"
    flags = surviving_spans(["the applicant was born", "born in 1960", "in M\u00fcnchen"], out)
    assert flags == [True, True, True]
    assert edit_volume("the applicant was born in 1960 in M\u00fcnchen", out) == 0.0


def test_placeholder_breaks_a_span():
    out = "born in [REDACTED] London"
    assert surviving_spans(["in London", "London"], out) == [False, True]


def test_linkable_proportion_hand_computed():
    out = "The applicant was born in 1960 in a small town."
    spans = ["born in 1960", "small village", "a small town", "Paris"]
    # survive: "born in 1960", "a small town" -> 2 / 4
    assert linkable_proportion(spans, out) == pytest.approx(0.5)
    assert linkable_proportion([], out) is None
    assert linkable_proportion(["gone"], "") == 0.0


def test_span_without_tokens_does_not_survive():
    assert surviving_spans([",", "word"], "a word, here") == [False, True]


def test_linkable_proportion_brute_force_oracle():
    # Oracle: the span survives iff its casefolded word list is a contiguous
    # sublist of the word list of some punctuation-free piece of the output.
    rng = random.Random(7)
    vocab = ["alpha", "Beta", "gamma", "delta", "EPS"]
    settings = NgramSettings()
    for _ in range(200):
        pieces = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))]
        out = ", ".join(pieces)
        spans = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 3))) for _ in range(4)]

        def oracle(span):
            sw = [w.casefold() for w in span.split()]
            for piece in pieces:
                pw = [w.casefold() for w in piece.split()]
                if any(pw[i : i + len(sw)] == sw for i in range(len(pw) - len(sw) + 1)):
                    return True
            return False

        expected = sum(map(oracle, spans)) / len(spans)
        assert linkable_proportion(spans, out, settings) == pytest.approx(expected)


def test_document_linkage_rate():
    assert document_linkage_rate([True, False, False, True]) == 0.5
    assert document_linkage_rate([True]) == 0.0
    assert document_linkage_rate([]) is None


def test_placeholders_added_counts_every_redaction():
    p = "[REDACTED]"
    # d' had one placeholder; the model wrote one more and guarantee mode forced two (adjacent ones count twice)
    d = "The applicant [REDACTED] was born in Oslo."
    out = "The applicant [REDACTED] was born in [REDACTED]. [REDACTED][REDACTED] lived there."
    assert placeholders_added(d, out, p) == 3
    assert placeholders_added(d, d, p) == 0
    assert placeholders_added(d, "The applicant was born.", p) == -1  # the rewrite dropped one
    assert placeholders_added("", "[X] and [X]", "[X]") == 2  # the index's placeholder, whichever it is
    assert placeholders_added("a [redacted] b", "a [redacted] b [REDACTED]", p) == 1  # exact text only
    with pytest.raises(ValueError):
        placeholders_added("a", "b", "")


def test_ratio_to():
    assert ratio_to(12.6, 8.4) == pytest.approx(1.5)
    assert ratio_to(8.4, 8.4) == 1.0
    assert ratio_to(None, 8.4) is None and ratio_to(3.0, None) is None and ratio_to(3.0, 0.0) is None


def test_edit_volume_hand_computed():
    assert edit_volume("the cat sat", "the cat sat") == 0.0
    # output tokens: the dog sat on mats -> kept: the, sat -> 3 of 5 changed
    assert edit_volume("the cat sat", "the dog sat on mats") == pytest.approx(3 / 5)
    assert edit_volume("The cat", "the CAT") == 0.0  # case-folded
    assert edit_volume("a b", "") == 0.0
    assert edit_volume("", "new words") == 1.0


def test_mean_defined_skips_missing():
    assert mean_defined([1.0, None, 0.0, float("nan")]) == 0.5
    assert mean_defined([None]) is None


def test_wilson_interval_hand_computed():
    # p = 0.5, n = 100, z = 1.96: centre 0.5, half = 1.96*sqrt(.0025+.000096)/1.0384
    lo, hi = wilson_interval(50, 100)
    half = 1.959963984540054 * math.sqrt(0.25 / 100 + 1.959963984540054**2 / 40000) / (1 + 1.959963984540054**2 / 100)
    assert lo == pytest.approx(0.5 - half) and hi == pytest.approx(0.5 + half)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    lo0, hi0 = wilson_interval(0, 10)
    assert lo0 == 0.0 and hi0 == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_wilson_interval_contains_proportion():
    for s, n in itertools.product(range(0, 12), range(1, 12)):
        if s <= n:
            lo, hi = wilson_interval(s, n)
            assert 0.0 <= lo <= s / n <= hi <= 1.0
