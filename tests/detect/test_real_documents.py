"""Oracle comparisons on real (masked TAB / ECHR) documents, with both indexes."""
import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.detect import Detector

from .checks import check_against_oracle
from .echr import echr_slice
from .memindex import MemoryIndex


@pytest.fixture(scope="module")
def echr():
    collection, queries = echr_slice()
    return collection, queries, MemoryIndex(collection)


@pytest.fixture(scope="module")
def echr_ngram_index(echr, tmp_path_factory):
    from spacy_linkguard.index import NgramIndex

    collection, _, _ = echr
    records = [Record(id=i, text=t) for i, t in collection]
    return NgramIndex.build(records, tmp_path_factory.mktemp("echr") / "index", progress=False)


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("max_arity", [1, 2, 3])
def test_real_documents_match_oracle(echr, k, max_arity):
    _, queries, index = echr
    det = Detector(index, k=k, max_arity=max_arity)
    minimal = 0
    for _, text in queries:
        got = check_against_oracle(det, text, index.doc_keys)
        assert not got["safe"]
        minimal += sum(got["minimal"].values())
    if max_arity >= 2:
        assert minimal > 1000  # real documents: thousands of minimal combinations


def _without_time(res):
    data = res.to_dict()
    del data["report"]["seconds"]
    return data


@pytest.mark.parametrize("k", [2, 5])
def test_ngram_index_gives_the_same_detection(echr, echr_ngram_index, k):
    _, queries, memory = echr
    assert echr_ngram_index.doc_ids == memory.doc_ids or list(echr_ngram_index.doc_ids) == memory.doc_ids
    for _, text in queries:
        a = Detector(memory, k=k, max_arity=3).detect(text)
        b = Detector(echr_ngram_index, k=k, max_arity=3).detect(text)
        assert _without_time(a) == _without_time(b)
