"""Pair and triple enumeration and the hitting set, against brute force on random postings."""
from itertools import combinations

import numpy as np
import pytest

from spacy_linkguard.detect.combos import build_incidence, minimal_triples, scan_pairs
from spacy_linkguard.detect.hitting import greedy_hitting_set


def random_postings(rng, n_cand, n_docs, density):
    out = []
    for _ in range(n_cand):
        docs = np.nonzero(rng.random(n_docs) < density)[0]
        out.append(docs if len(docs) else np.array([rng.integers(n_docs)]))
    return out


def random_witnesses(rng, postings, share):
    """A random subset of each posting list (the documents a candidate is x-maximal for)."""
    return [p[rng.random(len(p)) < share] for p in postings]


def brute(postings, witnesses, k):
    """Linkable pairs and minimal linkable triples whose members share a witness."""
    sets = [set(p.tolist()) for p in postings]
    wit = [set(w.tolist()) for w in witnesses]
    n = len(sets)
    pairs = {(a, b): len(sets[a] & sets[b]) for a, b in combinations(range(n), 2)}
    linkable2 = {p for p, s in pairs.items() if 1 <= s < k}
    triples = {}
    for t in combinations(range(n), 3):
        s = len(sets[t[0]] & sets[t[1]] & sets[t[2]])
        if 1 <= s < k and not any(p in linkable2 for p in combinations(t, 2)) and wit[t[0]] & wit[t[1]] & wit[t[2]]:
            triples[t] = s
    return {p: pairs[p] for p in linkable2 if wit[p[0]] & wit[p[1]]}, triples


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("share", [1.0, 0.5, 0.2])
def test_pairs_and_triples_match_brute_force(seed, k, share):
    rng = np.random.default_rng(seed)
    postings = random_postings(rng, n_cand=int(rng.integers(5, 30)), n_docs=int(rng.integers(5, 40)),
                               density=float(rng.uniform(0.1, 0.6)))
    witnesses = random_witnesses(rng, postings, share)
    inc = build_incidence(postings, witnesses, 2)
    scan = scan_pairs(inc, k, block=8)  # several column blocks
    pairs, psizes = scan.pairs, scan.sizes
    triples, tsizes = minimal_triples(inc.restrict(3), scan, k)
    want_pairs, want_triples = brute(postings, witnesses, k)
    assert {tuple(p): int(s) for p, s in zip(pairs.tolist(), psizes)} == want_pairs
    got = {tuple(sorted(t)): int(s) for t, s in zip(triples.tolist(), tsizes)}
    assert len(got) == len(triples)  # each triple once
    assert got == want_triples


@pytest.mark.parametrize("seed", range(10))
def test_hitting_set_hits_everything_and_keeps_no_redundant_pick(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 25))
    pairs = np.unique(np.sort(rng.integers(0, n, size=(int(rng.integers(0, 40)), 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    triples = np.sort(rng.integers(0, n, size=(int(rng.integers(0, 40)), 3)), axis=1)
    triples = triples[(triples[:, 0] != triples[:, 1]) & (triples[:, 1] != triples[:, 2])]
    hs = greedy_hitting_set(n, [pairs, triples])
    chosen = set(hs.chosen)
    combos = [set(p) for p in pairs.tolist()] + [set(t) for t in triples.tolist()]
    assert all(c & chosen for c in combos)
    for x in chosen:  # irredundant: each pick is the only pick in some combination
        assert any(c & chosen == {x} for c in combos)
    assert hs.totals.tolist() == [sum(x in c for c in combos) for x in range(n)]
    if combos:  # the first greedy pick is a candidate in most combinations (if it survived)
        assert len(chosen) <= len(combos)


def test_greedy_beats_taking_every_shortest_member():
    # A star: one candidate in every pair. The greedy rule takes just the centre.
    pairs = np.array([[0, j] for j in range(1, 8)])
    hs = greedy_hitting_set(8, [pairs, np.zeros((0, 3), dtype=np.int64)])
    assert hs.chosen == [0] and hs.totals[0] == 7
