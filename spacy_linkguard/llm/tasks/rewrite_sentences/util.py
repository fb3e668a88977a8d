"""Few-shot examples of linkguard.RewriteSentences.v1: a sentence, its phrases
(and, for `words_to_change`, the words to change), the rewritten sentence."""
import re
from pathlib import Path
from typing import List

from pydantic import field_validator, model_validator
from spacy_llm.ty import FewshotExample

from ..rewrite.util import check_replaced

EXAMPLES_DIR = Path(__file__).parent.parent / "examples"
DEFAULT_EXAMPLES_PATH = EXAMPLES_DIR / "rewrite_sentences.v1.yml"
# The bundled sets, by the name of the corpus they were written for (`examples =
# "wiki"` in the task config): sentences of judgments, sentences of biographies.
# The model copies the register of its examples, so they should be of the
# documents' own kind; for other documents write a file like these.
BUNDLED_EXAMPLES = {
    "echr": DEFAULT_EXAMPLES_PATH,
    "wiki": EXAMPLES_DIR / "rewrite_sentences.wiki.v1.yml",
}
# The same for `words_to_change = true`: each example names its words to change
# and changes only those (the phrase sets' examples reword more).
DEFAULT_WORDS_EXAMPLES_PATH = EXAMPLES_DIR / "rewrite_words.v1.yml"
BUNDLED_WORDS_EXAMPLES = {
    "echr": DEFAULT_WORDS_EXAMPLES_PATH,
    "wiki": EXAMPLES_DIR / "rewrite_words.wiki.v1.yml",
}


class RewriteSentencesExample(FewshotExample):
    """One few-shot example (`before` and `after`: its context, may be empty).

    `change`: the words to change (`words_to_change = true`); empty: the
    task chooses them from the phrases (`llm/pivots.py`), as for a document.

    Validation: at least one phrase; every phrase occurs in `sentence` and in
    no case in `rewritten` (case-insensitively) -- an example that keeps a
    phrase would teach the model to; every word to change is a word of
    `sentence`.
    """

    sentence: str
    phrases: List[str]
    rewritten: str
    before: str = ""
    after: str = ""
    change: List[str] = []

    @field_validator("sentence", "rewritten")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @model_validator(mode="after")
    def _phrases_replaced(self) -> "RewriteSentencesExample":
        check_replaced(self.phrases, self.sentence, self.rewritten, kind="phrase", where="sentence")
        sentence_words = set(re.findall(r"\w+", self.sentence))
        for word in self.change:
            if not re.fullmatch(r"\w+", word) or word not in sentence_words:
                raise ValueError(f"word to change {word!r} is not a word of the sentence")
        return self

    @classmethod
    def generate(cls, example, task):  # pragma: no cover - no gold rewrites in spaCy Examples
        return None
