"""Segments and N-gram keys of a text, as SPEC.md defines them.

The text is normalized first (`normalize.normalize_text`), tokenized, and
every token reported at its offsets in the original text. A segment is a
maximal run of tokens none of which is a boundary token (punctuation, a blank
line, or a token containing the placeholder). An N-gram is
a run of 1..max_n consecutive tokens inside one segment; its key is the
case-folded token texts joined by one space.
"""
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

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
