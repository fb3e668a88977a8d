"""The tokenizer whose tokens define N-grams: spaCy's English rules plus the placeholder."""
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # spaCy loads when a tokenizer is made: `index-stats` never imports it
    from spacy.tokenizer import Tokenizer


@lru_cache(maxsize=8)
def get_tokenizer(placeholder: str) -> "Tokenizer":
    """Return the (cached) tokenizer of `spacy.blank("en")` with `placeholder`
    added as a special case, so "[REDACTED]," gives "[REDACTED]" and ",".

    It is made the way `spacy.blank("en")` makes its tokenizer (spaCy's own
    `spacy.Tokenizer.v1` factory over English's defaults and vocabulary), but
    without creating a `Language`: that loads every installed package's spaCy
    factories (Presidio's and spacy-llm's import transformers and torch), which
    cost several seconds in each process that only tokenizes.
    tests/ngrams/test_tokenizer.py checks that both tokenizers are the same.
    """
    from spacy.lang.en import English
    from spacy.language import create_tokenizer
    from spacy.symbols import ORTH
    from spacy.vocab import create_vocab

    defaults = English.Defaults
    tokenizer = create_tokenizer()(SimpleNamespace(Defaults=defaults, vocab=create_vocab(English.lang, defaults)))
    tokenizer.add_special_case(placeholder, [{ORTH: placeholder}])
    return tokenizer
