"""Segments and N-gram keys of a text, as SPEC.md defines them.

The text is normalized first (`normalize.normalize_text`), tokenized, and
every token reported at its offsets in the original text. A segment is a
maximal run of tokens none of which is a boundary token (punctuation, a blank
line, or a token containing the placeholder). An N-gram is
a run of 1..max_n consecutive tokens inside one segment; its key is the
case-folded token texts joined by one space.
"""
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..errors import Errors, LinkguardError
from .chunks import get_chunk_tokenizer
from .normalize import normalize_text, token_key
from .settings import NgramSettings
from .tokenizer import get_tokenizer


@dataclass(frozen=True)
class Segment:
    """One segment: token keys with the character offsets of each token."""

    keys: Tuple[str, ...]
    starts: Tuple[int, ...]
    ends: Tuple[int, ...]

    def __len__(self) -> int:
        return len(self.keys)


def text_segments(text: str, settings: NgramSettings) -> List[Segment]:
    """Split `text` into segments of N-gram tokens.

    text (str): The raw text (normalized here, see `normalize_text`).
    settings (NgramSettings): Placeholder and normalization settings.
    RETURNS (List[Segment]): Segments in text order; boundary tokens are
        dropped. Offsets refer to `text`: a token spans the original
        characters its normalized characters came from (dropped characters at
        its edges excluded).
    """
    norm = normalize_text(text)
    tokens = normalized_tokens(norm.text, settings.placeholder)
    if norm.offsets is not None:
        tokens = norm.offsets.map_tokens(tokens)
    return tokens_to_segments(tokens)


class FlatTokens(NamedTuple):
    """The segments of `text_segments`, as one token sequence (the detector's form).

    keys: every segment's token keys, segment after segment.
    starts, ends (int64): each token's character offsets (as `Segment`).
    seg_start, seg_end (int64): for each token, the number of the first token of
        its segment and of the first token after it.
    n_segments: how many segments.
    """

    keys: List[str]
    starts: np.ndarray
    ends: np.ndarray
    seg_start: np.ndarray
    seg_end: np.ndarray
    n_segments: int


@lru_cache(maxsize=1 << 16)
def phrase_keys(phrase: str, settings: NgramSettings) -> Tuple[str, ...]:
    """The token keys of a short phrase, segment after segment (how a banned or
    flagged phrase is matched against a text); cached, as the same phrases are
    matched against many candidate replies."""
    return tuple(k for seg in text_segments(phrase, settings) for k in seg.keys)


def text_tokens_flat(text: str, settings: NgramSettings) -> FlatTokens:
    """`text_segments(text, settings)` flattened into a `FlatTokens`, computed
    without a Python object per token where the text's offsets need no map
    (then exactly `flat_from_segments(text_segments(text, settings))`)."""
    norm = normalize_text(text)
    chunked = get_chunk_tokenizer(settings.placeholder)
    if chunked is None or norm.offsets is not None:
        return flat_from_segments(text_segments(text, settings))
    all_keys, starts, ends, gap_before = chunked.flat(norm.text)
    is_token = np.fromiter((k is not None for k in all_keys), dtype=bool, count=len(all_keys))
    # a segment starts at a token after a boundary token or a boundary gap (or at the first)
    after_boundary = np.ones(len(all_keys), dtype=bool)
    after_boundary[1:] = ~is_token[:-1]
    at = np.flatnonzero(is_token)
    first = (after_boundary | gap_before)[at]
    keys = [k for k in all_keys if k is not None]
    return _flat(keys, starts[at], ends[at], first)


def flat_from_segments(segments: Sequence[Segment]) -> FlatTokens:
    """The `FlatTokens` of segments (the reference form)."""
    keys = [k for seg in segments for k in seg.keys]
    starts = np.fromiter((x for seg in segments for x in seg.starts), dtype=np.int64, count=len(keys))
    ends = np.fromiter((x for seg in segments for x in seg.ends), dtype=np.int64, count=len(keys))
    first = np.zeros(len(keys), dtype=bool)
    first[np.cumsum([0] + [len(seg) for seg in segments])[:-1]] = True
    return _flat(keys, starts, ends, first)


