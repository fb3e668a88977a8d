"""`map_records`: a job's results for a stream of records, from N processes, in input order.

Why processes: detection and rewriting are CPU-bound Python; threads would
share one interpreter lock. Each worker process builds the job's state once
(`Job.setup`: the index through `open_index`, memory-mapped, so the workers
share its pages; a pipeline or model), then runs chunks of records sent with
their position. The parent reads the input, keeps a bounded window of chunks
in flight, and yields the results in input order (a reorder buffer).

What stays as with one process:
- the input is read and validated in the parent, so a bad line (E006-E010)
  is the same coded error, raised once every line before it is done;
- a coded error of the job for a document is raised when that document's turn
  comes, so the first error in input order wins, as in one process;
- the caller writes through `atomic_output`: an error, Ctrl-C or a killed
  worker leaves no partial output file. Ctrl-C and errors end the workers
  (they ignore SIGINT themselves, so the parent decides); a worker that dies
  is E016 (say what happened, what to do), never a hang.

Workers start with the "forkserver" method where there is one (else "spawn"),
never a plain fork of a parent that may run threads (tqdm, torch).
"""
import importlib
import multiprocessing
import os
import pickle
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import nullcontext
from typing import Any, Dict, Iterable, Iterator, List, Optional, Protocol, Tuple

from ..errors import Errors, LinkguardError
from .chunks import read_chunk
from .threads import blas_threads_while, set_blas_threads


class Job(Protocol):
    """What a command runs per document. It must pickle without its state
    (the parent sends it to each worker before `setup`)."""

    def setup(self) -> Any:
        """Build the state (open the index, load the pipeline); idempotent."""

    def run(self, records: Iterable[Any]) -> Iterator[Any]:
        """One picklable result per record, in order (may batch inside)."""


def check_workers(workers: Any) -> int:
    """RAISES: E014 unless `workers` is an integer >= 1."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LinkguardError(Errors.E014.format(name="--workers", expected="a number of processes >= 1",
                                                value=workers))
    return workers


def map_records(job: Job, records: Iterable[Any], *, workers: int = 1, chunk_size: int = 1,
                progress: bool = False, desc: Optional[str] = None, total: Optional[int] = None,
                scheduler: Optional[str] = None, client: Any = None,
                devices: Optional[List[str]] = None) -> Iterator[Any]:
    """The results of `job` for `records`, in input order.

    workers (int): 1 runs the job in this process (`job.run` over the whole
        stream, as the commands always did); N > 1 in N worker processes.
    chunk_size (int): records sent to a worker at a time (a batch for jobs
        that batch inside, e.g. generation); a Dask partition.
    scheduler, client: run on that Dask cluster instead (`cluster.py`;
        `workers` is then not used).
    devices: GPU ids; worker i sees only devices[i % len] (CUDA_VISIBLE_DEVICES).
        Default: the visible GPUs when the job says `uses_gpu` (rewrite), else none.
    progress, desc, total: a tqdm bar on stderr, counting results.
    YIELDS: the job's results. Use it with `contextlib.closing` so that an
        error or Ctrl-C in the consumer ends the workers at once.
    RAISES: the job's and the reader's own errors, in input order; E014 (bad
        `workers`), E016 (a worker process died); on Dask E017 (Dask gave up
        on a partition), E077-E079 (no dask.distributed, no scheduler, no worker).
    """
    check_workers(workers)
    if workers > 1 and not scheduler and client is None:
        # The fork server imports while the caller sets itself up.
        _context(job, start=True, threads=_threads_per_worker(workers))
    return _map_records(job, records, workers=workers, chunk_size=chunk_size, progress=progress, desc=desc,
                        total=total, scheduler=scheduler, client=client, devices=devices)


def _map_records(job: Job, records: Iterable[Any], *, workers: int, chunk_size: int, progress: bool,
                 desc: Optional[str], total: Optional[int], scheduler: Optional[str], client: Any,
                 devices: Optional[List[str]]) -> Iterator[Any]:
    import sys

    from tqdm import tqdm

    bar = tqdm(total=total, file=sys.stderr, disable=not progress, desc=desc, unit="doc")
    try:
        if scheduler or client is not None:
            from .cluster import map_on_cluster

            inner = map_on_cluster(job, iter(records), scheduler=scheduler, client=client,
                                   partition_size=max(1, chunk_size))
        elif workers == 1:
            job.setup()
            inner = job.run(records)
        else:
            if devices is None and getattr(job, "uses_gpu", False):
                devices = visible_gpus() or None
            inner = _parallel(job, iter(records), workers, max(1, chunk_size), devices)
        try:
            for res in inner:
                yield res
                bar.update(1)
        finally:  # closed at once when the consumer stops: the workers end now
            getattr(inner, "close", lambda: None)()
    finally:
        bar.close()


# ---- worker side --------------------------------------------------------------
_JOB: Any = None
_READY = False


def _init_worker(job_bytes: bytes, threads: int, counter: Any, devices: Optional[List[str]]) -> None:
    # Ctrl-C reaches the whole process group: the parent alone decides to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with counter.get_lock():
        number = counter.value
        counter.value += 1
    if devices:  # one GPU per worker (round robin): "cuda" in the job's config is this worker's GPU
        os.environ["CUDA_VISIBLE_DEVICES"] = devices[number % len(devices)]
    # N workers with a thread per core each would fight for the cores. Set
    # before the job's module imports numpy or torch (unpickling below).
    set_blas_threads(threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    global _JOB
    _JOB = pickle.loads(job_bytes)
    for module in getattr(_JOB, "preload", ()):  # as the fork server did (no-op there); with spawn, now
        importlib.import_module(module)


def _run_chunk(chunk: List[Any]) -> Tuple[List[Any], Optional[LinkguardError]]:
    """(results, None), or (the results before it, the coded error) when a record
    fails: the parent raises it in its turn. Other exceptions are bugs and pass."""
    global _READY
    out: List[Any] = []
    try:
        if not _READY:
            _JOB.setup()
            _READY = True
        for res in _JOB.run(chunk):
            out.append(res)
    except LinkguardError as e:
        return out, e
    return out, None


# ---- parent side --------------------------------------------------------------
def _context(job: Job, *, start: bool = False, threads: Optional[int] = None):
    """A forkserver that imported the job's heavy modules once (`job.preload`),
    so each worker forks with them loaded; else spawn. start: launch the fork
    server now (it imports in the background; the first worker waits for it),
    with `threads` BLAS threads unless the environment sets them: its workers
    fork with NumPy loaded, too late for `_init_worker` to set them."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, type(job).__module__, *getattr(job, "preload", ())])
    if start:
        from multiprocessing import forkserver

        with blas_threads_while(threads) if threads is not None else nullcontext():
            forkserver.ensure_running()
    return ctx


