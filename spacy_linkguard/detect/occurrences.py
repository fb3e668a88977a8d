"""Document frequencies of a text's N-gram occurrences, level by level.

Frequency is monotone: an N-gram's df is at most the df of each of its
sub-N-grams. So an (n)-gram can be frequent (df >= k) only when both of its
(n-1)-sub-N-grams are frequent, and it is a *minimal* rare N-gram only when
both are frequent and its own df is in [1, k). Looking up exactly those
(n)-grams, one batched `key_doc_freqs` call per length (Apriori order), gives
every df the definitions of SPEC.md need, without touching the N-grams
that contain an absent or rare one.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from ..ngrams import NgramSettings, text_segments

# (first token, n tokens, key, df); tokens are numbered across the whole text.
Occurrence = Tuple[int, int, str, int]
DocFreqs = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Occurrences:
    """The N-gram occurrences of one text that detection needs.

    starts, ends: character offsets of every N-gram token (boundary tokens dropped).
    segment_ends: for every token, the number of the first token after its segment.
    minimal_rare: occurrences with df in [1, k) whose sub-N-grams are all frequent.
    maximal_frequent: occurrences with df >= k contained in no longer frequent
        occurrence of the same segment (SPEC.md "Candidates").
    n_segments, n_lookups: sizes, for the report.
    """

    starts: np.ndarray
    ends: np.ndarray
    segment_ends: np.ndarray
    minimal_rare: List[Occurrence]
    maximal_frequent: List[Occurrence]
    n_segments: int
    n_lookups: int

    @property
    def n_tokens(self) -> int:
        return int(len(self.starts))

    def char_span(self, first: int, n: int) -> Tuple[int, int]:
        """Character offsets of the occurrence of `n` tokens starting at token `first`."""
        return int(self.starts[first]), int(self.ends[first + n - 1])


def find_occurrences(text: str, settings: NgramSettings, doc_freqs: DocFreqs, k: int) -> Occurrences:
    """Look up the document frequencies of `text`'s N-grams, level by level.

    text (str): The text (tokenized by `spacy_linkguard.ngrams.text_segments`).
    settings (NgramSettings): The index's settings (max_n, placeholder).
    doc_freqs (Callable): keys -> np.ndarray of df (0 when absent), e.g.
        `NgramIndex.key_doc_freqs`; keys may repeat (callers dedupe or cache).
    k (int): The anonymity threshold: df < k is rare, df >= k is frequent.
    RETURNS (Occurrences): minimal rare and maximal frequent occurrences.
    """
    segments = text_segments(text, settings)
    tokens: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    seg_ends: List[int] = []
    for seg in segments:
        tokens.extend(seg.keys)
        starts.extend(seg.starts)
        ends.extend(seg.ends)
        seg_ends.extend([len(tokens)] * len(seg))
    n_tok = len(tokens)
    seg_end = np.asarray(seg_ends, dtype=np.int64)
    minimal_rare: List[Occurrence] = []
    maximal: List[Occurrence] = []
    n_lookups = 0
    # keys[i] / freq[i] describe the occurrence of the current length n at token i.
    keys: List[Optional[str]] = list(tokens)
    positions = np.arange(n_tok, dtype=np.int64)
    prev_freq: Optional[np.ndarray] = None
    prev_keys: List[Optional[str]] = []
    prev_df: Optional[np.ndarray] = None
    for n in range(1, settings.max_n + 1):
        if n == 1:
            look = positions
        else:
            assert prev_freq is not None
            fits = positions[: max(n_tok - n + 1, 0)]
            fits = fits[fits + n <= seg_end[fits]]
            look = fits[prev_freq[fits] & prev_freq[fits + 1]]
            keys = [None] * n_tok
            for i in look.tolist():
                keys[i] = f"{prev_keys[i]} {tokens[i + n - 1]}"
        df = np.zeros(n_tok, dtype=np.int64)
        if n == 1 and n_tok:
            df[:] = doc_freqs(tokens)
            n_lookups += n_tok
        elif len(look):
            df[look] = doc_freqs([keys[i] for i in look.tolist()])
            n_lookups += len(look)
        freq = df >= k
        rare = np.nonzero((df >= 1) & (df < k))[0]
        minimal_rare.extend((int(i), n, keys[i], int(df[i])) for i in rare.tolist())  # type: ignore[misc]
        if prev_freq is not None:
            _collect_maximal(prev_freq, freq, prev_keys, prev_df, n - 1, maximal)
        prev_freq, prev_keys, prev_df = freq, keys, df
        if not freq.any():
            break
    if prev_freq is not None:
        _collect_maximal(prev_freq, np.zeros_like(prev_freq), prev_keys, prev_df, n, maximal)
    minimal_rare.sort(key=lambda o: (o[0], o[1]))
    maximal.sort(key=lambda o: (o[0], o[1]))
    return Occurrences(
        starts=np.asarray(starts, dtype=np.int64),
        ends=np.asarray(ends, dtype=np.int64),
        segment_ends=seg_end,
        minimal_rare=minimal_rare,
        maximal_frequent=maximal,
        n_segments=len(segments),
        n_lookups=n_lookups,
    )


def _collect_maximal(freq, longer_freq, keys, df, n: int, out: List[Occurrence]) -> None:
    """Frequent occurrences of length n that no frequent (n+1)-gram contains.

    Any longer frequent occurrence containing (i, n) contains (i, n+1) or
    (i-1, n+1), which are then frequent too, so checking those two suffices.
    """
    covered = longer_freq.copy()
    covered[1:] |= longer_freq[:-1]
    for i in np.nonzero(freq & ~covered)[0].tolist():
        out.append((int(i), n, keys[i], int(df[i])))
