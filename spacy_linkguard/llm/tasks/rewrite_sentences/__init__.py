"""linkguard.RewriteSentences.v1: the model regenerates each sentence that holds flagged spans."""
from .task import RewriteSentencesTask

__all__ = ["RewriteSentencesTask"]
