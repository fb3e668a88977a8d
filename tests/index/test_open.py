"""`open_index`: the package's one cached opener (plain and sharded folders)."""
import os
import threading

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex, ShardedIndex, clear_index_cache, open_index

from .oracle import random_corpus


@pytest.fixture()
def docs():
    return random_corpus(seed=5, n_docs=12)


def test_an_index_is_opened_once_per_folder(docs, tmp_path, monkeypatch):
    NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=1)
    clear_index_cache()
    first = open_index(tmp_path / "idx")
    assert isinstance(first, NgramIndex) and first.n_docs == len(docs)
    monkeypatch.chdir(tmp_path)
    assert open_index("idx") is first  # the same folder, named another way
    assert open_index(str(tmp_path / "idx" / ".." / "idx")) is first
    clear_index_cache()
    assert open_index("idx") is not first


def test_a_rebuilt_or_extended_index_is_read_again(docs, tmp_path):
    NgramIndex.build(docs[:6], tmp_path / "idx", progress=False, n_process=1)
    before = open_index(tmp_path / "idx")
    NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=1)
    rebuilt = open_index(tmp_path / "idx")
    assert rebuilt is not before and rebuilt.n_docs == len(docs) and rebuilt.checksum != before.checksum
    assert open_index(tmp_path / "idx") is rebuilt
    extended = rebuilt.add_documents([{"id": "new", "text": "a new document about nothing"}], progress=False,
                                     n_process=1)
    assert open_index(tmp_path / "idx").checksum == extended.checksum != rebuilt.checksum


def test_a_sharded_index_opens_and_is_cached(docs, tmp_path):
    NgramIndex.build(docs, tmp_path / "s", progress=False, n_process=1, shards=2)
    sharded = open_index(tmp_path / "s")
    assert isinstance(sharded, ShardedIndex) and sharded.n_shards == 2
    assert open_index(tmp_path / "s") is sharded


def test_verify_reads_once_more_then_is_cached(docs, tmp_path, monkeypatch):
    NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=1)
    clear_index_cache()
    calls = []
    real = NgramIndex.load.__func__

    def counting(cls, path, *, verify=False, _part=False):
        calls.append(verify)
        return real(cls, path, verify=verify, _part=_part)

    monkeypatch.setattr(NgramIndex, "load", classmethod(counting))
    plain = open_index(tmp_path / "idx")
    verified = open_index(tmp_path / "idx", verify=True)
    assert verified is not plain and calls == [False, True]
    assert open_index(tmp_path / "idx") is verified and open_index(tmp_path / "idx", verify=True) is verified
    assert calls == [False, True]


def test_no_index_there_is_the_loaders_coded_error(tmp_path):
    with pytest.raises(LinkguardError, match="E059"):
        open_index(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(LinkguardError, match="E059"):
        open_index(tmp_path / "empty")


def test_threads_opening_together_share_one_index(docs, tmp_path):
    NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=1)
    clear_index_cache()
    got, start = [], threading.Barrier(6)

    def worker():
        start.wait()
        got.append(open_index(tmp_path / "idx"))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 6 and all(g is got[0] for g in got)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_can_open(docs, tmp_path):
    NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=1)
    open_index(tmp_path / "idx")
    pid = os.fork()
    if pid == 0:  # the child: the cached index and a fresh lock
        try:
            os._exit(0 if open_index(tmp_path / "idx").n_docs == len(docs) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
