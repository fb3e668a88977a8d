"""Few-shot examples of linkguard.RewriteSpans.v1: a passage, its spans and one replacement per span."""
from pathlib import Path
from typing import List

from pydantic import field_validator, model_validator
from spacy_llm.ty import FewshotExample

EXAMPLES_DIR = Path(__file__).parent.parent / "examples"
DEFAULT_EXAMPLES_PATH = EXAMPLES_DIR / "rewrite_spans.v1.yml"


class RewriteSpansExample(FewshotExample):
    """One few-shot example.

    Validation: at least one span, as many replacements as spans, every span
    occurs in `text`, and no replacement contains its span (both
    case-insensitively) -- an example that keeps its span teaches the model to.
    """

    text: str
    spans: List[str]
    replacements: List[str]

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @model_validator(mode="after")
    def _one_replacement_per_span(self) -> "RewriteSpansExample":
        if not self.spans:
            raise ValueError("`spans` is empty")
        if len(self.replacements) != len(self.spans):
            raise ValueError(f"{len(self.spans)} spans but {len(self.replacements)} replacements")
        for span, new in zip(self.spans, self.replacements):
            if span.casefold() not in self.text.casefold():
                raise ValueError(f"span {span!r} does not occur in text")
            if not new.strip() or span.casefold() in new.casefold():
                raise ValueError(f"replacement {new!r} of span {span!r} is blank or keeps the span")
        return self

    @classmethod
    def generate(cls, example, task):  # pragma: no cover - no gold replacements in spaCy Examples
        return None
