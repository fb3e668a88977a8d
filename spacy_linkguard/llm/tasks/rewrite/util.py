"""Few-shot examples of the rewrite task: a pydantic model and the bundled file."""
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from pydantic import ValidationError, field_validator, model_validator
from spacy.training import Example
from spacy_llm.ty import FewshotExample

from ....errors import Errors, LinkguardError

EXAMPLES_DIR = Path(__file__).parent.parent / "examples"
DEFAULT_EXAMPLES_PATH = EXAMPLES_DIR / "rewrite.v1.yml"
# The bundled examples write this placeholder; the task puts its own in its place.
EXAMPLES_PLACEHOLDER = "[REDACTED]"


class RewriteExample(FewshotExample):
    """One few-shot example: a passage, its spans, a short reasoning and the edit.

    Validation: at least one span; every span occurs in `text`; no span occurs
    in `rewritten` any more (both case-insensitively) -- an example that breaks
    its own rule would teach the model to break it.
    """

    text: str
    spans: List[str]
    reasoning: str
    rewritten: str

    @field_validator("text", "reasoning", "rewritten")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @model_validator(mode="after")
    def _spans_replaced(self) -> "RewriteExample":
        check_replaced(self.spans, self.text, self.rewritten, kind="span", where="text")
        return self

    @classmethod
    def generate(cls, example: Example, task: Any) -> Optional["RewriteExample"]:
        """A few-shot example from a spaCy Example whose reference Doc carries
        spans (in `task.spans_key`) and a released text (in `task.field`)."""
        ref = example.reference
        rewritten = getattr(ref._, task.field, None) if ref.has_extension(task.field) else None
        spans = [s.text for s in ref.spans.get(task.spans_key, [])]
        if not rewritten or not spans:
            return None
        try:
            return cls(text=ref.text, spans=spans, reasoning="", rewritten=rewritten)
        except ValidationError:
            return None


def check_replaced(phrases: List[str], text: str, rewritten: str, *, kind: str, where: str) -> None:
    """An example's rule, which it must not break itself: at least one phrase,
    each occurs in `text` and no longer in `rewritten` (case-insensitively).
    RAISES: ValueError naming the first phrase that breaks it."""
    if not phrases:
        raise ValueError(f"`{kind}s` is empty")
    for phrase in phrases:
        if phrase.casefold() not in text.casefold():
            raise ValueError(f"{kind} {phrase!r} does not occur in {where}")
        if phrase.casefold() in rewritten.casefold():
            raise ValueError(f"{kind} {phrase!r} still occurs in rewritten")


def validate_examples(raw: Iterable[Dict[str, Any]], example_type=RewriteExample) -> List[RewriteExample]:
    """Validate raw example dicts (from a yml/json/jsonl file or the config).

    RETURNS (List[RewriteExample]): The examples in order.
    RAISES: LinkguardError E204 naming the first invalid example and why.
    """
    out = []
    for n, eg in enumerate(raw, start=1):
        try:
            out.append(eg if isinstance(eg, example_type) else example_type(**eg))
        except (ValidationError, TypeError) as e:
            detail = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
            raise LinkguardError(Errors.E204.format(n=n, detail=detail)) from None
    return out


def read_examples(path=DEFAULT_EXAMPLES_PATH) -> List[Dict[str, Any]]:
    """Read raw examples from a .yml/.yaml/.json/.jsonl file.

    RAISES: LinkguardError E206 when the file does not exist.
    """
    from spacy_llm.registry import fewshot_reader

    path = Path(path)
    if not path.is_file():
        raise LinkguardError(Errors.E206.format(kind="few-shot examples", path=path))
    return list(fewshot_reader(path)())


def examples_file(value: Union[str, Path], bundled: Mapping[str, Path]) -> Path:
    """The file of few-shot examples that `value` names: the name of one of the
    task's bundled sets (`bundled`: name -> file) or the path of a file.

    RAISES: LinkguardError E234 when it is neither.
    """
    if str(value) in bundled:
        return bundled[str(value)]
    path = Path(value)
    if path.is_file():
        return path
    names = ", ".join(repr(name) for name in sorted(bundled)) or "this task has none"
    raise LinkguardError(Errors.E234.format(value=str(value), names=names))
