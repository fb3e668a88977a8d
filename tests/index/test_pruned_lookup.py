"""Keys that are not rows of a pruned index (pruned_lookup.resolve_misses), in
the orders and mixes the bulk steps see: hinted runs, tokens found nowhere at
either end or in the middle, malformed keys; checked against brute force."""
import random

import numpy as np
import pytest

from spacy_linkguard.index import NgramIndex
from spacy_linkguard.index.pruned_lookup import forward_hints, resolve_misses
from spacy_linkguard.ngrams import NgramSettings, segment_ngrams, text_segments

from .oracle import oracle, random_corpus


def detector_order_keys(docs, settings, rng):
    """Each document's N-grams left to right (as the detector asks), with keys
    extended, prefixed or split by a token found nowhere, and malformed ones."""
    keys = []
    for d in docs:
        for seg in text_segments(d["text"], settings):
            for _, _, key in segment_ngrams(seg, settings.max_n):
                keys.append(key)
                r = rng.random()
                if r < 0.2:
                    keys.append(key + " zzqx")
                elif r < 0.3:
                    keys.append("zzqx " + key)
                elif r < 0.4 and " " in key:
                    a, b = key.split(" ", 1)
                    keys.append(a + " zzqx " + b)  # middle token found nowhere; its ends are found
                    # (and "zzqx" is the end token of another key: the old code raised KeyError here)
                    keys.append("qqzx zzqx")
                elif r < 0.45:
                    keys.append(key + " " + key)
    keys += ["", " ", "a  b", " the", "the ", "the  court", "the court "]
    return keys


@pytest.mark.parametrize("seed,max_n", [(0, 8), (1, 3), (4, 4)])
def test_absent_tokens_and_hints_match_oracle(tmp_path, seed, max_n):
    docs = random_corpus(seed=seed, n_docs=50)
    settings = NgramSettings(max_n=max_n)
    idx = NgramIndex.build(docs, tmp_path / "p", max_n=max_n, progress=False)
    post = oracle([d["text"] for d in docs], settings)
    rng = random.Random(seed)
    keys = detector_order_keys(docs, settings, rng)
    want = [len(post.get(k, ())) for k in keys]
    assert idx.key_doc_freqs(keys).tolist() == want
    shuffled = keys[:]
    rng.shuffle(shuffled)
    assert idx.key_doc_freqs(shuffled).tolist() == [len(post.get(k, ())) for k in shuffled]
    # resolve_misses directly: with forward hints, with none, and with wrong hints
    ids = idx.key_ids(keys)
    miss = np.flatnonzero(ids < 0)
    misses = [keys[i] for i in miss.tolist()]
    expect = [post[k][0] if len(post.get(k, ())) == 1 else -1 for k in misses]
    hints = forward_hints(idx._states(ids))[miss]
    for h in (hints, None, np.zeros(len(miss), dtype=np.int64), np.full(len(miss), -1, dtype=np.int64)):
        got = resolve_misses(misses, idx._key_states, idx._docs, max_n, h)
        assert got.dtype == np.int64 and got.tolist() == expect
    assert resolve_misses([], idx._key_states, idx._docs, max_n, np.zeros(0, np.int64)).tolist() == []


@pytest.mark.parametrize("full", [False, True])
def test_key_doc_freqs_and_docs(tmp_path, full):
    """The df-1 documents `key_doc_freqs_and_docs` gives (the detector's flagged
    spans use them instead of reading posting lists) are those of `key_posting_arrays`."""
    docs = random_corpus(seed=7, n_docs=40)
    settings = NgramSettings(max_n=4)
    idx = NgramIndex.build(docs, tmp_path / "i", max_n=4, progress=False, full=full)
    keys = detector_order_keys(docs, settings, random.Random(7))
    df, single = idx.key_doc_freqs_and_docs(keys)
    assert df.dtype == single.dtype == np.int64
    assert df.tolist() == idx.key_doc_freqs(keys).tolist()
    post = idx.key_posting_arrays(keys)
    assert single.tolist() == [int(p[0]) if len(p) == 1 else -1 for p in post]
    assert (single >= 0).any() and (df >= 2).any()


@pytest.mark.parametrize("max_n", [2, 4, 8])
def test_contains_is_membership_in_the_documents_ngram_set(tmp_path, max_n):
    """`DocTokens.contains(doc)` (a substring search in the document's joined
    tokens) answers as the set of the document's N-grams of 2..max_n tokens
    within a segment, built by brute force from its text: for every document,
    its own N-grams, those of the other documents, keys across a segment
    boundary, keys one token too long, single tokens and malformed keys."""
    docs = random_corpus(seed=11, n_docs=30)
    settings = NgramSettings(max_n=max_n)
    idx = NgramIndex.build(docs, tmp_path / "c", max_n=max_n, progress=False)
    rng = random.Random(max_n)
    per_doc = []
    for d in docs:
        segs = [seg.keys for seg in text_segments(d["text"], settings)]
        own = {" ".join(seg[i : i + n]) for seg in segs for n in range(2, max_n + 1) for i in range(len(seg) - n + 1)}
        across = []
        for s1, s2 in zip(segs, segs[1:]):
            if s1 and s2:
                across.append(f"{s1[-1]} {s2[0]}")
        longer = [" ".join(seg[i : i + max_n + 1]) for seg in segs for i in range(len(seg) - max_n)]
        per_doc.append((own, across, longer, [t for seg in segs for t in seg[:3]]))
    every = sorted(set().union(*(own for own, _, _, _ in per_doc)))
    malformed = ["", " ", "a  b", " the", "the ", "the\ncourt", "the court "]
    n_true = n_false = 0
    for doc_no, (own, across, longer, singles) in enumerate(per_doc):
        has = idx._docs.contains(doc_no)
        keys = sorted(own) + rng.sample(every, min(200, len(every))) + across + longer + singles + malformed
        for key in keys:
            want = key in own
            assert has(key) == want, (doc_no, key)
            n_true += want
            n_false += not want
        # a key across a segment boundary is never an N-gram (unless it occurs inside a segment too)
        assert all(has(k) == (k in own) for k in across)
    assert n_true > 100 and n_false > 100
