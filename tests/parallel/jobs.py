"""A job for the pool tests: echoes ids, and on cue fails or dies (as a worker
killed for its memory would: os._exit, no Python clean-up)."""
import os
import time
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

from spacy_linkguard.errors import LinkguardError


@dataclass
class EchoJob:
    fail_on: Optional[str] = None  # id whose record raises a coded error
    die_on: Optional[str] = None  # id whose record ends the worker process (never with workers=1)
    slow_first: bool = False  # early records take longest, so later ones finish first
    setups: int = 0

    def setup(self) -> None:
        self.setups += 1

    def run(self, records: Iterable) -> Iterator[str]:
        for rec in records:
            if rec.id == self.die_on:
                os._exit(3)
            if rec.id == self.fail_on:
                raise LinkguardError(f"[E999] record {rec.id} (line {rec.line}) failed")
            if self.slow_first:
                time.sleep(max(0.0, 0.2 - 0.02 * rec.line))
            yield f"{rec.id}@{self.setups}"


@dataclass
class DeviceJob:
    """Answers (process id, the GPUs it sees) per record."""

    def setup(self) -> None:
        pass

    def run(self, records: Iterable) -> Iterator[tuple]:
        for _ in records:
            time.sleep(0.05)
            yield os.getpid(), os.environ.get("CUDA_VISIBLE_DEVICES")
