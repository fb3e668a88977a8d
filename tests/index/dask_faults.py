"""Worker deaths on cue for the Dask build tests (a `distributed.WorkerPlugin`).

`KillOnTask` ends a worker's process (os._exit, as the kernel's OOM killer or
the nanny's memory limit would) the moment a task of a given name starts
executing on it. Marker files in a folder shared by the test and its workers
count the starts and the deaths over the whole cluster, restarted workers
included, so the deaths come at the same point of the build every run.
"""
import os
from pathlib import Path

from distributed import WorkerPlugin


def claim(folder: Path, prefix: str) -> int:
    """The number of the first free marker `prefix`-N in `folder`, now taken (atomic across processes)."""
    i = 0
    while True:
        try:
            os.close(os.open(folder / f"{prefix}-{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return i
        except FileExistsError:
            i += 1


def deaths(folder: Path) -> int:
    """How many workers `KillOnTask` ended."""
    return len(list(Path(folder).glob("died-*")))


class KillOnTask(WorkerPlugin):
    """End the worker when a task of function `task` starts executing, from
    its `after`-th start on (counted over the cluster), `kills` times in all."""

    def __init__(self, folder: Path, task: str, *, after: int = 0, kills: int = 1):
        self.folder, self.task, self.after, self.kills = str(folder), task, after, kills

    def transition(self, key, start, finish, *args, **kwargs):
        # keys of tasks submitted with pure=False: "<function name>-<uuid4>"
        if finish != "executing" or not isinstance(key, str) or key.split("-", 1)[0] != self.task:
            return
        folder = Path(self.folder)
        if claim(folder, "start") >= self.after and claim(folder, "kill") < self.kills:
            claim(folder, "died")
            os._exit(1)
