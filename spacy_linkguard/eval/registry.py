"""Registered functions of the evaluation (entry point group `spacy_misc`)."""
from typing import Any, Callable, Optional

from spacy.util import registry

from .baseline_nospans import NoSpanRewriter


@registry.misc("linkguard.NoSpanRewrite.v1")
def make_nospan_rewriter(
    passes: int = 2,
    template_path: Optional[str] = None,
    placeholder: str = "[REDACTED]",
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
) -> Callable[[Any], NoSpanRewriter]:
    """linkguard.NoSpanRewrite.v1: the "LLM rewrite, no span list" baseline.

    Returns a function that takes the LLM model (the one the rewrite config
    uses) and gives a `NoSpanRewriter`. `template_path`: a Jinja prompt file;
    default `rewrite_nospans.v1.jinja` beside the rewrite task's templates.
    """
    from pathlib import Path

    template = Path(template_path).read_text(encoding="utf-8") if template_path else ""

    def build(model: Any) -> NoSpanRewriter:
        return NoSpanRewriter(model=model, passes=passes, template=template, placeholder=placeholder,
                              sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars)

    return build
