"""The spacy-llm task `linkguard.Rewrite.v1`: prompt, parser, few-shot examples."""
from .parser import parse_reply
from .task import RewriteTask
from .util import RewriteExample

__all__ = ["RewriteExample", "RewriteTask", "parse_reply"]