def _flat(keys: List[str], starts: np.ndarray, ends: np.ndarray, first: np.ndarray) -> FlatTokens:
    """FlatTokens from each token's flag `first` (it starts a segment)."""
    n = len(keys)
    seg_firsts = np.flatnonzero(first)
    seg_of = np.cumsum(first) - 1
    bounds = np.append(seg_firsts, n).astype(np.int64)
    return FlatTokens(keys, starts.astype(np.int64, copy=False), ends.astype(np.int64, copy=False),
                      bounds[:-1][seg_of] if n else np.zeros(0, dtype=np.int64),
                      bounds[1:][seg_of] if n else np.zeros(0, dtype=np.int64), len(seg_firsts))


def normalized_segments(norm_text: str, settings: NgramSettings) -> List[Segment]:
    """Segments of an already normalized text (`normalize_text(text).text`),
    offsets into it. The index builder uses it: it needs keys, not offsets."""
    return tokens_to_segments(normalized_tokens(norm_text, settings.placeholder))


def normalized_tokens(norm_text: str, placeholder: str) -> List[Tuple[int, int, Optional[str]]]:
    """(start, end, key) of every token of a normalized text; key None for a boundary token."""
    chunked = get_chunk_tokenizer(placeholder)
    return chunked(norm_text) if chunked is not None else spacy_tokens(norm_text, placeholder)


def tokens_to_segments(tokens: Iterable[Tuple[int, int, Optional[str]]]) -> List[Segment]:
    """Segments of (start, end, key) tokens: boundary tokens (key None) split them."""
    segments: List[Segment] = []
    keys: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    for start, end, key in tokens:
        if key is None:
            if keys:
                segments.append(Segment(tuple(keys), tuple(starts), tuple(ends)))
                keys, starts, ends = [], [], []
            continue
        keys.append(key)
        starts.append(start)
        ends.append(end)
    if keys:
        segments.append(Segment(tuple(keys), tuple(starts), tuple(ends)))
    return segments


def spacy_tokens(text: str, placeholder: str) -> List[Tuple[int, int, Optional[str]]]:
    """(start, end, key) of every token of `get_tokenizer(placeholder)(text)`;
    key None for a boundary token (punctuation, whitespace, or containing the
    placeholder). The reference that `ChunkTokenizer` reproduces faster; both
    are given normalized text, whose only whitespace token is a blank line."""
    out: List[Tuple[int, int, Optional[str]]] = []
    for tok in get_tokenizer(placeholder)(text):
        boundary = tok.is_punct or tok.is_space or placeholder in tok.text
        out.append((tok.idx, tok.idx + len(tok.text), None if boundary else token_key(tok.text)))
    return out


def segment_ngrams(segment: Segment, max_n: int) -> Iterator[Tuple[int, int, str]]:
    """Yield (first_token, n, key) for every N-gram of a segment, n = 1..max_n."""
    keys = segment.keys
    for i in range(len(keys)):
        for n in range(1, min(max_n, len(keys) - i) + 1):
            yield i, n, " ".join(keys[i : i + n])


def text_ngram_keys(text: str, settings: NgramSettings) -> set:
    """The set of distinct N-gram keys of `text` (the brute-force definition)."""
    out = set()
    for seg in text_segments(text, settings):
        out.update(key for _, _, key in segment_ngrams(seg, settings.max_n))
    return out


def query_key(text: str, settings: NgramSettings) -> str:
    """The key of a phrase used as a query: exactly one segment, at most max_n tokens.

    RAISES: LinkguardError E004 when the phrase spans a boundary, is empty, or is too long.
    """
    segs = text_segments(text, settings)
    if len(segs) != 1:
        raise LinkguardError(Errors.E004.format(text=_preview(text), n=len(segs)))
    if len(segs[0]) > settings.max_n:
        raise LinkguardError(
            Errors.E005.format(text=_preview(text), n=len(segs[0]), max_n=settings.max_n)
        )
    return " ".join(segs[0].keys)


def query_keys(texts: Sequence[str], settings: NgramSettings) -> List[str]:
    """`query_key` for many phrases."""
    return [query_key(t, settings) for t in texts]


def _preview(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")
