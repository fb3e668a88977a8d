"""`map_records` on a Dask LocalCluster (`--scheduler`): input order, errors in
input order, and a worker killed mid-run costs a retry, not a document."""
import pytest

from spacy_linkguard.corpus import Record, iter_records
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.parallel import map_records

from ..index.dask_faults import KillOnTask, deaths
from .jobs import EchoJob

import distributed  # noqa: F401,E402  (the [dist] extra is part of [all], which CI installs)


def records(n):
    return [Record(id=f"d{i}", text="x", line=i + 1) for i in range(n)]


@pytest.fixture
def cluster():
    """cluster(**dask_config) -> a Client of a fresh LocalCluster of 2 worker processes."""
    import dask
    from distributed import Client, LocalCluster

    made = []

    def make(**config):
        with dask.config.set(config):
            lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        made.append((Client(lc), lc))
        return made[-1][0]

    yield make
    for c, lc in made:
        c.close()
        lc.close()


def test_in_order_errors_in_order_and_a_killed_worker(cluster, tmp_path):
    client = cluster()
    got = list(map_records(EchoJob(slow_first=True), records(9), client=client, chunk_size=2))
    assert got == [f"d{i}@1" for i in range(9)]  # each worker set the job up once
    # the address, as the commands get it
    assert list(map_records(EchoJob(), records(3), scheduler=client.scheduler.address)) == ["d0@1", "d1@1", "d2@1"]
    # a document's coded error and a bad input line: raised in their turn
    with pytest.raises(LinkguardError, match="E999.*d4"):
        list(map_records(EchoJob(fail_on="d4"), records(9), client=client))
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b"}\n')
    with pytest.raises(LinkguardError, match="E007.*line 2"):
        list(map_records(EchoJob(), iter_records(path), client=client))
    # a worker dies as its 3rd partition starts: Dask runs that partition again, nothing lost or doubled
    (tmp_path / "marks").mkdir()
    client.register_plugin(KillOnTask(tmp_path / "marks", "_run_partition", after=2))
    got = list(map_records(EchoJob(), records(12), client=client, chunk_size=2))
    assert deaths(tmp_path / "marks") == 1
    assert [g.split("@")[0] for g in got] == [f"d{i}" for i in range(12)]


def test_dask_giving_up_is_a_coded_error(cluster, tmp_path):
    client = cluster(**{"distributed.scheduler.allowed-failures": 0})
    (tmp_path / "marks").mkdir()
    client.register_plugin(KillOnTask(tmp_path / "marks", "_run_partition", after=1))
    with pytest.raises(LinkguardError, match=r"E017.*_run_partition.*memory-limit"):
        list(map_records(EchoJob(), records(6), client=client))


def test_unreachable_scheduler_is_the_builds_error():
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        with pytest.raises(LinkguardError, match="E078"):
            list(map_records(EchoJob(), records(2), scheduler="tcp://127.0.0.1:9"))
