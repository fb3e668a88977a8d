"""`map_records`: input order, errors in input order, dead workers and Ctrl-C end cleanly."""
import multiprocessing
import time
from contextlib import closing

import pytest

from spacy_linkguard.corpus import Record, iter_records
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.parallel import map_records

from .jobs import EchoJob


def records(n):
    return [Record(id=f"d{i}", text="x", line=i + 1) for i in range(n)]


def no_workers_left(timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        kids = [p for p in multiprocessing.active_children() if "ForkServer" not in type(p).__name__]
        if not kids:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("workers,chunk_size", [(1, 1), (2, 1), (2, 3), (3, 2)])
def test_results_come_in_input_order(workers, chunk_size):
    out = list(map_records(EchoJob(slow_first=True), records(11), workers=workers, chunk_size=chunk_size))
    # each process set the job up once
    assert out == [f"d{i}@1" for i in range(11)]


def test_first_error_in_input_order_wins():
    """A coded error of the job is raised in its turn: the results before it
    come out first, as with one process, whichever worker fails first."""
    for workers in (1, 2):
        got = []
        with pytest.raises(LinkguardError, match=r"E999.*d5 \(line 6\)"):
            for r in map_records(EchoJob(fail_on="d5", slow_first=True), records(9), workers=workers):
                got.append(r)
        assert got == [f"d{i}@1" for i in range(5)]
    assert no_workers_left()


def test_bad_input_line_is_the_same_error(tmp_path):
    """The reader's error (E006 with its line number) comes after every line before it."""
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": \n{"id": "c", "text": "z"}\n')
    errors = []
    for workers in (1, 2):
        got = []
        with pytest.raises(LinkguardError) as e:
            for r in map_records(EchoJob(), iter_records(path), workers=workers):
                got.append(r)
        assert got == ["a@1", "b@1"]
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "E006" in errors[0] and "line 3" in errors[0]


def test_a_dead_worker_is_a_coded_error():
    with pytest.raises(LinkguardError, match=r"E016.*exited with status 3.*before input line [1-5] .*fewer --workers"):
        list(map_records(EchoJob(die_on="d4"), records(12), workers=2))
    assert no_workers_left()


def test_stopping_early_ends_the_workers():
    """Ctrl-C (or any error) in the consumer: closing the results ends the workers at once."""
    results = map_records(EchoJob(slow_first=True), records(40), workers=2)
    with pytest.raises(KeyboardInterrupt):
        with closing(results):
            for _ in results:
                raise KeyboardInterrupt
    assert no_workers_left()


def test_workers_must_be_positive():
    with pytest.raises(LinkguardError, match=r"E014.*--workers"):
        list(map_records(EchoJob(), records(2), workers=0))


def test_each_worker_sees_one_gpu():
    from .jobs import DeviceJob

    got = list(map_records(DeviceJob(), records(12), workers=2, devices=["3", "5"]))
    by_pid = {}
    for pid, dev in got:
        by_pid.setdefault(pid, set()).add(dev)
    assert all(len(d) == 1 for d in by_pid.values())  # a worker keeps its GPU
    assert set().union(*by_pid.values()) <= {"3", "5"}
    if len(by_pid) == 2:
        assert set().union(*by_pid.values()) == {"3", "5"}


def test_visible_gpus(monkeypatch):
    from spacy_linkguard.parallel.pool import visible_gpus

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 0")
    assert visible_gpus() == ["2", "0"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    assert visible_gpus() == []
