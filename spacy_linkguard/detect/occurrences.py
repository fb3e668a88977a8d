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
from operator import add
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..ngrams import NgramSettings
from ..ngrams.segments import text_tokens_flat

# (first token, n tokens, key, df); tokens are numbered across the whole text.
Occurrence = Tuple[int, int, str, int]
DocFreqs = Callable[[Sequence[str]], np.ndarray]


@dataclass
class Frequent:
    """Every frequent occurrence (df >= k) of a text, and its one-token-longer neighbours.

    first, length: token span of each occurrence, sorted by (first, length).
    key_ids: number of each occurrence's key in `keys`.
    keys: distinct frequent keys, numbered by first occurrence in the text.
    df: document frequency of each key.
    left, right: for each occurrence, the row of the frequent occurrence
        (first - 1, length + 1) / (first, length + 1) of the same segment,
        -1 when that occurrence does not exist, is longer than max_n, or is
        not frequent. Every longer frequent occurrence containing an
        occurrence contains one of these two (SPEC.md "Candidates").
    """

    first: np.ndarray
    length: np.ndarray
    key_ids: np.ndarray
    keys: List[str]
    df: np.ndarray
    left: np.ndarray
    right: np.ndarray

    def __len__(self) -> int:
        return int(len(self.first))


@dataclass
class Occurrences:
    """The N-gram occurrences of one text that detection needs.

    starts, ends: character offsets of every N-gram token (boundary tokens dropped).
    segment_ends: for every token, the number of the first token after its segment.
    minimal_rare: occurrences with df in [1, k) whose sub-N-grams are all frequent.
    frequent: every occurrence with df >= k (`Frequent`).
    n_segments, n_lookups: sizes, for the report.
    """

    starts: np.ndarray
    ends: np.ndarray
    segment_ends: np.ndarray
    minimal_rare: List[Occurrence]
    frequent: Frequent
    n_segments: int
    n_lookups: int

    @property
    def n_tokens(self) -> int:
        return int(len(self.starts))

    def n_covered(self, spans: List[Tuple[int, int]]) -> int:
        """How many tokens lie inside the union of the (start_char, end_char)
        `spans` (any order, overlapping or not): the report's flagged_tokens."""
        covered, reach = 0, -1
        for a, b in sorted(spans):
            a = max(a, reach)  # the part not counted yet
            if b > a:
                lo = int(np.searchsorted(self.starts, a, side="left"))
                covered += int(np.searchsorted(self.starts, b, side="left")) - lo
                reach = b
        return covered

    def char_span(self, first: int, n: int) -> Tuple[int, int]:
        """Character offsets of the occurrence of `n` tokens starting at token `first`."""
        return int(self.starts[first]), int(self.ends[first + n - 1])


