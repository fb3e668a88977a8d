"""Registered functions of the evaluation (entry point group `spacy_misc`)."""
from typing import Any, Callable, Optional

from spacy.util import registry

from ..rewrite import LLMRewriter, RewriteLoop


@registry.misc("linkguard.NoSpanRewrite.v1")
def make_nospan_rewriter(
    passes: int = 2,
    template_path: Optional[str] = None,
    placeholder: str = "[REDACTED]",
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
) -> Callable[[Any], RewriteLoop]:
    """linkguard.NoSpanRewrite.v1: the "LLM rewrite, no span list" baseline.

    Returns a function that takes the LLM model (the one the rewrite config
    uses) and gives the `RewriteLoop` of the baseline: no detector, `passes`
    passes, no guarantee mode, no retries, the `linkguard.RewriteNoSpans.v1`
    task. `template_path`: a Jinja prompt file; default `rewrite_nospans.v1.jinja`.
    RAISES: LinkguardError E254 (passes < 1), E206 (missing template).
    """
    from ..errors import Errors, LinkguardError
    from ..llm.tasks.rewrite.task import read_template
    from ..llm.tasks.rewrite_nospans.registry import make_rewrite_nospans_task

    if not isinstance(passes, int) or passes < 1:
        raise LinkguardError(Errors.E254.format(name="passes", value=passes))
    task = make_rewrite_nospans_task(
        template=read_template(template_path) if template_path else None, placeholder=placeholder,
        sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
    )

    def build(model: Any) -> RewriteLoop:
        # Plain spacy-llm models report no tokens: the baseline has always counted words.
        rewriter = LLMRewriter(task, model, max_retries=0, count_words=True)
        return RewriteLoop(None, rewriter, max_passes=passes, guarantee=False)

    return build
