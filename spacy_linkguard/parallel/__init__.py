"""Running a command's per-document work in several processes (`--workers N`).

`map_records(job, records, workers=N)` yields the job's results in input order,
whatever order the workers finish in; the commands write them through
`cli/output.atomic_output`, so a failure leaves no partial output file.
The jobs (what a worker builds once, what it does per document) live below,
in `spacy_linkguard/jobs/`; here only how they run: `pool.py` the process
pool on this machine, `cluster.py` a Dask cluster, `chunks.py` the input read
a chunk at a time for both.
"""
from .pool import Job, map_records

__all__ = ["Job", "map_records"]
