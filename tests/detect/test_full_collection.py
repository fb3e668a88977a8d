"""Exactness at full scale: the whole bundled ECHR collection, real masked
queries, against a brute force that finds the x-maximal N-grams of every
document through every longer occurrence and intersects the posting lists of
every pair and triple of closed candidates."""
from itertools import combinations

import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.detect import COMBO, Detector
from spacy_linkguard.ngrams import segment_ngrams, text_segments

from .echr import ASSETS

# Real masked queries, cut so that every triple of closed candidates can be
# enumerated by brute force (a few hundred candidates each).
QUERIES = [("001-84379", 1000), ("001-94000", 1500)]


def brute_force(index, text, k, max_arity=3):
    """SPEC.md on the full index, as directly as possible: x-maximal N-grams via
    every longer containing occurrence, then every pair and triple of closed
    candidates intersected (documents as Python int bitsets)."""
    settings = index.settings
    occ = {}
    for s, seg in enumerate(text_segments(text, settings)):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            occ[(s, i, n)] = key
    keys = sorted(set(occ.values()))
    df = dict(zip(keys, index.key_doc_freqs(keys).tolist()))
    frequent = {o for o, key in occ.items() if df[key] >= k}
    fkeys = sorted({occ[o] for o in frequent})
    docs = {g: sum(1 << d for d in p) for g, p in zip(fkeys, index.key_postings(fkeys))}
    by_segment = {}
    for o in frequent:
        by_segment.setdefault(o[0], []).append(o)
    witness = {}
    for o in frequent:
        s, i, n = o
        longer = [p for p in by_segment[s] if p[2] > n and p[1] <= i and i + n <= p[1] + p[2]]
        covered = 0
        for p in longer:
            covered |= docs[occ[p]]
        mine = docs[occ[o]] & ~covered
        if mine:
            witness[occ[o]] = witness.get(occ[o], 0) | mine
    candidates = sorted(witness)
    pairs = {c for c in combinations(candidates, 2)
             if 1 <= (docs[c[0]] & docs[c[1]]).bit_count() < k and witness[c[0]] & witness[c[1]]}
    triples = []
    if max_arity >= 3:
        for a, b in combinations(candidates, 2):
            ab, wab = docs[a] & docs[b], witness[a] & witness[b]
            if not wab:
                continue
            for c in candidates[candidates.index(b) + 1:]:
                if 1 <= (ab & docs[c]).bit_count() < k and wab & witness[c]:
                    triples.append((a, b, c))
    rare = {key for key in occ.values() if 1 <= df[key] < k}
    return candidates, pairs, triples, rare


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 5])
def test_full_collection_matches_brute_force(full_index, k):
    queries = {r.id: r.text for r in iter_records(ASSETS / "queries.jsonl")}
    det = Detector(full_index, k=k, max_arity=3)
    for qid, chars in QUERIES:
        text = queries[qid][:chars]
        res = det.detect(text)
        candidates, pairs, triples, rare = brute_force(full_index, text, k)
        assert res.report["candidates"] == len(candidates) >= 100
        assert res.report["minimal_linkable"]["2"] == len(pairs)
        minimal3 = [t for t in triples if not any(p in pairs for p in combinations(t, 2))]
        assert res.report["minimal_linkable"]["3"] == len(minimal3) > 0
        chosen = {s.key for s in res.spans if s.label == COMBO}
        assert all(set(p) & chosen for p in pairs)
        assert all(set(t) & chosen for t in triples)  # every linkable triple, minimal or not
        assert res.safe is (not rare and not pairs and not triples)
