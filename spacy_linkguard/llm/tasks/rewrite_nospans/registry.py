"""Registration of `linkguard.RewriteNoSpans.v1` (entry point group `thinc_llm_tasks`)."""
from typing import Optional

from spacy_llm.registry import registry

from ....ngrams import DEFAULT_PLACEHOLDER
from ..rewrite.parser import parse_responses_v1
from ..rewrite.registry import build_task
from ..rewrite.util import RewriteExample
from .task import DEFAULT_TEMPLATE_PATH, NoSpanRewriteTask


@registry.llm_tasks("linkguard.RewriteNoSpans.v1")
def make_rewrite_nospans_task(
    template: Optional[str] = None,
    placeholder: str = DEFAULT_PLACEHOLDER,
    field: str = "linkguard_text",
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
    min_length_ratio: float = 0.6,
    max_length_ratio: float = 1.6,
    min_similarity: float = 0.5,
    max_added_words: int = 12,
    reject_new_details: bool = True,
    reject_redaction: bool = True,
) -> NoSpanRewriteTask:
    """linkguard.RewriteNoSpans.v1: rephrase every chunk as a whole (no span list, zero-shot).

    template (Optional[str]): Jinja prompt template text; None: the bundled
        `templates/rewrite_nospans.v1.jinja` (variables: input_json, text, placeholder).
    The other arguments are those of `linkguard.Rewrite.v1`.
    RETURNS (NoSpanRewriteTask).
    RAISES: LinkguardError E206 (missing file), E207 (bad size).
    """
    return build_task(
        NoSpanRewriteTask, RewriteExample, template, DEFAULT_TEMPLATE_PATH, [], None, parse_responses_v1,
        placeholder=placeholder, field=field, spans_key="linkguard", sentences_per_chunk=sentences_per_chunk,
        max_chunk_chars=max_chunk_chars, min_length_ratio=min_length_ratio, max_length_ratio=max_length_ratio,
        min_similarity=min_similarity, max_added_words=max_added_words, reject_new_details=reject_new_details,
        reject_redaction=reject_redaction,
    )
