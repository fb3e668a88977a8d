"""The index build's tokenizer processes (`n_process`): never a plain fork of a
process with other threads running, and never a wait without end."""
import os
import threading

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex, tokens

from . import stalls


def corpus(n=40):
    return [{"id": str(i), "text": f"patient {i} was seen at ward {i % 7} on day {i % 5} by nurse {i % 3}"}
            for i in range(n)]


def files(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


def test_fork_only_without_other_threads():
    # The suite's process may hold threads of earlier tests; check the rule either way.
    expected = "fork" if threading.active_count() == 1 else "forkserver"
    assert tokens.pool_context().get_start_method() == expected
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert tokens.pool_context().get_start_method() == "forkserver"
    finally:
        stop.set()
        t.join()


@pytest.fixture
def dask_client():
    """A Dask client on a cluster in this process (threads), closed afterwards."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_build_with_two_processes_after_dask_in_this_process(dask_client, tmp_path, monkeypatch):
    """A user who used Dask in this process builds with n_process=2: the same
    bytes as one process, and no hang (the workers do not fork under Dask's threads)."""
    assert dask_client.submit(sum, [1, 2]).result() == 3  # Dask's threads are running now
    assert threading.active_count() > 1
    monkeypatch.setattr(tokens, "BATCH_DOCS", 4)  # several batches: the pool is used
    monkeypatch.setattr(tokens, "STALL_SECONDS", 120.0)  # a hang fails the test instead of blocking it
    docs = corpus()
    NgramIndex.build(docs, tmp_path / "one", progress=False, n_process=1)
    two = NgramIndex.build(docs, tmp_path / "two", progress=False, n_process=2)
    assert files(tmp_path / "two") == files(tmp_path / "one")
    assert two.doc_freq("ward 3") == sum("ward 3 " in d["text"] for d in docs)


@pytest.mark.parametrize("threads", [False, True], ids=["as-is", "with-a-thread"])
def test_a_dead_tokenizer_process_is_a_coded_error(tmp_path, monkeypatch, threads):
    monkeypatch.setattr(tokens, "BATCH_DOCS", 4)
    monkeypatch.setenv("STALLS_PARENT", str(os.getpid()))
    monkeypatch.setattr(tokens, "segment_text", stalls.die)
    stop = threading.Event()
    t = threading.Thread(target=stop.wait) if threads else None
    if t is not None:
        t.start()
    try:
        with pytest.raises(LinkguardError, match=r"E036.*exit code 3"):
            NgramIndex.build(corpus(), tmp_path / "idx", progress=False, n_process=2)
    finally:
        stop.set()
        if t is not None:
            t.join()
    assert list(tmp_path.iterdir()) == []


def test_a_stuck_tokenizer_process_is_a_coded_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tokens, "BATCH_DOCS", 4)
    monkeypatch.setattr(tokens, "STALL_SECONDS", 2.0)
    monkeypatch.setenv("STALLS_PARENT", str(os.getpid()))
    monkeypatch.setattr(tokens, "segment_text", stalls.hang)
    with pytest.raises(LinkguardError, match=r"E037.*2 s"):
        NgramIndex.build(corpus(), tmp_path / "idx", progress=False, n_process=2)
    assert list(tmp_path.iterdir()) == []
