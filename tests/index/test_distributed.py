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


def test_dask_build_gives_up_after_collisions(client, tmp_path, monkeypatch):
    """A hash collision found by a worker restarts the build with another seed,
    from a clean staging folder; with 4 hash values every attempt collides: E066."""
    import numpy as np

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index import runs
    from spacy_linkguard.index.distributed import build_distributed

    monkeypatch.setattr(runs, "HASH_MASK", np.uint64(0x3))  # read by the client, sent to the workers
    write_records(random_corpus(seed=5, n_docs=10), tmp_path / "c.jsonl")
    with pytest.raises(LinkguardError, match="E066"):
        build_distributed(tmp_path / "c.jsonl", tmp_path / "dask", NgramSettings(), n_shards=2, client=client,
                          n_parts=3, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]  # no index, no staging folder left


def test_shard_rows_round_trip(tmp_path):
    import numpy as np

    from spacy_linkguard.index.distributed import ShardRows

    keys = ["a b", "ä\u00a0c", "x"]
    rows = ShardRows(keys=lambda: iter(keys), df=np.array([2, 1, 3], dtype=np.uint32),
                     docs=np.array([0, 4, 7, 1, 2, 3], dtype=np.uint32))
    back = ShardRows.load(rows.save(str(tmp_path / "r")))
    assert list(back.keys()) == keys and list(back.keys()) == keys  # read again on each iteration
    assert back.df.tolist() == [2, 1, 3] and back.docs.tolist() == [0, 4, 7, 1, 2, 3]
    assert back.df.dtype == np.uint32 and back.docs.dtype == np.uint32
    empty = ShardRows.load(ShardRows(keys=lambda: iter([]), df=np.zeros(0, np.uint32),
                                     docs=np.zeros(0, np.uint32)).save(str(tmp_path / "e")))
    assert list(empty.keys()) == [] and len(empty.df) == 0


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


def test_cli_scheduler_uses_a_running_cluster(client, tmp_path):
    """`build-index --scheduler ADDRESS` builds on an existing cluster (as with
    `dask scheduler` + `dask worker` on several machines) and leaves it running."""
    import subprocess
    import sys

    docs = random_corpus(seed=6, n_docs=25)
    write_records(docs, tmp_path / "c.jsonl")
    address = client.scheduler.address
    proc = subprocess.run([sys.executable, "-m", "spacy_linkguard", "build-index", str(tmp_path / "c.jsonl"),
                           str(tmp_path / "idx"), "--scheduler", address, "--shards", "2", "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    NgramIndex.build(docs, tmp_path / "single", progress=False, shards=2)
    assert tree(tmp_path / "idx") == tree(tmp_path / "single")
    assert client.submit(sum, [1, 2]).result() == 3  # the cluster is still there
    assert not [p for p in tmp_path.iterdir() if p.name not in ("c.jsonl", "idx", "single")]  # no staging left


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "no-such-protocol://x"])
def test_unreachable_scheduler_is_a_coded_error(tmp_path, address):
    import dask

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index.distributed import build_distributed

    write_records(random_corpus(seed=1, n_docs=3), tmp_path / "c.jsonl")
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        with pytest.raises(LinkguardError, match=r"E078.*dask scheduler"):
            build_distributed(tmp_path / "c.jsonl", tmp_path / "idx", NgramSettings(), n_shards=2,
                              scheduler=address, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]


def test_scheduler_without_workers_is_a_coded_error(tmp_path, monkeypatch):
    from distributed import LocalCluster

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index import distributed as dist

    monkeypatch.setattr(dist, "WORKER_WAIT_S", 1.0)
    write_records(random_corpus(seed=1, n_docs=3), tmp_path / "c.jsonl")
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        with pytest.raises(LinkguardError, match=r"E079.*no worker after 1 s.*dask worker"):
            dist.build_distributed(tmp_path / "c.jsonl", tmp_path / "idx", NgramSettings(), n_shards=2,
                                   scheduler=cluster.scheduler_address, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]


@pytest.fixture
def fresh_cluster():
    """LocalClusters of their own for tests that kill workers: cluster(n_workers, **dask_config) -> Client."""
    import dask
    from distributed import Client, LocalCluster

    made = []

    def cluster(n_workers: int, **config) -> Client:
        with dask.config.set(config):
            lc = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
        made.append((Client(lc), lc))
        return made[-1][0]

    yield cluster
    for c, lc in made:
        c.close()
        lc.close()


@pytest.mark.parametrize("n_workers,task,after", [
    (1, "_write_levels", 0),  # the only worker dies as the shards' final writes start
    (2, "level_reduce", 4),   # a worker dies in level 2's reduces: its earlier results are computed again
    (2, "encode_part_docs", 0),  # after the levels: its parts are tokenized again
])
def test_dask_build_survives_a_killed_worker(fresh_cluster, tmp_path, n_workers, task, after):
    """A worker process that dies in the middle of the build (as one killed for
    its memory would) is replaced, what it held is computed again from the
    corpus and the staging folder, and the index is the one-process build's."""
    from spacy_linkguard.index.distributed import build_distributed

    from .dask_faults import KillOnTask, deaths

    client = fresh_cluster(n_workers)
    (tmp_path / "marks").mkdir()
    client.register_plugin(KillOnTask(tmp_path / "marks", task, after=after))
    docs = random_corpus(seed=17, n_docs=30)
    write_records(docs, tmp_path / "c.jsonl")
    build_distributed(tmp_path / "c.jsonl", tmp_path / "dask", NgramSettings(), n_shards=3, client=client, n_parts=3,
                      progress=False)
    assert deaths(tmp_path / "marks") == 1
    NgramIndex.build(docs, tmp_path / "single", progress=False, shards=3)
    assert tree(tmp_path / "dask") == tree(tmp_path / "single")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "dask", "marks", "single"]


def test_dask_build_that_cannot_recover_is_a_coded_error(fresh_cluster, tmp_path):
    """Dask gives up on a task whose workers keep dying (here after one death):
    E080 says what to change, and no index or staging folder is left."""
    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index.distributed import build_distributed

    from .dask_faults import KillOnTask

    client = fresh_cluster(2, **{"distributed.scheduler.allowed-failures": 0})
    (tmp_path / "marks").mkdir()
    client.register_plugin(KillOnTask(tmp_path / "marks", "_write_levels"))
    write_records(random_corpus(seed=3, n_docs=12), tmp_path / "c.jsonl")
    with pytest.raises(LinkguardError, match=r"E080.*_write_levels.*--shards"):
        build_distributed(tmp_path / "c.jsonl", tmp_path / "dask", NgramSettings(), n_shards=2, client=client,
                          n_parts=2, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "marks"]
    assert client.submit(sum, [1, 2]).result() == 3  # the cluster goes on (a new worker took the place)


def test_a_lost_result_is_a_coded_error(client, tmp_path, monkeypatch):
    """A future Dask cancelled (its data lost for good, or the scheduler gone) is E080 too, not a traceback."""
    from distributed.client import FutureCancelledError

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index import distributed as dist

    def lost(client, corpus, ranges, tmp, *args):
        (tmp / "_levels").mkdir()
        raise FutureCancelledError("_write_levels-0", "already forgotten")

    monkeypatch.setattr(dist, "_run", lost)
    write_records(random_corpus(seed=1, n_docs=3), tmp_path / "c.jsonl")
    with pytest.raises(LinkguardError, match=r"E080.*_write_levels-0 cancelled for reason: already forgotten"):
        dist.build_distributed(tmp_path / "c.jsonl", tmp_path / "idx", NgramSettings(), n_shards=2, client=client,
                               progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]
