"""The source verdict (SPEC.md "Threat model"): a search links only when its
result set holds one of the text's source documents.

Every case is compared with the brute-force oracle under both verdicts, on
generated corpora: masked copies, text with inserted words, text spliced from
other documents, one source and several.
"""
import random

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.rewrite.guarantee import redact_spans

from .checks import check_against_oracle
from .corpora import VOCAB, mask, random_corpus
from .memindex import MemoryIndex
from .oracle import oracle
from .test_rewritten_text import _insert_phrases, _splice

TOY = ["alpha beta gamma. delta epsilon.", "beta gamma zeta.", "beta gamma omega.", "beta gamma omega kappa.",
       "delta epsilon iota.", "zeta eta theta.", "zeta eta theta iota."]


def _queries(rng, records):
    texts = [t for _, t in records]
    extra = VOCAB + ["omega", "kappa", "iota"]
    return [
        # (text, its sources)
        (mask(rng, texts[0]), ["d0"]),
        (_insert_phrases(rng, mask(rng, texts[1]), extra, 3), ["d1"]),
        (_splice(rng, mask(rng, texts[2]), texts[3:], 3), ["d2"]),
        (_splice(rng, texts[4], texts[5:], 5), ["d4"]),
        (mask(rng, texts[5]) + " , " + mask(rng, texts[6]), ["d5", "d6"]),  # two sources, one person
        (mask(rng, texts[7]), ["d8"]),  # a wrong source: only what d8 holds can link
    ]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("span_cost", ["uniform", "weighted"])
def test_both_verdicts_match_oracle(seed, k, span_cost):
    rng = random.Random(seed)
    records = random_corpus(300 + seed, n_docs=14, lo=10, hi=26)
    index = MemoryIndex(records)
    seen = {"source_unsafe": 0, "source_linkable": 0, "differ": 0}
    detectors = [Detector(index, k=k, max_arity=m, span_cost=span_cost) for m in (1, 2, 3)]
    detectors.append(Detector(index, k=k, max_arity=3, max_combos=2, span_cost=span_cost))  # streamed, in blocks of 2
    for det in detectors:
        for text, sources in _queries(rng, records):
            strict = check_against_oracle(det, text, index.doc_keys, all_frequent=True)
            got = check_against_oracle(det, text, index.doc_keys, all_frequent=True, sources=sources)
            # A source search is an any search too: source-unsafe implies any-unsafe.
            assert strict["safe"] <= got["safe"]
            seen["source_unsafe"] += not got["safe"]
            seen["source_linkable"] += got["linkable"]
            seen["differ"] += got["linkable"] != strict["linkable"] or got["safe"] != strict["safe"]
    # The corpora exercise what they test: linkage under source, and texts where the verdicts differ.
    assert seen["source_unsafe"] and seen["source_linkable"] and seen["differ"]


@pytest.mark.parametrize("seed", range(4))
def test_masked_text_verdicts_coincide(seed):
    # Every N-gram of a masked copy occurs in its source: both verdicts agree.
    rng = random.Random(seed)
    records = random_corpus(400 + seed, n_docs=16)
    index = MemoryIndex(records)
    det = Detector(index, k=2, max_arity=3)
    for i in range(6):
        text = mask(rng, records[i][1])
        assert det.detect(text, [records[i][0]]).safe == det.detect(text).safe


@pytest.mark.parametrize("seed", range(6))
def test_redacting_source_spans_makes_text_source_safe(seed):
    # One round of redaction is enough under source too (SPEC.md's argument,
    # with the witnesses restricted to the sources).
    rng = random.Random(seed)
    records = random_corpus(500 + seed, n_docs=12, lo=10, hi=24)
    index = MemoryIndex(records)
    det = Detector(index, k=2, max_arity=3)
    donors = [t for _, t in records[1:]]
    text = _splice(rng, _insert_phrases(rng, records[0][1], VOCAB, 3), donors, 3)
    res = det.detect(text, ["d0"])
    redacted, _ = redact_spans(text, [(s.start_char, s.end_char) for s in res.spans], "[REDACTED]")
    assert oracle(redacted, index.doc_keys, index.settings, 2, 3, sources={0}).safe
    check_against_oracle(det, redacted, index.doc_keys, all_frequent=True, sources=["d0"])


