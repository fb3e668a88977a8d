"""Registration of `linkguard.RewriteSpans.v1` (entry point group `thinc_llm_tasks`)."""
from typing import Any, Callable, Iterable, Optional, Type

from spacy_llm.registry import registry
from spacy_llm.ty import ExamplesConfigType

from ....ngrams import DEFAULT_PLACEHOLDER
from ..rewrite.registry import build_task
from .parser import parse_responses_spans_v1
from .task import DEFAULT_TEMPLATE_PATH, RewriteSpansTask
from .util import DEFAULT_EXAMPLES_PATH, RewriteSpansExample


@registry.llm_tasks("linkguard.RewriteSpans.v1")
def make_rewrite_spans_task(
    template: Optional[str] = None,
    examples: ExamplesConfigType = None,
    parse_responses: Optional[Callable[..., Iterable[Any]]] = None,
    prompt_example_type: Optional[Type[RewriteSpansExample]] = None,
    placeholder: str = DEFAULT_PLACEHOLDER,
    field: str = "linkguard_text",
    spans_key: str = "linkguard",
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
    min_length_ratio: float = 0.6,
    max_length_ratio: float = 1.6,
    min_similarity: float = 0.5,
    max_added_words: int = 12,
    reject_new_details: bool = True,
    reject_redaction: bool = True,
) -> RewriteSpansTask:
    """linkguard.RewriteSpans.v1: the model returns one replacement per flagged
    span (`{"replacements": [{"span": ..., "replacement": ...}]}`) with the chunk
    as context, and the task applies them; for small models (Qwen2.5-Coder-1.5B).

    Arguments as `linkguard.Rewrite.v1`; template None: the bundled
    `templates/rewrite_spans.v1.jinja`; examples None: the bundled
    `examples/rewrite_spans.v1.yml` (text, spans, replacements), []: zero-shot.
    RETURNS (RewriteSpansTask).
    RAISES: LinkguardError E204 (invalid example), E206 (missing file), E207 (bad size).
    """
    return build_task(
        RewriteSpansTask, prompt_example_type or RewriteSpansExample, template, DEFAULT_TEMPLATE_PATH, examples,
        DEFAULT_EXAMPLES_PATH, parse_responses or parse_responses_spans_v1, placeholder=placeholder, field=field,
        spans_key=spans_key, sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
        min_length_ratio=min_length_ratio, max_length_ratio=max_length_ratio, min_similarity=min_similarity,
        max_added_words=max_added_words, reject_new_details=reject_new_details, reject_redaction=reject_redaction,
    )
