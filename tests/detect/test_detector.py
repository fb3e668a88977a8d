import random

import pytest

from spacy_linkguard.detect import COMBO, NGRAM, Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.ngrams import NgramSettings

from .checks import check_against_oracle
from .corpora import mask, random_corpus, random_text
from .memindex import MemoryIndex


@pytest.fixture(scope="module", params=[(0, 4), (1, 8), (2, 3)], ids=["seed0-n4", "seed1-n8", "seed2-n3"])
def corpus(request):
    seed, max_n = request.param
    records = random_corpus(seed)
    return seed, records, MemoryIndex(records, NgramSettings(max_n=max_n))


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("max_arity", [1, 2, 3])
def test_generated_corpora_match_oracle(corpus, k, max_arity):
    seed, records, index = corpus
    rng = random.Random(seed * 100 + k * 10 + max_arity)
    det = Detector(index, k=k, max_arity=max_arity)
    queries = [records[0][1], mask(rng, records[1][1]), mask(rng, records[2][1], 0.4), random_text(rng, 30)]
    queries.append(records[3][1] + " , " + records[4][1])  # two originals glued: pairs across them
    seen = {"linkable": 0, "minimal": 0, "unsafe": 0, "safe": 0}
    for text in queries:
        got = check_against_oracle(det, text, index.doc_keys)
        seen["linkable"] += got["linkable"]
        seen["minimal"] += sum(got["minimal"].values())
        seen["safe" if got["safe"] else "unsafe"] += 1
    # The corpora must exercise what they test.
    assert seen["unsafe"] > 0
    if max_arity >= 2:
        assert seen["linkable"] > 0


def test_triples_without_linkable_pairs_are_found():
    # Three phrases, each pair shared by >= 2 documents, all three only in d0.
    records = [
        ("d0", "red fox. blue sky. green tea"),
        ("d1", "red fox. blue sky"),
        ("d2", "blue sky. green tea"),
        ("d3", "red fox. green tea"),
        ("d4", "red fox. blue sky"),
        ("d5", "blue sky. green tea"),
        ("d6", "red fox. green tea"),
    ]
    index = MemoryIndex(records)
    text = "red fox. blue sky. green tea"
    res2 = Detector(index, k=2, max_arity=2).detect(text)
    assert res2.safe and res2.spans == []
    res3 = Detector(index, k=2, max_arity=3).detect(text)
    assert not res3.safe
    assert res3.report["minimal_linkable"] == {"1": 0, "2": 0, "3": 1}
    (span,) = res3.spans
    assert span.label == COMBO and span.n_broken == 1
    (example,) = span.examples
    assert example["size"] == 1 and example["linked_ids"] == ["d0"]
    assert sorted(p["key"] for p in example["partners"]) == sorted({"red fox", "blue sky", "green tea"} - {span.key})
    check_against_oracle(Detector(index, k=2, max_arity=3), text, index.doc_keys)


def test_empty_intersection_is_not_linkable():
    records = [("d0", "red fox"), ("d1", "red fox"), ("d2", "blue sky"), ("d3", "blue sky")]
    index = MemoryIndex(records)
    res = Detector(index, k=2, max_arity=3).detect("red fox. blue sky")
    assert res.safe and res.report["minimal_linkable"] == {"1": 0, "2": 0, "3": 0}


def test_rare_ngram_spans_shortest_first_non_overlapping():
    records = [("d0", "the court held that the applicant zorblax"), ("d1", "the court held that the applicant")]
    index = MemoryIndex(records)
    text = "The court held that the applicant zorblax"
    res = Detector(index, k=2, max_arity=1).detect(text)
    (span,) = res.spans
    assert (span.label, span.key, span.df, span.linked_ids) == (NGRAM, "zorblax", 1, ["d0"])
    assert text[span.start_char : span.end_char] == "zorblax"
    # Absent words link to nothing: not rare, and the text is safe without them.
    assert Detector(index, k=2, max_arity=3).detect("The court held qwerty").safe


def test_offsets_are_into_the_original_text():
    records = [("d0", "non-pecuniary damage of zorblax"), ("d1", "non-pecuniary damage")]
    index = MemoryIndex(records)
    text = "Non\u2011pecuniary damage \u201cZorblax\u201d"
    res = Detector(index, k=2).detect(text)
    (span,) = res.spans
    assert text[span.start_char : span.end_char] == "Zorblax"


def _redact(text, spans, placeholder):
    # COMBO spans may overlap each other (and NGRAM spans): merge them first,
    # then replace right to left so that earlier offsets stay valid.
    merged = []
    for start, end in sorted((s.start_char, s.end_char) for s in spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + f" {placeholder} " + text[end:]
    return text


def test_redacting_flagged_spans_moves_toward_safety(corpus):
    seed, records, index = corpus
    placeholder = index.settings.placeholder
    rng = random.Random(seed)
    for k in (2, 5):
        det = Detector(index, k=k, max_arity=3)
        text = mask(rng, records[5][1]) + " . " + records[6][1]
        res = det.detect(text)
        assert not res.safe and res.report["rare_minimal"] > 0
        # Every minimal rare occurrence overlaps a flagged span, and redacting only
        # shortens segments: after one pass no rare N-gram is left at all.
        text = _redact(text, res.spans, placeholder)
        res = det.detect(text)
        assert res.report["rare_minimal"] == 0
        rounds = 1
        while not res.safe:
            assert res.spans and all(s.label == "COMBO" for s in res.spans)
            text = _redact(text, res.spans, placeholder)
            res = det.detect(text)
            rounds += 1
            assert rounds <= 10, res.report
        got = check_against_oracle(det, text, index.doc_keys)
        assert got["safe"] and not got["linkable"]


def test_arguments_are_checked():
    index = MemoryIndex([("d0", "a b"), ("d1", "a b")])
    with pytest.raises(LinkguardError, match="E100"):
        Detector(index, k=1)
    with pytest.raises(LinkguardError, match="E101"):
        Detector(index, max_arity=4)
    with pytest.raises(LinkguardError, match="E102"):
        Detector(object())
    with pytest.raises(LinkguardError, match="E103"):
        Detector(index).detect(None)
    with pytest.raises(LinkguardError, match="E003"):
        Detector(index, settings=NgramSettings(max_n=5))


def test_detection_is_json_serializable():
    import json

    records = random_corpus(7)
    index = MemoryIndex(records)
    res = Detector(index, k=2).detect(records[0][1])
    data = json.loads(json.dumps(res.to_dict()))
    assert data["safe"] is False and data["spans"] and "seconds" in data["report"]
