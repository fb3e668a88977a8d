"""Tokens, segments and N-gram keys: the shared definition behind index and detector."""
from .normalize import normalize_lookalikes, token_key
from .segments import Segment, query_key, query_keys, segment_ngrams, text_ngram_keys, text_segments
from .settings import DEFAULT_MAX_N, DEFAULT_PLACEHOLDER, NgramSettings
from .tokenizer import get_tokenizer

__all__ = [
    "DEFAULT_MAX_N",
    "DEFAULT_PLACEHOLDER",
    "NgramSettings",
    "Segment",
    "get_tokenizer",
    "normalize_lookalikes",
    "query_key",
    "query_keys",
    "segment_ngrams",
    "text_ngram_keys",
    "text_segments",
    "token_key",
]