def _threads_per_worker(workers: int) -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, cores // workers)


def visible_gpus() -> List[str]:
    """The GPUs this process may use (CUDA_VISIBLE_DEVICES, else the NVIDIA
    device files), without importing torch; [] on a machine without."""
    import re

    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d.strip() for d in env.split(",") if d.strip() and d.strip() != "-1"]
    try:
        names = os.listdir("/dev")
    except OSError:
        return []
    return sorted((m.group(1) for m in map(re.compile(r"nvidia(\d+)$").match, names) if m), key=int)


def _parallel(job: Job, records: Iterator[Any], workers: int, chunk_size: int,
              devices: Optional[List[str]] = None) -> Iterator[Any]:
    ctx = _context(job)
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(pickle.dumps(job), _threads_per_worker(workers), ctx.Value("i", 0), devices))
    procs: Dict[int, Any] = {}  # every worker started, for the exit codes after a death
    futures: Dict[int, Future] = {}
    lines: Dict[int, int] = {}  # chunk -> its first input line (for E016)
    in_flight, ahead = 2 * workers, 16 * workers
    head = nxt = 0
    read_error: Optional[BaseException] = None
    done_reading = False
    finished = False

    def fill() -> None:
        nonlocal nxt, done_reading, read_error
        while not done_reading and nxt - head < ahead and sum(not f.done() for f in futures.values()) < in_flight:
            chunk, done_reading, error = read_chunk(records, chunk_size)
            read_error = error or read_error
            if chunk:
                futures[nxt] = ex.submit(_run_chunk, chunk)
                lines[nxt] = getattr(chunk[0], "line", 0)
                nxt += 1
                procs.update(getattr(ex, "_processes", None) or {})

    try:
        fill()
        while head < nxt:
            f = futures[head]
            if not f.done():
                wait([x for x in futures.values() if not x.done()], return_when=FIRST_COMPLETED)
                fill()
                continue
            results, error = f.result()
            del futures[head], lines[head]
            head += 1
            yield from results
            if error is not None:
                raise error
            fill()
        if read_error is not None:
            raise read_error
        finished = True
    except BrokenProcessPool:  # from a result or from submit, whichever sees it first
        procs.update(getattr(ex, "_processes", None) or {})
        line = lines.get(head, 0)
        raise LinkguardError(Errors.E016.format(workers=workers, line=line or "?", detail=_deaths(procs))) from None
    finally:
        if not finished:  # an error, Ctrl-C, or the consumer stopped: end the workers now
            for f in futures.values():
                f.cancel()
            for p in list(procs.values()) + list((getattr(ex, "_processes", None) or {}).values()):
                if p.is_alive():
                    p.terminate()
        ex.shutdown(wait=True, cancel_futures=True)


def _deaths(procs: Dict[int, Any]) -> str:
    """"worker 1234 ended by signal SIGKILL", from the exit codes of the dead workers."""
    dead = []
    for pid, p in procs.items():
        code = p.exitcode
        if code is None or code == 0:
            continue
        if code < 0:
            try:
                why = f"ended by signal {signal.Signals(-code).name}"
            except ValueError:
                why = f"ended by signal {-code}"
        else:
            why = f"exited with status {code}"
        dead.append(f"worker {pid} {why}")
    return "; ".join(dead) or "a worker process ended abruptly"
