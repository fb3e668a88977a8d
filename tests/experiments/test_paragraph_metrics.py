"""Paragraph similarity and facts kept / new facts (SPEC.md "Metrics"): the
pure parts of spacy_linkguard.experiments.metrics and the paragraphs they pair
(spacy_linkguard.paragraphs), checked against brute-force
and numpy oracles. The fact extractor is the real `llm.facts.facts_of`, except
where a test passes its own (said so there)."""
import itertools
import random
from collections import Counter

import numpy as np
import pytest

from spacy_linkguard.experiments.metrics import (document_paragraph_facts, fact_counts, quantile, share_below,
                                                 similarity_pairs, summarize_paragraphs)
from spacy_linkguard.paragraphs import align_paragraphs, pair_score, split_paragraphs, word_bag


def test_split_paragraphs_on_blank_lines_only():
    text = "PROCEDURE\n\nThe case began.\nIt went on.\n  \n\n\nTHE FACTS\n \n"
    assert split_paragraphs(text) == ["PROCEDURE", "The case began.\nIt went on.", "THE FACTS"]
    assert split_paragraphs("  \n\n ") == []
    assert split_paragraphs("one paragraph, no breaks") == ["one paragraph, no breaks"]


def test_word_bag_ignores_case_and_punctuation():
    assert word_bag("The court, the Court. 2 (two)") == Counter({"the": 2, "court": 2, "2": 1, "two": 1})


def test_same_count_is_paired_by_position():
    assert align_paragraphs(["a b", "c d", "e f"], ["x", "y", "z"]) == [(0, 0), (1, 1), (2, 2)]


def test_a_dropped_paragraph_is_skipped():
    a = ["the court held a hearing", "the applicant was born in 1960", "the government objected"]
    b = ["the court held a hearing", "the government objected strongly"]
    assert align_paragraphs(a, b) == [(0, 0), (2, 1)]


def _total(a, b, pairs):
    bags_a = [word_bag(p) for p in a]
    bags_b = [word_bag(p) for p in b]
    return sum(pair_score(bags_a[i], bags_b[j]) for i, j in pairs)


def _brute_force_best(a, b):
    """Every monotone one-to-one pairing of pairs that share a word: the best total."""
    best = 0.0
    cells = [(i, j) for i in range(len(a)) for j in range(len(b)) if _total(a, b, [(i, j)]) > 0]
    for r in range(1, min(len(a), len(b)) + 1):
        for combo in itertools.combinations(cells, r):
            if all(x[0] < y[0] and x[1] < y[1] for x, y in zip(combo, combo[1:])):
                best = max(best, _total(a, b, combo))
    return best


@pytest.mark.parametrize("seed", range(60))
def test_alignment_is_optimal_against_brute_force(seed):
    rng = random.Random(seed)
    vocab = ["court", "applicant", "two", "not", "born", "prison", "the", "judge", "x", "y"]
    n, m = rng.randint(0, 5), rng.randint(0, 5)
    if n == m:
        m += rng.choice([-1, 1]) if m else 1
    a = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 5))) for _ in range(n)]
    b = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 5))) for _ in range(m)]
    pairs = align_paragraphs(a, b)
    assert all(x[0] < y[0] and x[1] < y[1] for x, y in zip(pairs, pairs[1:]))  # monotone, one-to-one
    assert all(_total(a, b, [p]) > 0 for p in pairs)  # only pairs that share a word
    assert _total(a, b, pairs) == pytest.approx(_brute_force_best(a, b))


@pytest.mark.parametrize("seed", range(20))
def test_quantile_and_share_below_against_numpy(seed):
    rng = np.random.default_rng(seed)
    values = list(rng.uniform(0.3, 1.0, size=int(rng.integers(1, 40))))
    for q in (0.0, 0.1, 0.5, 0.9, 1.0):
        assert quantile(values, q) == pytest.approx(float(np.percentile(values, q * 100)))
    assert share_below(values, 0.8) == pytest.approx(float(np.mean(np.asarray(values) < 0.8)))


