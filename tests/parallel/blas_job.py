"""A job for the thread tests. NumPy loads when this module is imported, as the
detection jobs' modules load it in their fork server (`job.preload`)."""
import os
from dataclasses import dataclass
from typing import Iterable, Iterator, Tuple

import numpy  # noqa: F401 -- loaded at import, on purpose


@dataclass
class BlasJob:
    """Answers (process id, its BLAS threads as threadpoolctl sees them) per record."""

    def setup(self) -> None:
        pass

    def run(self, records: Iterable) -> Iterator[Tuple[int, int]]:
        from threadpoolctl import threadpool_info

        blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        for _ in records:
            yield os.getpid(), max(blas)
