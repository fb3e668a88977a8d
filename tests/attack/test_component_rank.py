"""The `linkguard` component's `rank` setting: `doc._.linkguard_rank` of each Doc
with sources. BM25 ranks are checked against the brute-force BM25 of
test_bm25.py; the embedding rank against a brute-force cosine ranking, with
a bag-of-words embedder standing in for the model (and, marked slow, the real
all-MiniLM-L6-v2 against its own embeddings ranked by hand)."""
import random

import numpy as np
import pytest
import spacy

from spacy_linkguard.corpus import Record
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex

from .test_bm25 import WORDS, brute_force_rank, brute_force_scores, words_of

pytest.importorskip("bm25s")


def make_corpus(seed=5, n=24):
    rng = random.Random(seed)
    docs = {}
    for i in range(n):
        sents = [" ".join(rng.choice(WORDS[: rng.randint(4, len(WORDS))]) for _ in range(rng.randint(3, 9)))
                 for _ in range(rng.randint(1, 5))]
        docs[f"doc{i}"] = ". ".join(sents) + "."
    return docs


@pytest.fixture(scope="module")
def collection():
    return make_corpus()


@pytest.fixture(scope="module")
def index_dir(collection, tmp_path_factory):
    path = tmp_path_factory.mktemp("rank") / "index"
    NgramIndex.build([Record(id=i, text=t) for i, t in collection.items()], path, progress=False, n_process=1)
    return path


@pytest.fixture(scope="module")
def queries(collection):
    """(text, sources): each a half of a document's words, its sources that document and
    sometimes another one; the last ones without sources."""
    rng = random.Random(9)
    ids = list(collection)
    out = []
    for n, (doc_id, text) in enumerate(collection.items()):
        kept = [w for w in words_of(text) if rng.random() < 0.5] or words_of(text)[:1]
        sources = [doc_id] if n % 3 else [doc_id, rng.choice(ids)]
        out.append((" ".join(kept) + " [REDACTED].", sources))
    out.append(("court fine london.", None))
    return out


def bm25_oracle(collection, text, sources):
    docs, ids = list(collection.values()), list(collection)
    scores = brute_force_scores(docs, text)
    return min(brute_force_rank(scores, ids.index(s)) for s in sources)


def make_nlp(index_dir, **cfg):
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index_dir), **cfg})
    return nlp


def with_sources(nlp, text, sources):
    doc = nlp.make_doc(text)
    doc._.linkguard_sources = sources
    return doc


def test_bm25_ranks_of_docs_with_sources(index_dir, collection, queries):
    nlp = make_nlp(index_dir, rank=True, rank_model=None)
    docs = [nlp(with_sources(nlp, t, s)) for t, s in queries]
    for doc, (text, sources) in zip(docs, queries):
        if sources is None:
            assert doc._.linkguard_rank is None
            continue
        assert doc._.linkguard_rank == {"bm25": bm25_oracle(collection, text, sources), "embedding": None,
                                        "sources": sources}
    ranks = [d._.linkguard_rank["bm25"] for d in docs if d._.linkguard_rank]
    assert 1 in ranks and any(r > 1 for r in ranks)  # the check can tell ranks apart
    # nlp.pipe gives the same.
    piped = list(nlp.pipe([with_sources(nlp, t, s) for t, s in queries]))
    assert [d._.linkguard_rank for d in piped] == [d._.linkguard_rank for d in docs]
    # Ranking changes nothing of the detection.
    plain = make_nlp(index_dir)
    for doc, (text, sources) in zip(docs, queries):
        other = plain(with_sources(plain, text, sources))
        assert [(s.start_char, s.end_char, s.label_) for s in doc.spans["linkguard"]] == [
            (s.start_char, s.end_char, s.label_) for s in other.spans["linkguard"]]
        assert other._.linkguard_rank is None  # rank is off by default


def test_rank_off_builds_no_attacker(index_dir, queries):
    nlp = make_nlp(index_dir)
    comp = nlp.get_pipe("linkguard")
    assert comp.cfg["rank"] is False
    text, sources = queries[0]
    assert nlp(with_sources(nlp, text, sources))._.linkguard_rank is None
    assert comp._rankers is None


class BagOfWords:
    """A stand-in embedder: unit word-count vectors over WORDS (no model needed)."""

    def embed(self, texts, truncate=False):
        vecs = np.array([[words_of(t).count(w) for w in WORDS] for t in texts], dtype=np.float64)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vecs / norms


def cosine_oracle(collection, text, sources):
    """Best 1-based rank of `sources` by cosine of word counts, ties favouring the source."""
    def vec(t):
        return [words_of(t).count(w) for w in WORDS]

    def cos(a, b):
        na, nb = sum(x * x for x in a) ** 0.5, sum(x * x for x in b) ** 0.5
        return 0.0 if not na or not nb else sum(x * y for x, y in zip(a, b)) / (na * nb)

    ids = list(collection)
    q = vec(text)
    scores = [cos(q, vec(collection[i])) for i in ids]
    return min(brute_force_rank(scores, ids.index(s)) for s in sources)