def test_quantile_and_share_of_nothing():
    assert quantile([], 0.1) is None and share_below([], 0.8) is None
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)


def test_similarity_pairs_keep_input_paragraphs_of_eight_words():
    inp = "THE FACTS\n\nThe applicant was born in 1960 and lives in Oslo.\n\n1. Short line here."
    out = "THE FACTS\n\nThe applicant was born in the 1960s.\n\n1. Short."
    assert similarity_pairs(inp, out) == [("The applicant was born in 1960 and lives in Oslo.",
                                           "The applicant was born in the 1960s.")]


def test_summary_pools_paragraphs():
    docs = [{"sims": [1.0, 0.5], "facts_in": 3, "facts_kept": 2, "facts_new": 1, "n_paras": 2},
            {"sims": [0.9], "facts_in": 1, "facts_kept": 1, "facts_new": 0, "n_paras": 3}]
    s = summarize_paragraphs(docs)
    assert s["para_sim_mean"] == pytest.approx(2.4 / 3)
    assert s["para_sim_p10"] == pytest.approx(float(np.percentile([1.0, 0.5, 0.9], 10)))
    assert s["para_sim_below_0_8"] == pytest.approx(1 / 3) and s["para_sim_n"] == 3
    assert s["facts_kept"] == 0.75 and s["new_facts_per_para"] == pytest.approx(1 / 5)
    none = summarize_paragraphs([{"sims": None, "facts_in": 0, "facts_kept": 0, "facts_new": 0, "n_paras": 0}])
    assert none == {"para_sim_mean": None, "para_sim_p10": None, "para_sim_below_0_8": None, "para_sim_n": None,
                    "facts_kept": None, "new_facts_per_para": None, "ungrounded_per_changed_para": None,
                    "share_changed_paras_ungrounded_ge3": None, "n_changed_paras": None}


def _digits(text):
    """A stand-in fact extractor (digits only), to check the paragraph bookkeeping alone."""
    return Counter(w.strip(".,") for w in text.split() if w.strip(".,").isdigit())


def test_unpaired_paragraphs_lose_or_add_their_facts():
    inp = "The court met on 3 May 1999.\n\nIt heard 2 witnesses.\n\nThe applicant paid 500 euros."
    out = "The court met on 3 May 1999.\n\nThe applicant paid 700 euros.\n\nHe was 40 then.\n\nAnd 7 more."
    # 3 inputs, 4 outputs: paired by overlap: (0, 0), (2, 1). Input facts 3, 1999, 2, 500: 3 and
    # 1999 kept; "It heard 2 witnesses." has no partner (2 lost); 500 -> 700 (500 lost, 700 new);
    # outputs 2 and 3 have no partner (40 and 7 new).
    assert align_paragraphs(split_paragraphs(inp), split_paragraphs(out)) == [(0, 0), (2, 1)]
    res = document_paragraph_facts(inp, out, facts=_digits)
    assert res == {"facts_in": 4, "facts_kept": 2, "facts_new": 3, "n_paras": 3}


def test_facts_kept_and_new_with_the_fact_extractor():
    assert fact_counts("He was convicted of two counts of robbery.", "He was convicted of one count of theft.") == (1, 0, 1)
    assert fact_counts("The court did not hold a hearing in 2001.", "The court did not hold a hearing in 2001.") == (2, 2, 0)
    assert fact_counts("The court did not hold a hearing in 2001.", "The court held a hearing.") == (2, 0, 0)
    assert fact_counts("The applicant was born in [REDACTED].", "The applicant was born in 1960.") == (0, 0, 1)
    res = document_paragraph_facts("He had two counts.\n\nThe court did not agree.",
                                   "He had one count.\n\nThe court did not agree.")
    assert res == {"facts_in": 2, "facts_kept": 1, "facts_new": 1, "n_paras": 2}
