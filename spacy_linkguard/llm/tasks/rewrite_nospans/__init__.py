"""The spacy-llm task `linkguard.RewriteNoSpans.v1`: rephrase whole chunks, no span list."""
from .task import NoSpanRewriteTask

__all__ = ["NoSpanRewriteTask"]
