"""`map_records` on a Dask cluster (`--scheduler ADDRESS`): partitions out, lines back in order.

The parent (the command) reads and validates the input, sends the documents
out in partitions (one Dask task each, `_run_partition`), and yields the
results in input order; the command writes them through `atomic_output`, so
nothing is written unless every partition came back. Each Dask worker builds
the job's state once (kept in the worker process, keyed by the job's options)
and reuses it for every partition it runs.

A worker that dies mid-run is not an error: Dask runs its partitions again
on another worker (each partition is one task whose result the parent takes
once, so every document is written exactly once). Only when Dask gives up
(the workers running one partition keep dying: `distributed.scheduler.
allowed-failures`) or a result is lost does the command stop, with E017 and
no output. Connecting reuses the build's code and codes
(`index/distributed.py`: E077 no dask.distributed, E078 unreachable
scheduler, E079 no worker).

On GPUs: start one `dask worker --nworkers 1 --nthreads 1` per GPU (each with
its own CUDA_VISIBLE_DEVICES); `rewrite` sends partitions of the component's
`batch_size` documents, generated together on that worker's GPU.
"""
import hashlib
import pickle
from concurrent.futures import CancelledError
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..errors import Errors, LinkguardError
from .chunks import read_chunk

# In a worker process: job key -> the job, set up (its index, pipeline, model).
_JOBS: Dict[str, Any] = {}


def _run_partition(job_bytes: bytes, job_key: str, records: List[Any]) -> Tuple[List[Any], Optional[LinkguardError]]:
    """A Dask task: the job's results for one partition (as `pool._run_chunk`)."""
    out: List[Any] = []
    try:
        job = _JOBS.get(job_key)
        if job is None:
            job = pickle.loads(job_bytes)
            job.setup()
            _JOBS.clear()  # one job at a time per worker: free the last command's model
            _JOBS[job_key] = job
        for res in job.run(records):
            out.append(res)
    except LinkguardError as e:
        return out, e
    return out, None


def map_on_cluster(job: Any, records: Iterator[Any], *, scheduler: Optional[str] = None, client: Any = None,
                   partition_size: int = 1) -> Iterator[Any]:
    """The job's results for `records`, in input order, computed on the Dask
    cluster at `scheduler` (or through `client`); the cluster stays up.

    RAISES: E077, E078, E079 (as the Dask build); E017 (Dask gave up);
        the job's and the reader's own errors, in input order.
    """
    try:
        from distributed import Client, KilledWorker, wait
    except ImportError:
        raise LinkguardError(Errors.E077) from None
    from ..index.distributed import _connect, _lost_work, _wait_for_workers

    own = None
    if client is None:
        client = own = _connect(Client, scheduler)
    job_bytes = pickle.dumps(job)
    job_key = hashlib.sha256(job_bytes).hexdigest()
    futures: Dict[int, Any] = {}
    head = nxt = 0
    read_error: Optional[BaseException] = None
    done_reading = False
    finished = False
    try:
        _wait_for_workers(client, scheduler or "the given client")
        ahead = 4 * max(1, sum(client.nthreads().values()))

        def fill() -> None:
            nonlocal nxt, done_reading, read_error
            while not done_reading and nxt - head < ahead:
                part, done_reading, error = read_chunk(records, partition_size)
                read_error = error or read_error
                if part:
                    # pure=False: a fresh key per partition ("_run_partition-<uuid>"), never a cached result
                    futures[nxt] = client.submit(_run_partition, job_bytes, job_key, part, pure=False)
                    nxt += 1

        fill()
        while head < nxt:
            f = futures[head]
            if not f.done():
                wait([x for x in futures.values() if not x.done()], return_when="FIRST_COMPLETED")
                fill()
                continue
            results, error = f.result()
            del futures[head]
            head += 1
            yield from results
            if error is not None:
                raise error
            fill()
        if read_error is not None:
            raise read_error
        finished = True
    except (KilledWorker, CancelledError) as e:
        raise LinkguardError(Errors.E017.format(detail=_lost_work(e))) from None
    finally:
        if not finished and futures:
            client.cancel(list(futures.values()))
        if own is not None:
            own.close()
