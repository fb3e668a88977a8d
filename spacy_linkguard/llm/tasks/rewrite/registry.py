"""Registration of `linkguard.Rewrite.v1` (entry point group `thinc_llm_tasks`)."""
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Type

from spacy_llm.registry import registry
from spacy_llm.ty import ExamplesConfigType

from ....ngrams import DEFAULT_PLACEHOLDER
from ...chunking import ChunkSettings
from ....filters.f1_reply import GuardSettings
from .parser import parse_responses_v1
from .task import DEFAULT_TEMPLATE_PATH, RewriteTask, read_template
from .util import DEFAULT_EXAMPLES_PATH, RewriteExample, examples_file, read_examples, validate_examples


@registry.llm_tasks("linkguard.Rewrite.v1")
def make_rewrite_task(
    template: Optional[str] = None,
    examples: ExamplesConfigType = None,
    parse_responses: Optional[Callable[..., Iterable[Any]]] = None,
    prompt_example_type: Optional[Type[RewriteExample]] = None,
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
) -> RewriteTask:
    """linkguard.Rewrite.v1: rephrase flagged spans, a chunk of sentences at a time.

    template (Optional[str]): Jinja prompt template text; None: the bundled
        `templates/rewrite.v1.jinja` (override with `spacy.FileReader.v1`).
    examples (ExamplesConfigType): Few-shot examples (`spacy.FewShotReader.v1`
        or a list of dicts); None: the bundled `examples/rewrite.v1.yml`; []: zero-shot.
    parse_responses: Reply parser; None: `parse_responses_v1`.
    prompt_example_type: Pydantic model of an example; None: `RewriteExample`.
    placeholder (str): What unrephrasable spans become (the index's placeholder).
    field (str): Doc extension for the released text (spacy-llm's `llm` component).
    spans_key (str): `doc.spans` key of the flagged spans (spacy-llm's `llm` component).
    sentences_per_chunk, max_chunk_chars (int): Chunk sizes.
    min_length_ratio, max_length_ratio, min_similarity, max_added_words: Reply guards.
    reject_new_details (bool): Reject replies that add numbers or names absent
        from the chunk (see `filters.f1_reply.new_details`).
    reject_redaction (bool): Reject replies that write the placeholder in
        place of a span (a redaction, not a rephrasing).
    RETURNS (RewriteTask).
    RAISES: LinkguardError E204 (invalid example), E206 (missing file), E207 (bad size).
    """
    return build_task(
        RewriteTask, prompt_example_type or RewriteExample, template, DEFAULT_TEMPLATE_PATH, examples,
        DEFAULT_EXAMPLES_PATH, parse_responses or parse_responses_v1, placeholder=placeholder, field=field,
        spans_key=spans_key, sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
        min_length_ratio=min_length_ratio, max_length_ratio=max_length_ratio, min_similarity=min_similarity,
        max_added_words=max_added_words, reject_new_details=reject_new_details, reject_redaction=reject_redaction,
    )


def build_task(task_cls: Type[Any], example_type: Type[Any], template: Optional[str], template_path: Any,
               examples: ExamplesConfigType, examples_path: Any, parse_responses: Callable[..., Iterable[Any]], *,
               placeholder: str, field: str, spans_key: str, sentences_per_chunk: int, max_chunk_chars: int,
               min_length_ratio: float, max_length_ratio: float, min_similarity: float, max_added_words: int,
               reject_new_details: bool, reject_redaction: bool = True,
               bundled_examples: Optional[Mapping[str, Path]] = None, **extra: Any) -> Any:
    """One rewrite task from its registered arguments (every rewrite task form
    shares them): bundled template and examples when none are given, examples
    validated, chunking and guard settings built; `extra` goes to the task's
    own arguments (`generalize_template` of linkguard.RewriteSentences.v1).
    `examples` given as a string names one of `bundled_examples` (name -> file)
    or a file of examples.

    RAISES: LinkguardError E204 (invalid example), E206 (missing file), E207
    (bad size), E234 (examples neither a bundled set nor a file).
    """
    raw = examples() if callable(examples) else examples
    if raw is None:
        raw = read_examples(examples_path)
    elif isinstance(raw, (str, Path)):
        raw = read_examples(examples_file(raw, bundled_examples or {}))
    return task_cls(
        template=template if template is not None else read_template(template_path),
        prompt_examples=validate_examples(raw, example_type),
        prompt_example_type=example_type,
        parse_responses=parse_responses,
        placeholder=placeholder,
        field=field,
        spans_key=spans_key,
        chunking=ChunkSettings(sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars),
        guards=GuardSettings(
            min_length_ratio=min_length_ratio,
            max_length_ratio=max_length_ratio,
            min_similarity=min_similarity,
            max_added_words=max_added_words,
            reject_new_details=reject_new_details,
            reject_redaction=reject_redaction,
        ),
        **extra,
    )
