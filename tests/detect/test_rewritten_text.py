"""Detection on rewritten text: words added that the original does not hold.

Maximal frequent N-grams then can contain new words, while a shorter piece of
them still singles out the original (SPEC.md "Combinations"). Every case is
compared with the brute-force oracle over x-maximal N-grams and, on small
texts, with every combination of ANY frequent N-grams of the text.
"""
import random

import pytest

from spacy_linkguard.detect import COMBO, Detector
from spacy_linkguard.rewrite.guarantee import redact_spans

from .checks import check_against_oracle
from .corpora import VOCAB, mask, random_corpus, random_text
from .memindex import MemoryIndex
from .oracle import oracle

TOY = ["alpha beta gamma. delta epsilon.", "beta gamma zeta.", "beta gamma omega.", "beta gamma omega kappa.",
       "delta epsilon iota."]


def test_the_counter_example_of_the_spec_is_unsafe_and_redaction_makes_it_safe():
    index = MemoryIndex([(f"d{i}", t) for i, t in enumerate(TOY)])
    det = Detector(index, k=2, max_arity=3)
    text = "beta gamma omega. delta epsilon."
    res = det.detect(text)
    assert not res.safe
    # D(beta gamma) & D(delta epsilon) = {d0}: "beta gamma omega" (in d2, d3) is
    # maximal, but "beta gamma" is d0-maximal.
    assert [(s.label, s.key) for s in res.spans] == [(COMBO, "beta gamma")]
    (example,) = res.spans[0].examples
    assert example["linked_ids"] == ["d0"] and example["partners"][0]["key"] == "delta epsilon"
    check_against_oracle(det, text, index.doc_keys, all_frequent=True)
    redacted, _ = redact_spans(text, [(s.start_char, s.end_char) for s in res.spans], "[REDACTED]")
    assert det.detect(redacted).safe
    assert oracle(redacted, index.doc_keys, index.settings, 2, 3).safe


def _insert_phrases(rng, text, phrases, n):
    words = text.split(" ")
    for _ in range(n):
        words.insert(rng.randrange(len(words) + 1), rng.choice(phrases))
    return " ".join(words)


def _splice(rng, text, donors, n):
    """Replace random word runs by N-grams cut out of other documents."""
    words = text.split(" ")
    for _ in range(n):
        donor = rng.choice(donors).split(" ")
        length = rng.randint(1, 4)
        at = rng.randrange(max(len(donor) - length, 0) + 1)
        piece = donor[at : at + length]
        here = rng.randrange(len(words) + 1)
        words[here : here + rng.randint(0, 2)] = piece
    return " ".join(words)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("span_cost", ["uniform", "weighted"])
def test_insertions_and_splices_match_oracle(seed, k, span_cost):
    rng = random.Random(seed)
    records = random_corpus(100 + seed, n_docs=14, lo=10, hi=26)
    index = MemoryIndex(records)
    texts = [t for _, t in records]
    extra = VOCAB + ["omega", "kappa", "iota"]
    queries = [
        _insert_phrases(rng, mask(rng, texts[0]), extra, 3),
        _insert_phrases(rng, texts[1], [random_text(rng, 2, extra, 0.0) for _ in range(4)], 4),
        _splice(rng, mask(rng, texts[2]), texts[3:], 3),
        _splice(rng, texts[4], texts[5:], 5),
    ]
    seen = {"unsafe": 0, "linkable": 0}
    for max_arity in (2, 3):
        det = Detector(index, k=k, max_arity=max_arity, span_cost=span_cost)
        for text in queries:
            got = check_against_oracle(det, text, index.doc_keys, all_frequent=True)
            seen["unsafe"] += not got["safe"]
            seen["linkable"] += got["linkable"]
    assert seen["unsafe"] and seen["linkable"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("span_cost", ["uniform", "weighted"])
def test_flagged_spans_redacted_leave_no_linkable_combination(seed, span_cost):
    # The hitting-set guarantee: after the flagged spans are redacted, no
    # combination of ANY frequent N-grams is linkable (one round suffices).
    rng = random.Random(seed)
    records = random_corpus(200 + seed, n_docs=12, lo=10, hi=24)
    index = MemoryIndex(records)
    det = Detector(index, k=2, max_arity=3, span_cost=span_cost)
    donors = [t for _, t in records[1:]]
    text = _splice(rng, _insert_phrases(rng, records[0][1], VOCAB, 3), donors, 3)
    res = det.detect(text)
    redacted, _ = redact_spans(text, [(s.start_char, s.end_char) for s in res.spans], "[REDACTED]")
    assert oracle(redacted, index.doc_keys, index.settings, 2, 3).safe
    check_against_oracle(det, redacted, index.doc_keys, all_frequent=True)
