"""Exactness at full scale: the whole bundled ECHR collection, real masked queries
of median size (~200 candidates, ~1M linkable triples), against a brute force
that intersects the posting lists of every pair and triple of candidates."""
from itertools import combinations

import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.detect import COMBO, Detector
from spacy_linkguard.ngrams import segment_ngrams, text_segments

from .echr import ASSETS

# A median query (201 candidates at k = 2, ~1.1M linkable triples) and a smaller one (127).
QUERY_IDS = ["001-84379", "001-94000"]


@pytest.fixture(scope="module")
def full_index(tmp_path_factory):
    from spacy_linkguard.index import NgramIndex

    return NgramIndex.build(iter_records(ASSETS / "collection.jsonl"), tmp_path_factory.mktemp("full") / "index",
                            progress=False)


def brute_force(index, text, k):
    settings = index.settings
    occ = {}
    for s, seg in enumerate(text_segments(text, settings)):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            occ[(s, i, n)] = key
    keys = sorted(set(occ.values()))
    df = dict(zip(keys, index.key_doc_freqs(keys).tolist()))
    frequent = {o for o, key in occ.items() if df[key] >= k}
    inside = {(s, j, m) for (s, i, n) in frequent for m in range(1, n) for j in range(i, i + n - m + 1)}
    candidates = sorted({occ[o] for o in frequent - inside})
    post = dict(zip(candidates, index.key_postings(candidates)))
    pairs = {c for c in combinations(candidates, 2) if 1 <= post[c[0]].intersection_cardinality(post[c[1]]) < k}
    triples = []
    for a, b, c in combinations(candidates, 3):
        if 1 <= (post[a] & post[b]).intersection_cardinality(post[c]) < k:
            triples.append((a, b, c))
    rare = {key for key in occ.values() if 1 <= df[key] < k}
    return candidates, pairs, triples, rare


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 5])
def test_full_collection_matches_brute_force(full_index, k):
    queries = {r.id: r.text for r in iter_records(ASSETS / "queries.jsonl")}
    det = Detector(full_index, k=k, max_arity=3)
    for qid in QUERY_IDS:
        text = queries[qid]
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
