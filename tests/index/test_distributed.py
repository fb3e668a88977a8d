"""The Dask build (LocalCluster, 2 worker processes) writes the bytes of the single-process sharded build."""
import pytest

from spacy_linkguard.corpus import write_records
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.ngrams import NgramSettings

from .oracle import oracle, random_corpus
from .test_sharded import tree

# No skip: the [dist] extra is part of [all], which `make install` and CI install.
import distributed  # noqa: F401,E402


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.parametrize("n_shards,n_parts", [(3, 5), (2, 1)])
def test_dask_build_equals_single_process(client, tmp_path, n_shards, n_parts):
    from spacy_linkguard.index.distributed import build_distributed

    docs = random_corpus(seed=13, n_docs=50) + [{"id": "empty", "text": "   "}]
    write_records(docs, tmp_path / "c.jsonl")
    NgramIndex.build(docs, tmp_path / "single", progress=False, shards=n_shards)
    build_distributed(tmp_path / "c.jsonl", tmp_path / "dask", NgramSettings(), n_shards=n_shards, client=client,
                      n_parts=n_parts, progress=False)
    assert tree(tmp_path / "dask") == tree(tmp_path / "single")
    idx = NgramIndex.load(tmp_path / "dask", verify=True)
    post = oracle([d["text"] for d in docs[:-1]], NgramSettings())
    keys = sorted(post)
    assert idx.key_doc_freqs(keys).tolist() == [len(post[k]) for k in keys]
    assert idx.meta["counts"]["n_skipped_empty"] == 1


def test_dask_build_refuses_repeated_ids(client, tmp_path):
    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index.distributed import build_distributed

    docs = random_corpus(seed=2, n_docs=12)
    docs[9]["id"] = docs[1]["id"]
    write_records(docs, tmp_path / "c.jsonl")
    with pytest.raises(LinkguardError, match="E051"):
        build_distributed(tmp_path / "c.jsonl", tmp_path / "dask", NgramSettings(), n_shards=2, client=client,
                          n_parts=4, progress=False)
    assert not (tmp_path / "dask").exists()


def test_cli_workers(tmp_path):
    """`build-index --workers 2` starts its own LocalCluster."""
    import subprocess
    import sys

    docs = random_corpus(seed=4, n_docs=20)
    write_records(docs, tmp_path / "c.jsonl")
    proc = subprocess.run([sys.executable, "-m", "spacy_linkguard", "build-index", str(tmp_path / "c.jsonl"),
                           str(tmp_path / "idx"), "--workers", "2", "--shards", "3", "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "3 shards, built on Dask" in proc.stdout
    NgramIndex.build(docs, tmp_path / "single", progress=False, shards=3)
    assert tree(tmp_path / "idx") == tree(tmp_path / "single")
