"""Imported first by the fork server of `detect` and `show` (`DetectJob.preload`):
its workers fork with one BLAS thread and spaCy loaded without torch (`threads.py`)."""
from .threads import for_detection

for_detection()
