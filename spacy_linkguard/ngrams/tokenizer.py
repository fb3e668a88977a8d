"""The tokenizer whose tokens define N-grams: spaCy's English rules plus the placeholder."""
from functools import lru_cache

import spacy
from spacy.symbols import ORTH
from spacy.tokenizer import Tokenizer


@lru_cache(maxsize=8)
def get_tokenizer(placeholder: str) -> Tokenizer:
    """Return the (cached) tokenizer of `spacy.blank("en")` with `placeholder`
    added as a special case, so "[REDACTED]," gives "[REDACTED]" and ",".
    """
    tokenizer = spacy.blank("en").tokenizer
    tokenizer.add_special_case(placeholder, [{ORTH: placeholder}])
    return tokenizer
