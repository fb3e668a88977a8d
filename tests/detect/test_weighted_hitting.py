"""The weighted greedy hitting set (`greedy_hitting_set(..., costs=...)`) against
a brute-force cheapest hitting set on tiny random instances, and the
detector's span_cost setting (its exactness against the oracle is checked
with the others: test_source_verdict, test_streamed, test_rewritten_text)."""
import random
from itertools import combinations

import numpy as np
import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.detect.detector import candidate_costs
from spacy_linkguard.detect.hitting import greedy_hitting_set
from spacy_linkguard.errors import LinkguardError

from .corpora import mask, random_corpus
from .memindex import MemoryIndex


def random_combos(rng, n):
    """Distinct pairs and triples of candidates 0..n-1 (sorted rows)."""
    blocks = []
    for arity in (2, 3):
        rows = np.sort(rng.integers(0, n, size=(int(rng.integers(0, 30)), arity)), axis=1)
        rows = rows[(np.diff(rows, axis=1) > 0).all(axis=1)]
        blocks.append(np.unique(rows, axis=0) if len(rows) else rows.reshape(0, arity))
    return blocks


def sets_of(blocks):
    return [set(r) for b in blocks for r in b.tolist()]


def cheapest(n, combos, costs):
    """The cost of a cheapest hitting set, by trying every subset."""
    best = float("inf")
    for size in range(n + 1):
        for pick in combinations(range(n), size):
            chosen = set(pick)
            if all(c & chosen for c in combos):
                best = min(best, float(costs[list(pick)].sum()))
    return best


def harmonic(d):
    return sum(1.0 / i for i in range(1, d + 1))


@pytest.mark.parametrize("seed", range(20))
def test_weighted_greedy_hits_everything_within_the_harmonic_bound(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 11))
    blocks = random_combos(rng, n)
    costs = rng.choice([1.0, 2.0, 5.0, 40.0, 300.0], size=n) * rng.uniform(0.5, 1.5, size=n)
    hs = greedy_hitting_set(n, blocks, costs=costs)
    combos = sets_of(blocks)
    chosen = set(hs.chosen)
    assert len(chosen) == len(hs.chosen)
    assert all(c & chosen for c in combos)
    for x in chosen:  # irredundant, as the unweighted one
        assert any(c & chosen == {x} for c in combos)
    if combos:
        d = int(hs.totals.max())
        got = float(costs[hs.chosen].sum())
        assert got <= harmonic(d) * cheapest(n, combos, costs) + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_unit_costs_give_the_unweighted_picks(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 40))
    blocks = random_combos(rng, n)
    plain = greedy_hitting_set(n, blocks)
    for scale in (1.0, 7.5):  # only the ratios matter
        unit = greedy_hitting_set(n, blocks, costs=np.full(n, scale))
        assert unit.chosen == plain.chosen and unit.dropped == plain.dropped


def test_a_costly_common_candidate_gives_way_to_cheap_rare_ones():
    # Candidate 0 is in every pair (the unweighted pick); 1..6 are each in one
    # and together hit them all. At cost 100 against 1, six cheap picks win.
    pairs = np.array([[0, j] for j in range(1, 7)])
    assert greedy_hitting_set(7, [pairs]).chosen == [0]
    costs = np.array([100.0] + [1.0] * 6)
    hs = greedy_hitting_set(7, [pairs], costs=costs)
    assert hs.chosen == [1, 2, 3, 4, 5, 6]
    # ...but not at any price: at cost 5 the common one is cheaper than six.
    costs[0] = 5.0
    assert greedy_hitting_set(7, [pairs], costs=costs).chosen == [0]


def test_reverse_delete_drops_the_costliest_redundant_pick():
    # The weighted greedy picks 3, 1, 4, 0, 2; then 1 (cost 3) and 4 (cost 2)
    # are each redundant, not both. Latest first would drop 4; costliest
    # first drops 1.
    pairs = np.array([[0, 1], [0, 5], [0, 6], [1, 2], [1, 4], [2, 4], [2, 5], [3, 5], [3, 6]])
    costs = np.array([5.0, 3.0, 5.0, 1.0, 2.0, 5.0, 3.0])
    hs = greedy_hitting_set(7, [pairs], costs=costs)
    assert hs.chosen == [3, 4, 0, 2] and hs.dropped == 1
    assert all(set(p) & set(hs.chosen) for p in pairs.tolist())


@pytest.mark.parametrize("value", ["cheap", "", None, 1, "Weighted"])
def test_a_bad_span_cost_is_an_error(value):
    index = MemoryIndex(random_corpus(0, n_docs=4))
    with pytest.raises(LinkguardError, match="E330"):
        Detector(index, span_cost=value)


def test_weighted_detection_is_within_the_bound_of_the_uniform_cost():
    # Same combinations, other picks. The uniform picks are a hitting set, so
    # the cheapest costs at most theirs, and the weighted greedy at most
    # H(d) times that. "uniform" is the default detector exactly.
    records = random_corpus(7, n_docs=20)
    index = MemoryIndex(records)
    rng = random.Random(7)
    uniform, weighted, default = (Detector(index, span_cost="uniform"), Detector(index, span_cost="weighted"),
                                  Detector(index))
    differ = 0
    for _, text in records[:6]:
        text = mask(rng, text)
        a, b = uniform.analyze(text), weighted.analyze(text)
        assert default.detect(text).spans == uniform.detect(text).spans
        if a.hits is None or not a.hits.chosen:
            continue
        assert a.hits.counts == b.hits.counts
        occ = np.array([len(o) for o in a.candidate_occurrences])
        cost = candidate_costs(occ, a.candidate_df)
        d = int(np.bincount(np.concatenate([a.pairs.ravel(), a.triples.ravel()])).max())  # combos of one candidate
        assert cost[b.hits.chosen].sum() <= harmonic(d) * cost[a.hits.chosen].sum()
        differ += sorted(a.hits.chosen) != sorted(b.hits.chosen)
    assert differ
