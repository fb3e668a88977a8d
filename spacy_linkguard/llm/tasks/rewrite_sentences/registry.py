"""Registration of `linkguard.RewriteSentences.v1` (entry point group `thinc_llm_tasks`)."""
from typing import Any, Callable, Iterable, Optional, Type, Union

from spacy_llm.registry import registry
from spacy_llm.ty import ExamplesConfigType

from ....ngrams import DEFAULT_PLACEHOLDER
from ..rewrite.registry import build_task
from ..rewrite.task import read_template
from .parser import parse_responses_sentences_v1
from .task import (DEFAULT_GENERALIZE_TEMPLATE_PATH, DEFAULT_TEMPLATE_PATH, DEFAULT_WORDS_TEMPLATE_PATH,
                   RewriteSentencesTask)
from .util import (BUNDLED_EXAMPLES, BUNDLED_WORDS_EXAMPLES, DEFAULT_EXAMPLES_PATH, DEFAULT_WORDS_EXAMPLES_PATH,
                   RewriteSentencesExample)


@registry.llm_tasks("linkguard.RewriteSentences.v1")
def make_rewrite_sentences_task(
    template: Optional[str] = None,
    generalize_template: Optional[str] = None,
    examples: Union[str, ExamplesConfigType] = None,
    parse_responses: Optional[Callable[..., Iterable[Any]]] = None,
    prompt_example_type: Optional[Type[RewriteSentencesExample]] = None,
    placeholder: str = DEFAULT_PLACEHOLDER,
    field: str = "linkguard_text",
    spans_key: str = "linkguard",
    sentences_per_chunk: int = 1,
    max_chunk_chars: int = 1200,
    min_length_ratio: float = 0.6,
    max_length_ratio: float = 1.6,
    min_similarity: float = 0.3,
    max_added_words: int = 12,
    reject_new_details: bool = True,
    reject_redaction: bool = True,
    fact_guard: bool = True,
    words_to_change: bool = False,
) -> RewriteSentencesTask:
    """linkguard.RewriteSentences.v1: the model writes each sentence holding
    flagged spans again, whole, under banned phrases, with its neighbours as
    read-only context; replies pass the guards and the fact guard.

    template (Optional[str]): The prompt; None: the bundled
        `templates/rewrite_sentences.v1.jinja` (with `words_to_change`:
        `templates/rewrite_words.v1.jinja`).
    generalize_template (Optional[str]): The prompt of the last round (a more
        general sentence); None: `templates/rewrite_sentences_generalize.v1.jinja`.
    examples: Few-shot examples: a bundled set by name, "echr" (sentences of
        judgments, `examples/rewrite_sentences.v1.yml`) or "wiki" (sentences
        of biographies, `examples/rewrite_sentences.wiki.v1.yml`; with
        `words_to_change`, `examples/rewrite_words.v1.yml` and
        `examples/rewrite_words.wiki.v1.yml`); the path of
        a .yml/.json/.jsonl file of your own; `spacy.FewShotReader.v1`; a list
        of dicts; None: "echr"; []: zero-shot. The model takes on the register
        of its examples (judgment examples put "the applicant" into
        biographies), so give examples of the documents' own kind.
    min_similarity (float): Lower than the other forms' 0.5: a sentence that
        holds several phrases may have to change more of its words.
    fact_guard (bool): Reject a reply that drops, changes or invents a number,
        ordinal, number word, negation or legal reference (`llm/facts.py`),
        or turns a word into its opposite (`filters/f3_polarity.py`).
    words_to_change (bool): Name, instead of the flagged phrases, the fewest
        words whose change removes them all (`llm/pivots.py`), and ask the
        model to change those and keep the rest.
    Other arguments as `linkguard.Rewrite.v1`.
    RETURNS (RewriteSentencesTask).
    RAISES: LinkguardError E204 (invalid example), E206 (missing file), E207 (bad size),
        E234 (examples neither a bundled set nor a file).
    """
    template_path = DEFAULT_WORDS_TEMPLATE_PATH if words_to_change else DEFAULT_TEMPLATE_PATH
    examples_path = DEFAULT_WORDS_EXAMPLES_PATH if words_to_change else DEFAULT_EXAMPLES_PATH
    return build_task(
        RewriteSentencesTask, prompt_example_type or RewriteSentencesExample, template, template_path, examples,
        examples_path, parse_responses or parse_responses_sentences_v1, placeholder=placeholder,
        field=field, spans_key=spans_key, sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
        min_length_ratio=min_length_ratio, max_length_ratio=max_length_ratio, min_similarity=min_similarity,
        max_added_words=max_added_words, reject_new_details=reject_new_details, reject_redaction=reject_redaction,
        generalize_template=(generalize_template if generalize_template is not None
                             else read_template(DEFAULT_GENERALIZE_TEMPLATE_PATH)),
        fact_guard=fact_guard, words_to_change=words_to_change,
        bundled_examples=BUNDLED_WORDS_EXAMPLES if words_to_change else BUNDLED_EXAMPLES,
    )
