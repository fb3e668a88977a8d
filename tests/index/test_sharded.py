"""Sharded indexes answer as the unsharded ones: keys, postings, stats, updates, damage."""
import json

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.index import format as fmt
from spacy_linkguard.index.shards import shard_of
from spacy_linkguard.ngrams import NgramSettings

from .oracle import oracle, random_corpus
from .test_pruned import assert_same_answers, probe_keys


def tree(path):
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def corpus_and_full(tmp_path_factory):
    docs = random_corpus(seed=21, n_docs=70)
    full = NgramIndex.build(docs, tmp_path_factory.mktemp("full") / "idx", progress=False, full=True)
    return docs, full


@pytest.mark.parametrize("n_shards", [1, 2, 5])
def test_sharded_matches_oracle_and_full(corpus_and_full, tmp_path, n_shards):
    docs, full = corpus_and_full
    sharded = NgramIndex.build(docs, tmp_path / "s", progress=False, shards=n_shards)
    assert type(sharded).__name__ == "ShardedIndex" and sharded.n_shards == n_shards
    assert sharded.doc_ids == full.doc_ids and sharded.settings == full.settings
    post = oracle([d["text"] for d in docs], NgramSettings())
    assert sharded.n_ngrams == len(post)
    assert_same_answers(sharded, full, probe_keys(post), post)
    # every shard holds only keys of its hash
    for i, shard in enumerate(sharded.shards):
        keys = [shard._trie.restore_key(r) for r in range(shard.n_rows)]
        assert all(shard_of(k, n_shards) == i for k in keys)
    pruned = NgramIndex.build(docs, tmp_path / "p", progress=False)
    assert sharded.n_rows == pruned.n_rows
    assert NgramIndex.load(tmp_path / "s", verify=True).checksum == sharded.checksum
    assert sharded.doc_freq("violation") == full.doc_freq("violation") >= 1


def test_sharded_add_documents_equals_rebuild(corpus_and_full, tmp_path):
    docs, _ = corpus_and_full
    NgramIndex.build(docs, tmp_path / "all", progress=False, shards=3)
    idx = NgramIndex.build(docs[:25], tmp_path / "inc", progress=False, shards=3)
    idx = idx.add_documents(docs[25:50], progress=False)
    idx = idx.add_documents(docs[50:], progress=False)
    assert idx.n_docs == len(docs)
    assert tree(tmp_path / "inc") == tree(tmp_path / "all")


def test_a_shard_alone_is_refused_and_damage_is_found(corpus_and_full, tmp_path):
    import shutil

    docs, _ = corpus_and_full
    NgramIndex.build(docs, tmp_path / "s", progress=False, shards=2)
    with pytest.raises(LinkguardError, match="E074.*load its parent"):
        NgramIndex.load(tmp_path / "s" / "shard-00001")
    with pytest.raises(LinkguardError, match="E074"):
        NgramIndex.load(tmp_path / "s" / "documents")
    # a shard from another build: its checksum is not the manifest's
    NgramIndex.build(docs[:-1], tmp_path / "other", progress=False, shards=2)
    shutil.rmtree(tmp_path / "s" / "shard-00001")
    shutil.copytree(tmp_path / "other" / "shard-00001", tmp_path / "s" / "shard-00001")
    with pytest.raises(LinkguardError, match="E076"):
        NgramIndex.load(tmp_path / "s")
    # an edited manifest
    m = json.loads((tmp_path / "other" / fmt.MANIFEST).read_text())
    m["n_shards"] = 3
    (tmp_path / "other" / fmt.MANIFEST).write_text(json.dumps(m))
    with pytest.raises(LinkguardError, match="E060|E069"):
        NgramIndex.load(tmp_path / "other")


def test_bad_shard_counts_refused(tmp_path):
    docs = random_corpus(seed=1, n_docs=3)
    for bad in (0, -1, 5000, True):
        with pytest.raises(LinkguardError, match="E075"):
            NgramIndex.build(docs, tmp_path / "x", progress=False, shards=bad)
    with pytest.raises(LinkguardError, match="E075"):
        NgramIndex.build(docs, tmp_path / "x", progress=False, shards=2, full=True)


def test_sharded_index_replaced_by_rebuild(corpus_and_full, tmp_path):
    docs, _ = corpus_and_full
    NgramIndex.build(docs[:10], tmp_path / "s", progress=False, shards=2)
    idx = NgramIndex.build(docs[:12], tmp_path / "s", progress=False, shards=3)
    assert idx.n_docs == 12 and idx.n_shards == 3
    (tmp_path / "s" / "notes.txt").write_text("mine")
    with pytest.raises(LinkguardError, match="E057"):
        NgramIndex.build(docs[:12], tmp_path / "s", progress=False, shards=3)
