"""Registration of `linkguard.LLMRewriter.v1` (entry point group `spacy_misc`).

The `linkguard_rewrite` component builds this backend itself from its `task`
and `model`; the registered name lets a config give it as a `rewriter` block,
like any other backend (`linkguard.LexicalRewriter.v1`).
"""
from typing import Any

from spacy.util import registry

from .backends import LLMRewriter


@registry.misc("linkguard.LLMRewriter.v1")
def make_llm_rewriter(task: Any, model: Any, max_retries: int = 2, n_candidates: int = 1) -> LLMRewriter:
    """linkguard.LLMRewriter.v1: prompt `model` with `task` (`linkguard.Rewrite.v1`,
    `.RewriteSpans.v1` or `.RewriteNoSpans.v1`), retrying rejected replies up to
    `max_retries` times within a pass; `n_candidates` replies per chunk, the
    best kept (`rewrite/judge.py`).

    RETURNS (LLMRewriter).
    """
    return LLMRewriter(task, model, max_retries=max_retries, n_candidates=n_candidates)
