"""The BM25 attacker against a brute-force BM25 written out here (Lucene's
variant, as bm25s's method "lucene": idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
weight tf / (tf + k1 (1 - b + b |d| / avgdl)), k1 = 1.5, b = 0.75, the
query's distinct words), on documents tokenized by a plain regex."""
import math
import random
import re

import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex

pytest.importorskip("bm25s")

from spacy_linkguard.attack import BM25Attacker, bm25_attacker, source_rank  # noqa: E402

WORDS = ("court applicant government article convention violation detention police prison "
         "judgment appeal hearing witness lawyer father mother property land tax fine "
         "ankara vienna london warsaw madrid rome berlin paris athens sofia").split()


def words_of(text):
    # The test corpus has only lowercase ASCII words and full stops: the index's
    # tokenization of it is this regex (checked below against the index itself).
    return re.findall(r"[a-z]+", text.lower())


def brute_force_scores(docs, query, k1=1.5, b=0.75):
    toks = [words_of(d) for d in docs]
    n = len(toks)
    avgdl = sum(len(t) for t in toks) / n
    df = {}
    for t in toks:
        for w in set(t):
            df[w] = df.get(w, 0) + 1
    scores = []
    for t in toks:
        s = 0.0
        for w in sorted(set(words_of(query))):
            if w not in df:
                continue
            tf = t.count(w)
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            s += idf * tf / (tf + k1 * (1 - b + b * len(t) / avgdl))
        scores.append(s)
    return scores


def brute_force_rank(scores, source):
    return 1 + sum(1 for s in scores if s > scores[source] + 1e-9 * max(1.0, abs(scores[source])))


@pytest.fixture(scope="module")
def corpus():
    rng = random.Random(7)
    docs = []
    for i in range(40):
        n = rng.randint(5, 60)
        sents = [" ".join(rng.choice(WORDS[: rng.randint(3, len(WORDS))]) for _ in range(rng.randint(3, 9)))
                 for _ in range(max(1, n // 8))]
        docs.append(". ".join(sents) + ".")
    docs.append(docs[3])  # a duplicate: a tie with document 3
    return docs


@pytest.fixture(scope="module", params=["pruned", "sharded"])
def index(request, corpus, tmp_path_factory):
    recs = [Record(id=f"d{i}", text=t) for i, t in enumerate(corpus)]
    root = tmp_path_factory.mktemp(request.param)
    return NgramIndex.build(recs, root / "idx", progress=False, n_process=1,
                            shards=2 if request.param == "sharded" else None)


def test_the_attacker_tokenizes_as_the_index(index, corpus):
    att = BM25Attacker.from_index(index)
    from spacy_linkguard.attack.bm25 import index_documents

    docs, words = index_documents(index)
    for i, text in enumerate(corpus):
        assert sorted(words[t] for t in docs[i]) == sorted(words_of(text))
    assert att.n_docs == len(corpus)


def test_ranks_agree_with_brute_force_bm25(index, corpus):
    att = BM25Attacker.from_index(index)
    rng = random.Random(11)
    queries = []
    for i in range(len(corpus)):
        toks = words_of(corpus[i])
        kept = [w for w in toks if rng.random() < 0.5] or toks[:1]
        queries.append((i, " ".join(kept) + " [REDACTED] unseenword"))
    queries.append((5, "nothing here matches"))
    for source, q in queries:
        expected = brute_force_scores(corpus, q)
        got = att.scores(q)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert att.rank(q, [source]) == brute_force_rank(expected, source)
    # The duplicate of document 3 ties with it: both rank as the better of the two.
    q = corpus[3]
    assert att.rank(q, [3]) == att.rank(q, [len(corpus) - 1]) == 1


def test_best_of_several_sources_and_none_without():
    scores = __import__("numpy").array([0.5, 2.0, 1.0, 2.0])
    assert source_rank(scores, [0]) == 4
    assert source_rank(scores, [2]) == 3
    assert source_rank(scores, [0, 2]) == 3
    assert source_rank(scores, [3]) == 1  # tied with document 1: the tie favours the source
    assert source_rank(scores, []) is None


def test_cached_per_index(index):
    assert bm25_attacker(index) is bm25_attacker(index)


def test_full_layout_is_refused(tmp_path, corpus):
    idx = NgramIndex.build([Record(id="a", text=corpus[0])], tmp_path / "full", progress=False, n_process=1,
                           full=True)
    with pytest.raises(LinkguardError, match="E045"):
        BM25Attacker.from_index(idx)
