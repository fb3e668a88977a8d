"""The bounded-memory path: a small `max_combos` forces the combinations to be
streamed one witness document at a time (`detect/streamed.py`). Its spans
must be exactly as safe as the in-memory ones: every minimal linkable
combination hit, checked against the brute-force oracle."""
import random
from itertools import combinations

import numpy as np
import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.detect.docbits import doc_bits
from spacy_linkguard.detect.streamed import streamed_hits
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.guarantee import redact_spans

from .checks import check_against_oracle
from .corpora import VOCAB, mask, random_corpus, random_text
from .echr import echr_slice
from .memindex import MemoryIndex
from .oracle import oracle
from .test_combos import brute, random_postings, random_witnesses


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("block", [1, 3, 50])
def test_streamed_hits_every_minimal_combination(seed, k, block):
    rng = np.random.default_rng(seed)
    postings = random_postings(rng, n_cand=int(rng.integers(5, 30)), n_docs=int(rng.integers(5, 40)),
                               density=float(rng.uniform(0.1, 0.6)))
    witnesses = random_witnesses(rng, postings, float(rng.choice([1.0, 0.5])))
    bits = doc_bits(list(postings) + list(witnesses))
    n = len(postings)
    post, wit = bits.take(np.arange(n)), bits.take(np.arange(n, 2 * n))
    hits = streamed_hits(post, wit, k, 3, block=block, n_examples=2)
    want_pairs, want_triples = brute(postings, witnesses, k)
    minimal = [set(c) for c in list(want_pairs) + list(want_triples)]
    chosen = set(hits.chosen)
    assert all(c & chosen for c in minimal)
    assert not hits.exact and hits.counts.get(2, 0) <= len(want_pairs) and hits.counts.get(3, 0) <= len(want_triples)
    assert (hits.n_combinations == 0) == (not minimal)
    every = {**want_pairs, **want_triples}
    for c, n_broken, examples in zip(hits.chosen, hits.n_broken, hits.examples):
        assert 0 < n_broken <= sum(c in m for m in minimal)
        assert examples and len(examples) <= 2
        for members, size in examples:  # each example is a minimal linkable combination holding c
            assert c in members and every[tuple(sorted(members))] == size
    assert len(chosen) == len(hits.chosen)


@pytest.fixture(scope="module", params=[(0, 4), (1, 8)], ids=["seed0-n4", "seed1-n8"])
def corpus(request):
    seed, max_n = request.param
    records = random_corpus(seed)
    return seed, records, MemoryIndex(records, NgramSettings(max_n=max_n))


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("max_arity", [2, 3])
@pytest.mark.parametrize("budget", [1, 7])
@pytest.mark.parametrize("span_cost", ["uniform", "weighted"])
def test_small_budget_streams_and_matches_oracle(corpus, k, max_arity, budget, span_cost):
    seed, records, index = corpus
    rng = random.Random(seed * 100 + k * 10 + max_arity)
    det = Detector(index, k=k, max_arity=max_arity, max_combos=budget, span_cost=span_cost)
    queries = [records[0][1], mask(rng, records[1][1]), records[3][1] + " , " + records[4][1],
               random_text(rng, 30)]
    streamed = 0
    for text in queries:
        got = check_against_oracle(det, text, index.doc_keys)
        res = det.analyze(text)
        streamed += res.streamed
        assert res.streamed == (sum(got["minimal"].values()) > budget)
    assert streamed  # the budget did force the streamed path


def test_small_budget_on_real_documents(tmp_path):
    collection, queries = echr_slice()
    index = MemoryIndex(collection)
    for k in (2, 5):
        det = Detector(index, k=k, max_arity=3, max_combos=500)
        for _, text in queries[:2]:
            assert det.analyze(text).streamed
            got = check_against_oracle(det, text, index.doc_keys)
            assert not got["safe"]


@pytest.mark.parametrize("seed", range(4))
def test_streamed_spans_redacted_leave_nothing_linkable(seed):
    # One round of redaction of the streamed spans is enough, as for the
    # in-memory ones (SPEC.md "Why one round of redaction is enough").
    rng = random.Random(seed)
    records = random_corpus(300 + seed, n_docs=12, lo=10, hi=24)
    index = MemoryIndex(records)
    words = records[0][1].split(" ")
    for _ in range(3):
        words.insert(rng.randrange(len(words) + 1), rng.choice(VOCAB))
    text = " ".join(words) + " . " + records[1][1]
    det = Detector(index, k=2, max_arity=3, max_combos=2)
    res = det.detect(text)
    assert res.report["counts_exact"] is False
    check_against_oracle(det, text, index.doc_keys, all_frequent=True)
    redacted, _ = redact_spans(text, [(s.start_char, s.end_char) for s in res.spans], "[REDACTED]")
    assert oracle(redacted, index.doc_keys, index.settings, 2, 3).safe


def test_a_large_budget_keeps_the_in_memory_answer():
    records = random_corpus(9)
    index = MemoryIndex(records)
    text = records[2][1] + " , " + records[5][1]
    default = Detector(index, k=2, max_arity=3).detect(text)
    assert default.report["counts_exact"] is True and not default.safe
    big = Detector(index, k=2, max_arity=3, max_combos=10**9).detect(text)
    for res in (default, big):
        del res.report["seconds"]
    assert default.to_dict() == big.to_dict()


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "10"])
def test_budget_is_checked(value):
    with pytest.raises(LinkguardError, match="E104"):
        Detector(MemoryIndex([("d0", "a b"), ("d1", "a b")]), max_combos=value)


def test_every_pair_of_a_clique_is_hit_with_a_tiny_budget():
    # Ten phrases, each pair in exactly one document (k = 2: every pair links),
    # all ten x-maximal for each of those documents: a clique of 45 pairs.
    # A cover needs 9 of the 10; streamed with one pair at a time it still is one.
    phrases = [f"{w} {v}" for w, v in zip(VOCAB + ["omega", "kappa", "iota", "rho"], range(10))]
    docs = []
    for a, b in combinations(range(10), 2):
        docs.append((f"d{a}{b}", f"{phrases[a]} . {phrases[b]}"))
    index = MemoryIndex(docs)
    text = " . ".join(phrases)
    for budget in (1, 10**6):
        det = Detector(index, k=2, max_arity=2, max_combos=budget)
        res = det.detect(text)
        check_against_oracle(det, text, index.doc_keys)
        assert len({s.key for s in res.spans}) == 9
