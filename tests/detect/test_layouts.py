"""The detector gives the same verdicts and spans on every index layout:
full, pruned, and sharded (2 and 5 shards), at k 2 and 5."""
import random

import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex

from .corpora import mask, random_corpus, random_text
from .echr import echr_slice


def detections(index, texts, k):
    det = Detector(index, k=k, max_arity=3)
    out = []
    for text in texts:
        d = det.detect(text).to_dict()
        d["report"].pop("seconds", None)
        out.append(d)
    return out


def layouts(records, root):
    recs = [Record(id=i, text=t) for i, t in records]
    return {
        "full": NgramIndex.build(recs, root / "full", progress=False, full=True),
        "pruned": NgramIndex.build(recs, root / "pruned", progress=False),
        "sharded2": NgramIndex.build(recs, root / "s2", progress=False, shards=2),
        "sharded5": NgramIndex.build(recs, root / "s5", progress=False, shards=5),
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    records = random_corpus(3, n_docs=30)
    rng = random.Random(3)
    queries = [records[0][1], mask(rng, records[1][1]), mask(rng, records[2][1], 0.4), random_text(rng, 40),
               records[3][1] + " , " + records[4][1]]
    return layouts(records, tmp_path_factory.mktemp("gen")), queries


@pytest.fixture(scope="module")
def echr(tmp_path_factory):
    records, queries = echr_slice()
    return layouts(records, tmp_path_factory.mktemp("echr")), [t for _, t in queries]


@pytest.mark.parametrize("k", [2, 5])
def test_generated_corpus_same_detections(generated, k):
    indexes, queries = generated
    want = detections(indexes["full"], queries, k)
    assert any(not d["safe"] for d in want) and any(d["spans"] for d in want)
    for name in ("pruned", "sharded2", "sharded5"):
        assert detections(indexes[name], queries, k) == want, name


@pytest.mark.parametrize("k", [2, 5])
def test_bundled_echr_same_detections(echr, k):
    indexes, queries = echr
    want = detections(indexes["full"], queries, k)
    assert sum(len(d["spans"]) for d in want) > 10
    for name in ("pruned", "sharded2", "sharded5"):
        assert detections(indexes[name], queries, k) == want, name