def test_embedding_rank_built_once_per_component(index_dir, collection, queries, monkeypatch):
    from spacy_linkguard.attack.embedding import EmbeddingAttacker
    from spacy_linkguard.pipeline import factories

    built = []

    def fake_embedding_attacker(index, model):
        built.append(model)
        # The collection as the index stores it (document numbers are the index's).
        texts = [collection[d] for d in index.doc_ids]
        return EmbeddingAttacker(BagOfWords(), BagOfWords().embed(texts))

    monkeypatch.setattr(factories, "embedding_attacker", fake_embedding_attacker)
    nlp = make_nlp(index_dir, rank=True, rank_model="my-model")
    assert built == []  # on first use (or at initialize)
    for text, sources in queries:
        doc = nlp(with_sources(nlp, text, sources))
        if sources is None:
            assert doc._.linkguard_rank is None
            continue
        assert doc._.linkguard_rank == {"bm25": bm25_oracle(collection, text, sources),
                                        "embedding": cosine_oracle(collection, text, sources), "sources": sources}
    assert built == ["my-model"]
    # "none" means the BM25 rank only, as `detect --rank-model none`.
    nlp = make_nlp(index_dir, rank=True, rank_model="none")
    text, sources = queries[1]
    assert nlp(with_sources(nlp, text, sources))._.linkguard_rank["embedding"] is None
    assert built == ["my-model"]


def test_ranks_through_two_processes(index_dir, queries):
    nlp = make_nlp(index_dir, rank=True, rank_model=None)
    one = [d._.linkguard_rank for d in nlp.pipe([with_sources(nlp, t, s) for t, s in queries])]
    two = [d._.linkguard_rank for d in nlp.pipe([with_sources(nlp, t, s) for t, s in queries], n_process=2,
                                                 batch_size=4)]
    assert two == one and sum(r is not None for r in one) == len(queries) - 1


def test_settings_round_trip_and_errors(index_dir, queries, tmp_path):
    from spacy_linkguard.pipeline.linkguard import Linkguard

    nlp = make_nlp(index_dir, rank=True, rank_model=None)
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    assert loaded.get_pipe("linkguard").cfg["rank"] is True and loaded.get_pipe("linkguard").cfg["rank_model"] is None
    text, sources = queries[0]
    assert loaded(with_sources(loaded, text, sources))._.linkguard_rank == nlp(
        with_sources(nlp, text, sources))._.linkguard_rank
    # A component saved before the rank settings existed loads with ranking off.
    comp = make_nlp(index_dir).get_pipe("linkguard")
    import json

    cfg = json.loads(comp.to_bytes())
    del cfg["rank"], cfg["rank_model"]
    comp.from_bytes(json.dumps(cfg).encode())
    assert comp.cfg["rank"] is False

    # (spaCy's config validation refuses these types first; made directly, ours does.)
    with pytest.raises(LinkguardError, match=r"\[E207\]"):
        Linkguard(spacy.blank("en"), index=str(index_dir), rank="yes")
    with pytest.raises(LinkguardError, match=r"\[E049\]"):
        Linkguard(spacy.blank("en"), index=str(index_dir), rank=True, rank_model=3)
    # Made directly, not by the factory: no embedding attacker to build.
    with pytest.raises(LinkguardError, match=r"\[E048\]"):
        Linkguard(spacy.blank("en"), index=str(index_dir), rank=True)
    direct = Linkguard(spacy.blank("en"), index=str(index_dir), rank=True, rank_model=None)
    assert direct(with_sources(nlp, text, sources))._.linkguard_rank["bm25"] >= 1


def test_an_index_without_document_tokens_fails_at_initialize(collection, tmp_path):
    path = tmp_path / "full"
    NgramIndex.build([Record(id=i, text=t) for i, t in collection.items()], path, progress=False, n_process=1,
                     full=True)
    assert make_nlp(path)("court fine")._.linkguard_rank is None  # without rank, fine
    nlp = make_nlp(path, rank=True, rank_model=None)
    with pytest.raises(LinkguardError, match=r"\[E045\]"):
        nlp.initialize()
    with pytest.raises(LinkguardError, match=r"\[E045\]"):
        nlp("court fine")  # no sources, but the attacker is built before the first Doc is ranked


@pytest.mark.slow
def test_real_embedding_rank_agrees_with_its_own_embeddings(index_dir, collection, queries):
    """all-MiniLM-L6-v2 through the factory: ranks equal the cosine ranks of the
    model's own embeddings of the index's documents, ranked here by hand."""
    from spacy_linkguard.attack.embedding import index_texts, load_embedder
    from spacy_linkguard.llm.local_models import locate_sentence_model

    if not locate_sentence_model("all-MiniLM-L6-v2").available:
        pytest.skip("all-MiniLM-L6-v2 is not on this machine")
    nlp = make_nlp(index_dir, rank=True)  # the default model
    idx = nlp.get_pipe("linkguard").index
    emb = load_embedder("all-MiniLM-L6-v2")
    coll = emb.embed(index_texts(idx), truncate=True)
    ids = list(idx.doc_ids)
    for text, sources in queries[:8]:
        got = nlp(with_sources(nlp, text, sources))._.linkguard_rank
        scores = (emb.embed([text], truncate=True) @ coll.T)[0].tolist()
        assert got["embedding"] == min(brute_force_rank(scores, ids.index(s)) for s in sources)
        assert got["bm25"] == bm25_oracle(collection, text, sources)
    assert nlp(with_sources(nlp, collection[ids[0]], [ids[0]]))._.linkguard_rank["embedding"] == 1
