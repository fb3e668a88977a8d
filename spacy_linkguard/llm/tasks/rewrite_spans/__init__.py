"""The spacy-llm task `linkguard.RewriteSpans.v1`: one replacement per flagged span."""
from .parser import apply_replacements, parse_replacements
from .task import RewriteSpansTask
from .util import RewriteSpansExample

__all__ = ["RewriteSpansExample", "RewriteSpansTask", "apply_replacements", "parse_replacements"]
