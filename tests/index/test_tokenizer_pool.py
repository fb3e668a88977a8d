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
    expected = "forkserver" if tokens.other_threads() else "fork"
    assert tokens.pool_context().get_start_method() == expected
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert tokens.pool_context().get_start_method() == "forkserver"
    finally:
        stop.set()
        t.join()


def test_a_progress_bar_alone_does_not_stop_the_fork():
    """Every tqdm bar, a disabled one too, starts tqdm's monitor thread; the
    build's own bar is open when the pool starts. The monitor is not a reason
    to leave fork (it only takes tqdm's lock); a thread of the user's is."""
    from tqdm import tqdm
    from tqdm._monitor import TMonitor

    with tqdm(total=1, disable=True):
        monitors = [t for t in threading.enumerate() if isinstance(t, TMonitor)]
        assert monitors and not any(t in tokens.other_threads() for t in monitors)
        expected = "forkserver" if tokens.other_threads() else "fork"
        assert tokens.pool_context().get_start_method() == expected


SCRIPT = """
import json, sys
from spacy_linkguard.index import NgramIndex, tokens
tokens.BATCH_DOCS = 4  # several batches: the pool is used
docs = json.loads(open(sys.argv[1]).read())
NgramIndex.build(docs, sys.argv[2], progress=False, n_process=2)
print("built")
"""


def test_a_script_without_a_main_guard_builds_with_two_processes(tmp_path):
    """A user's script, as the docs write it (no `if __name__ == "__main__"`):
    its workers are forked, not started from the fork server, which would run
    the script again in each of them (E036); the bytes are one process's."""
    import json
    import subprocess
    import sys

    docs = corpus()
    (tmp_path / "docs.json").write_text(json.dumps(docs), encoding="utf-8")
    (tmp_path / "script.py").write_text(SCRIPT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "script.py", "docs.json", "two"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.count("built") == 1, proc.stderr
    NgramIndex.build(docs, tmp_path / "one", progress=False, n_process=1)
    assert files(tmp_path / "two") == files(tmp_path / "one")


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
