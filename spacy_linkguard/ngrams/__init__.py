"""Tokens, segments and N-gram keys: the shared definition behind index and detector."""
from .normalize import Normalized, OffsetMap, normalize_lookalikes, normalize_text, token_key
from .segments import (
    Segment,
    normalized_segments,
    phrase_keys,
    query_key,
    query_keys,
    segment_ngrams,
    text_ngram_keys,
    text_segments,
)
from .settings import DEFAULT_MAX_N, DEFAULT_PLACEHOLDER, NgramSettings
from .tokenizer import get_tokenizer

__all__ = [
    "DEFAULT_MAX_N",
    "DEFAULT_PLACEHOLDER",
    "NgramSettings",
    "Normalized",
    "OffsetMap",
    "Segment",
    "get_tokenizer",
    "normalize_lookalikes",
    "normalize_text",
    "normalized_segments",
    "phrase_keys",
    "query_key",
    "query_keys",
    "segment_ngrams",
    "text_ngram_keys",
    "text_segments",
    "token_key",
]