def test_linkage_to_other_documents_is_not_flagged_under_source():
    index = MemoryIndex([(f"d{i}", t) for i, t in enumerate(TOY)])
    det = Detector(index, k=2, max_arity=3)
    # A rewrite of d5 that borrowed d0's phrasing: "beta gamma" + "delta
    # epsilon" single out d0, which is not the person's document.
    text = "zeta eta. beta gamma omega. delta epsilon."
    strict, source = det.detect(text), det.detect(text, ["d5"])
    assert not strict.safe and [s.key for s in strict.spans] == ["beta gamma"]
    assert source.safe and source.spans == []
    assert source.report["verdict"] == "source" and source.report["sources"] == ["d5"]
    assert strict.report["verdict"] == "any" and strict.report["sources"] is None
    # With d0 among the sources the same search links.
    both = det.detect(text, ["d5", "d0"])
    assert not both.safe and [s.key for s in both.spans] == ["beta gamma"]
    assert both.spans[0].verdict == "source" and both.to_dict()["verdict"] == "source"
    # "kappa" is in d3 only: rare, and linking when d3 is a source.
    assert [s.key for s in det.detect("beta gamma omega kappa", ["d3"]).spans] == ["kappa"]
    assert det.detect("beta gamma omega kappa", ["d1"]).safe


@pytest.mark.parametrize("bad", ["d0", [], [0], ("d0", None), {"d0"}])
def test_malformed_sources_are_coded_errors(bad):
    det = Detector(MemoryIndex([(f"d{i}", t) for i, t in enumerate(TOY)]), k=2, max_arity=3)
    with pytest.raises(LinkguardError, match=r"\[E105\]"):
        det.detect("beta gamma", bad)


def test_unknown_source_ids_are_coded_errors():
    det = Detector(MemoryIndex([(f"d{i}", t) for i, t in enumerate(TOY)]), k=2, max_arity=3)
    with pytest.raises(LinkguardError, match=r"\[E106\] 2 source id\(s\).*'d9', 'x'"):
        det.detect("beta gamma", ["d1", "d9", "x"])


@pytest.mark.parametrize("seed", range(6))
def test_is_safe_is_the_oracles_verdict(seed):
    # is_safe stops at the first linking rare N-gram: the same answer as the
    # brute-force oracle, for texts unsafe by a rare N-gram, unsafe by a
    # combination only (rare N-grams redacted), and safe; both verdicts.
    rng = random.Random(seed)
    records = random_corpus(600 + seed, n_docs=14, lo=10, hi=26)
    index = MemoryIndex(records)
    numbers = {doc_id: i for i, (doc_id, _) in enumerate(records)}
    kinds = {"rare": 0, "combo_only": 0, "safe": 0}
    for k in (2, 3):
        one, three = Detector(index, k=k, max_arity=1), Detector(index, k=k, max_arity=3)
        for text, sources in _queries(rng, records):
            no_rare, _ = redact_spans(text, [(s.start_char, s.end_char) for s in one.detect(text).spans],
                                      "[REDACTED]")
            redacted, _ = redact_spans(text, [(s.start_char, s.end_char) for s in three.detect(text).spans],
                                       "[REDACTED]")
            for t in (text, no_rare, redacted):
                for src in (None, sources):
                    want = oracle(t, index.doc_keys, index.settings, k, 3,
                                  sources=None if src is None else {numbers[s] for s in src}).safe
                    assert three.is_safe(t, src) == want
                    assert one.is_safe(t, src) == one.analyze(t, src).safe
                    kinds["safe" if want else "rare" if three.analyze(t, src).linking_rare else "combo_only"] += 1
    assert all(kinds.values()), kinds
