"""Build the pruned layout: N by N, only the N-grams whose sub-N-grams are frequent.

A detector with k >= 2 asks for a posting list only when both (n-1)-token
sub-N-grams of an N-gram have df >= 2 (df >= k); any other N-gram contains a
sub-N-gram in at most one document, so its own df is 0 or 1 and its one
possible document is that sub-N-gram's. The pruned index keeps the unigrams
and the N-grams whose two sub-N-grams both have df >= 2 (by induction: all of
whose shorter sub-N-grams do), and each document's token ids
(`doc_tokens.py`), from which every other answer follows (`pruned_lookup.py`).

Level n (Apriori): the occurrences whose N-gram is kept are the positions p
where the (n-1)-grams at p and p+1 are both frequent; their hashes are sorted
and grouped as in the full build (`runs.py`: hashes only group rows, equal
hashes are checked against the tokens, a collision retries with another
seed). The other occurrences are only counted (each such N-gram is in one
document), so that `n_ngrams`, `n_postings` and Figure 2 stay those of the
full index. Memory: about 120 bytes per token position, whatever the budget
(budget.check_pruned_budget warns, W051, when that exceeds it).
"""
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional

import numpy as np

from ..errors import Errors, LinkguardError
from .doc_tokens import SEGMENT_END, encode_varints
from .postings_codec import DELTA_VARINT
from .runs import (
    MAX_ATTEMPTS,
    HashCollision,
    RowSink,
    _check_equal_adjacent,
    _dedup,
    _KeyText,
    _mix,
    seed_for,
)
from .tokens import SENTINEL, TokenStream
from .writer import Source


@dataclass
class PrunedRows:
    """What the pruned build gives the writer: kept rows, pruned counts, token ranks."""

    source: Source
    pruned_by_n: Dict[int, int]  # distinct pruned N-grams (each in one document) per N
    kept_by_n: Dict[int, int]
    rank_order: np.ndarray  # token ids of the stream's vocabulary, most frequent first
    doc_bytes: np.ndarray  # uint8: varint token ranks of every document
    doc_offsets: np.ndarray  # uint64: n_docs + 1 byte offsets into doc_bytes


def _mask() -> np.uint64:
    from . import runs

    return runs.HASH_MASK  # read at call time: tests replace it to force collisions


def _sorted_groups(t: np.ndarray, h: np.ndarray, pos: np.ndarray, doc: np.ndarray, n: int, max_n: int):
    """Occurrences sorted by hash (ties in position order), checked for collisions."""
    order = np.argsort(h, kind="stable")
    h, pos = h[order], pos[order]
    d = doc[pos]
    _check_equal_adjacent(t, h, pos, np.full(len(pos), n, dtype=np.uint8), max_n)
    return h, pos, d


def _levels(stream: TokenStream, workdir: Path, *, max_n: int, seed: np.uint64, progress: bool) -> PrunedRows:
    from tqdm import tqdm

    t = np.array(stream.tokens(), dtype=np.uint32)
    L = len(t)
    idx = np.where(t == SENTINEL, np.arange(L), L)
    rem = (np.minimum.accumulate(idx[::-1])[::-1] - np.arange(L)).astype(np.int32)  # tokens left in the segment
    del idx
    doc = np.repeat(np.arange(stream.n_docs, dtype=np.uint32), np.diff(stream.doc_starts))
    keytext = _KeyText(stream.vocab, t)
    sink = RowSink(workdir, keytext, max_n, encoding=DELTA_VARINT)
    pruned: Dict[int, int] = {}
    kept: Dict[int, int] = {}
    unigram_df = np.zeros(len(stream.vocab), dtype=np.int64)
    starts = np.flatnonzero(rem >= 1)
    h = _mix(np.full(len(starts), seed, dtype=np.uint64), t[starts])
    freq = np.zeros(0, dtype=bool)
    mask = _mask()
    with tqdm(total=max_n, desc="N-grams (pruned)", unit="N", disable=not progress, leave=False) as bar:
        for n in range(1, max_n + 1):
            if not len(starts):
                break
            if n > 1:
                more = rem[starts] >= n
                starts = starts[more]
                if not len(starts):
                    break
                h = _mix(h[more], t[starts + n - 1])
                del more
                cand = freq[starts] & freq[starts + 1]
            else:
                cand = np.ones(len(starts), dtype=bool)
            # kept N-grams: every occurrence, grouped into rows
            freq = np.zeros(L, dtype=bool)
            kept[n] = 0
            if cand.any():
                ch, cpos, cdoc = _sorted_groups(t, h[cand] & mask, starts[cand], doc, n, max_n)
                new = np.concatenate([[True], ch[1:] != ch[:-1]])
                gid = np.cumsum(new) - 1
                one = _dedup(ch, cdoc)
                df_g = np.bincount(gid[one], minlength=int(gid[-1]) + 1)
                freq[cpos] = df_g[gid] >= 2
                kept[n] = len(df_g)
                if n == 1:
                    unigram_df[t[cpos[new]]] = df_g
                del new, gid, df_g
                sink.add(ch[one], cdoc[one], cpos[one], np.full(int(one.sum()), n, dtype=np.uint8))
                del ch, cpos, cdoc, one
            # pruned N-grams: each occurs in one document; count the distinct ones
            ph, _, _ = _sorted_groups(t, h[~cand] & mask, starts[~cand], doc, n, max_n)
            pruned[n] = int(np.count_nonzero(ph[1:] != ph[:-1])) + 1 if len(ph) else 0
            del ph, cand
            bar.update(1)
    del freq, h, starts
    rank_order, doc_bytes, doc_offsets = _doc_tokens(t, stream, unigram_df, keytext)
    return PrunedRows(source=sink.close(), pruned_by_n=pruned, kept_by_n=kept, rank_order=rank_order,
                      doc_bytes=doc_bytes, doc_offsets=doc_offsets)


def _doc_tokens(t: np.ndarray, stream: TokenStream, unigram_df: np.ndarray, keytext: _KeyText):
    """Rank tokens (df descending, then key text) and encode every document's ranks."""
    text_rank = keytext.rank[: len(stream.vocab)]
    rank_order = np.lexsort((text_rank, -unigram_df))  # token ids, rank 1 first
    rank_of = np.zeros(len(stream.vocab) + 1, dtype=np.uint32)
    rank_of[rank_order] = np.arange(1, len(rank_order) + 1, dtype=np.uint32)
    rank_of[-1] = SEGMENT_END
    ranks = rank_of[np.where(t == SENTINEL, len(stream.vocab), t).astype(np.int64)]
    data, nbytes = encode_varints(ranks)
    cum = np.zeros(len(nbytes) + 1, dtype=np.uint64)
    np.cumsum(nbytes, out=cum[1:])
    return rank_order, data, cum[stream.doc_starts]


def build_pruned_rows(stream: TokenStream, workdir: Path, *, max_n: int, progress: bool = False,
                      attempts: Optional[int] = None) -> PrunedRows:
    """The pruned layout's rows and token files, with a fresh hash seed after a collision.

    RAISES: E066 when every attempt collided.
    """
    for attempt in range(attempts or MAX_ATTEMPTS):
        attempt_dir = workdir / f"pruned{attempt}"
        attempt_dir.mkdir()
        try:
            return _levels(stream, attempt_dir, max_n=max_n, seed=seed_for(attempt), progress=progress)
        except HashCollision:
            shutil.rmtree(attempt_dir, ignore_errors=True)
            continue
    raise LinkguardError(Errors.E066.format(attempts=attempts or MAX_ATTEMPTS))