def find_occurrences(text: str, settings: NgramSettings, doc_freqs: DocFreqs, k: int,
                     with_frequent: bool = True) -> Occurrences:
    """Look up the document frequencies of `text`'s N-grams, level by level.

    text (str): The text (tokenized by `spacy_linkguard.ngrams.text_segments`).
    settings (NgramSettings): The index's settings (max_n, placeholder).
    doc_freqs (Callable): keys -> np.ndarray of df (0 when absent), e.g.
        `NgramIndex.key_doc_freqs`; keys may repeat (callers dedupe or cache).
    k (int): The anonymity threshold: df < k is rare, df >= k is frequent.
    with_frequent (bool): also tabulate the frequent occurrences (combinations
        need them; single N-grams do not).
    RETURNS (Occurrences): minimal rare and (if asked) all frequent occurrences.
    """
    flat = text_tokens_flat(text, settings)
    tokens: List[str] = flat.keys
    n_tok = len(tokens)
    seg_end = flat.seg_end
    seg_start = flat.seg_start
    minimal_rare: List[Occurrence] = []
    n_lookups = 0
    # Per length n (index n - 1): the key (a list by position for n = 1, then a
    # dict of the positions looked up) and df of the occurrence at each token.
    level_keys: List[Union[List[str], Dict[int, str]]] = []
    level_df: List[np.ndarray] = []
    keys: Union[List[str], Dict[int, str]] = list(tokens)
    spaced = [" " + t for t in tokens] if settings.max_n > 1 else []
    positions = np.arange(n_tok, dtype=np.int64)
    prev_freq: Optional[np.ndarray] = None
    for n in range(1, settings.max_n + 1):
        if n == 1:
            look = positions
        else:
            assert prev_freq is not None
            prev_keys = keys
            fits = positions[: max(n_tok - n + 1, 0)]
            fits = fits[fits + n <= seg_end[fits]]
            look = fits[prev_freq[fits] & prev_freq[fits + 1]]
            at = look.tolist()
            # key of (i, n) = key of (i, n - 1) + " " + token i + n - 1, joined in C (no frame per key)
            asked = list(map(add, map(prev_keys.__getitem__, at), map(spaced.__getitem__, (look + (n - 1)).tolist())))
            keys = dict(zip(at, asked))  # position -> key, for the positions looked up
        df = np.zeros(n_tok, dtype=np.int64)
        if n == 1 and n_tok:
            df[:] = doc_freqs(tokens)
            n_lookups += n_tok
        elif len(look):
            df[look] = doc_freqs(asked)
            n_lookups += len(look)
        freq = df >= k
        rare = np.nonzero((df >= 1) & (df < k))[0]
        minimal_rare.extend((int(i), n, keys[i], int(df[i])) for i in rare.tolist())  # type: ignore[misc]
        level_keys.append(keys)
        level_df.append(df)
        prev_freq = freq
        if not freq.any():
            break
    minimal_rare.sort(key=lambda o: (o[0], o[1]))
    return Occurrences(
        starts=flat.starts,
        ends=flat.ends,
        segment_ends=seg_end,
        minimal_rare=minimal_rare,
        frequent=_frequent_table(level_keys if with_frequent else [], level_df if with_frequent else [],
                                 seg_start, k),
        n_segments=flat.n_segments,
        n_lookups=n_lookups,
    )


def _frequent_table(level_keys, level_df, seg_start: np.ndarray, k: int) -> Frequent:
    """All frequent occurrences with their left/right one-token extensions."""
    n_tok = len(seg_start)
    n_levels = len(level_df)
    # row[n - 1][i]: row of the frequent occurrence (i, n) in the table, or -1.
    rows = [np.full(n_tok, -1, dtype=np.int64) for _ in range(n_levels)]
    firsts, lengths = [], []
    total = 0
    for n in range(1, n_levels + 1):
        at = np.nonzero(level_df[n - 1] >= k)[0]
        rows[n - 1][at] = np.arange(total, total + len(at))
        total += len(at)
        firsts.append(at)
        lengths.append(np.full(len(at), n, dtype=np.int64))
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    length = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
    left = np.full(total, -1, dtype=np.int64)
    right = np.full(total, -1, dtype=np.int64)
    for n in range(1, n_levels):
        at, longer = firsts[n - 1], rows[n]
        mine = rows[n - 1][at]
        # (i, n+1) is in the same segment whenever it was looked up (df > 0).
        right[mine] = longer[at]
        has_left = (at >= 1) & (at - 1 >= seg_start[at])
        left[mine[has_left]] = longer[at[has_left] - 1]
    occ_keys = [level_keys[n - 1][i] for n, at in enumerate(firsts, start=1) for i in at.tolist()]
    order = np.lexsort((length, first))
    inverse = np.empty(total, dtype=np.int64)
    inverse[order] = np.arange(total)
    number: Dict[str, int] = {}
    key_ids = np.empty(total, dtype=np.int64)
    for r in order.tolist():
        key_ids[inverse[r]] = number.setdefault(occ_keys[r], len(number))  # type: ignore[arg-type]
    keys = list(number)
    df_of = np.zeros(len(keys), dtype=np.int64)
    all_df = np.concatenate([level_df[n - 1][at] for n, at in enumerate(firsts, start=1)]) if firsts else df_of
    df_of[key_ids[inverse]] = all_df
    remap = lambda ext: np.where(ext >= 0, inverse[np.maximum(ext, 0)], -1)  # noqa: E731
    return Frequent(
        first=first[order], length=length[order], key_ids=key_ids, keys=keys, df=df_of,
        left=remap(left[order]), right=remap(right[order]),
    )
