"""What one document's work is, for every command that writes a line per document.

A job holds a command's options (picklable, sent to each worker process or
Dask worker) and builds its state once per process (`setup()`: the index, a
pipeline, a model); `run(records)` yields one result per record, in order:
what the command writes for it. The commands (`cli/`) only parse options,
build a job and print; `parallel.map_records` runs the job in this process,
in N processes or on a Dask cluster; a Python caller may run it directly:

    job = DetectJob("indexes/mine", k=2)
    for line, safe, verdict in job.run(iter_records("released.jsonl")):
        ...

Nothing here imports the command line or the parallel runners.
"""
from .deidentify import DeidentifyJob
from .detection import DetectJob, ShowJob
from .paraphrase import ParaphraseJob
from .rewrite import RewriteJob, registered_modules

__all__ = ["DetectJob", "ShowJob", "RewriteJob", "ParaphraseJob", "DeidentifyJob", "registered_modules"]
