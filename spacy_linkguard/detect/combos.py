"""Arity 2 and 3: minimal linkable combinations of closed candidates, exactly.

A combination matters when it is linkable (1 <= |D(a) & D(b) [& D(c)]| < k)
and its members are x-maximal for one common document x, a *witness*
(x in W(a) & W(b) [& W(c)], `closed.py`): every linkable combination of
frequent N-grams can be cut down to such a one (SPEC.md "Combinations").
Only documents that contain at least two (for triples: three) candidates can
be in the intersection of two (three) candidates' document sets, so the work
runs on small dense incidence matrices (documents x candidates): `M` for
D, `W` for the witnesses.

- pairs: `M.T @ M` gives every |D(a) & D(b)| at once and `W.T @ W` every
  |W(a) & W(b)|; a pair is linkable (and, candidates being frequent,
  minimal) when 1 <= |D(a) & D(b)| < k, and it matters when a witness is shared.
- triples: a minimal linkable triple has every pair frequent (>= k: a pair
  with 0 gives an empty triple, one with 1..k-1 is linkable itself) and
  1 <= |D(a) & D(b) & D(c)| < k. Each triple is found once, at its member
  `a` of smallest df: the documents of `a` (few, for most candidates) times
  the frequent partners of `a` ranked after it give all |D(a) & D(b) & D(c)|
  by one small product, and the witnesses of `a` times the same partners
  the shared witnesses (at k = 2 both in one product: 2t - s = 1 exactly
  when t = 1 and s >= 1). Costs stay near sum_a df(a) * deg(a)^2 instead of
  all C(n, 3) triples; the product is made only for pairs i < j (a slice of
  rows at a time) and the pairs are tested before they are listed, so the
  arrays made stay near the number of triples found.

Float32 products are exact here: counts never exceed the number of documents
(< 2^24).
"""
from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .docbits import DocBits, doc_bits

_DENSE_UP_TO = 4096  # candidates whose frequent-pair matrix is held unpacked (<= 16 MB)


@dataclass
class Incidence:
    """Which candidates each relevant document contains, and is a witness of.

    matrix: float32 (documents x candidates), 1.0 where the document contains
        the candidate; only documents holding >= `min_members` candidates.
    witness: float32, same shape, 1.0 where the document is a witness of the
        candidate (a subset of `matrix`).
    doc_numbers: the index's document number of each row.
    df: each candidate's document frequency over the whole collection.
    """

    matrix: np.ndarray
    witness: np.ndarray
    doc_numbers: np.ndarray
    df: np.ndarray

    @property
    def n_candidates(self) -> int:
        return int(self.matrix.shape[1])

    def restrict(self, min_members: int) -> "Incidence":
        """The rows (documents) holding at least `min_members` candidates."""
        keep = self.matrix.sum(axis=1) >= min_members
        if keep.all():
            return self  # nothing to drop: no copy (rewritten text often has every document)
        return Incidence(self.matrix[keep], self.witness[keep], self.doc_numbers[keep], self.df)


def build_incidence(postings: Sequence[np.ndarray], witnesses: Sequence[np.ndarray],
                    min_members: int = 2) -> Incidence:
    """Documents x candidates matrices from the candidates' posting and witness lists.

    postings: for each candidate, the sorted document numbers containing it.
    witnesses: for each candidate, its witness documents (a subset of its postings).
    min_members (int): keep only documents holding at least this many candidates.
    RETURNS (Incidence).
    """
    n = len(postings)
    bits = doc_bits(list(postings) + list(witnesses))
    return incidence_from_bits(bits.take(np.arange(n)), bits.take(np.arange(n, 2 * n)), min_members)


def incidence_from_bits(postings: DocBits, witnesses: DocBits, min_members: int = 2) -> Incidence:
    """`build_incidence` from bitsets (rows: candidates) over the same documents."""
    n = len(postings.bits)
    df = postings.sizes()
    rows = np.arange(n)
    member = postings.dense(rows).T  # documents x candidates
    keep = member.sum(axis=1) >= min_members
    matrix = member[keep].astype(np.float32)
    witness = witnesses.dense(rows).T[keep].astype(np.float32)
    return Incidence(matrix, witness, postings.doc_numbers[keep], df)


@dataclass
class PairScan:
    """What the pair scan keeps (no n x n count matrix is held).

    pairs / sizes: linkable pairs (a < b) with a shared witness, row-major, and
        |D(a) & D(b)| of each.
    frequent: packed bits (n x ceil(n / 8), little-endian), set where a != b,
        |D(a) & D(b)| >= k and a witness is shared -- the pairs a minimal
        linkable triple is made of.
    counts: float32 (n x n), every |D(a) & D(b)| over the scanned documents
        (the diagonal: each candidate's), kept up to `_DENSE_UP_TO` candidates.
    two: (r x 2) the candidates of each scanned document holding exactly two
        (those `Incidence.restrict(3)` drops), with `counts`.
    """

    pairs: np.ndarray
    sizes: np.ndarray
    frequent: np.ndarray
    n: int
    _dense: Optional[np.ndarray] = None
    counts: Optional[np.ndarray] = None
    two: Optional[np.ndarray] = None

    def frequent_row(self, row: int) -> np.ndarray:
        """bool (n,): the frequent partners of one candidate."""
        if self._dense is None and self.n <= _DENSE_UP_TO:
            self._dense = np.unpackbits(self.frequent, axis=1, count=self.n, bitorder="little").astype(bool)
        if self._dense is not None:
            return self._dense[row]
        return np.unpackbits(self.frequent[row], count=self.n, bitorder="little").astype(bool)

    def dense_frequent(self) -> Optional[np.ndarray]:
        """bool (n x n) frequent-pair matrix, or None when n > _DENSE_UP_TO."""
        if self._dense is None and self.n <= _DENSE_UP_TO:
            self.frequent_row(0) if self.n else None
        return self._dense

    def frequent_pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """bool per (a[i], b[i]): is the pair frequent (>= k documents, a shared witness)."""
        if self._dense is not None:
            return self._dense[a, b]
        return ((self.frequent[a, b >> 3] >> (b & 7).astype(np.uint8)) & 1).astype(bool)


def scan_pairs(inc: Incidence, k: int, block: int = 2048, limit: Optional[int] = None) -> Optional[PairScan]:
    """Every pair's |D(a) & D(b)| (`M.T @ M`) and |W(a) & W(b)| (`W.T @ W`),
    computed `block` columns at a time so memory stays O(n * block).

    inc (Incidence): documents holding >= 2 candidates.
    k (int): The threshold.
    limit (int): give up (RETURNS None) as soon as more than this many
        linkable pairs are found (the caller then streams them, `streamed.py`).
    RETURNS (PairScan).
    """
    assert block % 8 == 0, "block must be a multiple of 8 (packed bits)"
    m, w = inc.matrix, inc.witness
    n = inc.n_candidates
    # Only a document that is a witness of two candidates makes a pair share one.
    w = w[w.sum(axis=1) >= 2]
    frequent = np.zeros((n, (n + 7) // 8), dtype=np.uint8)
    keep_counts = n <= _DENSE_UP_TO
    all_counts = np.empty((n, n), dtype=np.float32) if keep_counts and n > block else None
    pairs: List[np.ndarray] = []
    sizes: List[np.ndarray] = []
    n_found = 0
    for lo in range(0, n, block):
        hi = min(lo + block, n)
        counts = np.rint(m.T @ m[:, lo:hi])  # n x (hi - lo)
        if all_counts is not None:
            all_counts[:, lo:hi] = counts
        elif keep_counts:
            all_counts = counts  # one block: all of it
        shared = (w.T @ w[:, lo:hi]) >= 0.5
        a, b = np.nonzero((counts >= 1) & (counts < k) & shared)
        b = b + lo
        upper = a < b
        pairs.append(np.stack([a[upper], b[upper]], axis=1))
        n_found += len(pairs[-1])
        if limit is not None and n_found > limit:
            return None
        sizes.append(counts[a[upper], b[upper] - lo].astype(np.int64))
        often = (counts >= k) & shared
        often[np.arange(lo, hi), np.arange(hi - lo)] = False
        # Packed by column blocks of 8: lo is a multiple of 8 (block is).
        frequent[:, lo // 8 : (hi + 7) // 8] = np.packbits(often, axis=1, bitorder="little")
    pairs_all = np.concatenate(pairs).astype(np.int64) if pairs else np.zeros((0, 2), dtype=np.int64)
    sizes_all = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)
    order = np.lexsort((pairs_all[:, 1], pairs_all[:, 0]))
    two = None
    if all_counts is not None:
        two = np.nonzero(m[m.sum(axis=1) == 2])[1].reshape(-1, 2)
    return PairScan(pairs_all[order], sizes_all[order], frequent, n, counts=all_counts, two=two)


def minimal_triples(inc3: Incidence, scan: PairScan, k: int,
                    limit: Optional[int] = None) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """Triples with every pair frequent, 1 <= |D(a) & D(b) & D(c)| < k and a common witness.

    Each triple is found at its anchor, its member of smallest df (anchors in
    df order; module docstring). Up to `_DENSE_UP_TO` candidates, every
    anchor's partners and their pruning come from n x n arrays made once
    (`shared[a, b]`: documents holding both), so the loop over anchors does
    only the product: rewritten text has hundreds of anchors, and the NumPy
    calls per anchor, not the products, were most of the time.

    inc3 (Incidence): documents holding >= 3 candidates.
    scan (PairScan): `scan_pairs` over documents holding >= 2 candidates.
    k (int): The threshold.
    limit (int): give up (RETURNS None) as soon as more than this many are found.
    RETURNS (Tuple[np.ndarray, np.ndarray]): (t x 3) int32 triples (each set
        once), and their intersection sizes.
    """
    n = inc3.n_candidates
    if n < 3 or not len(inc3.matrix):
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    dense = scan.dense_frequent()  # None when n is too large to unpack
    blocks = _triples_by_anchor(inc3, scan, dense, k) if dense is not None else _triples_by_packed_anchor(inc3, scan, k)
    found: List[np.ndarray] = []
    sizes: List[np.ndarray] = []
    n_found = 0
    for t, t_sizes in blocks:
        found.append(t)
        sizes.append(t_sizes)
        n_found += len(t)
        if limit is not None and n_found > limit:
            return None
    if not found:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found), np.concatenate(sizes)


def _triples_by_anchor(inc3: Incidence, scan: PairScan, dense: np.ndarray,
                       k: int) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """Each anchor's triples and sizes, anchors in df order (none where it has
    none), with every partner list and its pruning from n x n arrays made once."""
    n = inc3.n_candidates
    m, w = inc3.matrix, inc3.witness
    order = np.lexsort((np.arange(n), inc3.df))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    shared = _shared_counts(inc3, scan)  # documents holding a and b; the diagonal: those holding a
    # The frequent partners ranked after `a` that share a document with it (one
    # sharing none gives t = 0 with anything).
    partner = dense & (rank[None, :] > rank[:, None]) & (shared >= 0.5)
    keep = _kept_partners(shared, partner, np.diagonal(shared)[:, None], k)
    del partner, shared
    n_keep = keep.sum(axis=1)
    has_witness = w.sum(axis=0) >= 0.5
    _, members = np.nonzero(keep)  # row-major: each anchor's partners ascending
    ptr = np.concatenate([[0], np.cumsum(n_keep)]).tolist()
    del keep
    d = len(m)
    # Documents and witness documents stacked, so one gather gives both blocks
    # of an anchor; k = 2 weighs them 2 and -1 (below).
    both8 = np.concatenate([m, w]).astype(np.uint8)
    weight = np.concatenate([np.full(d, 2.0, dtype=np.float32), np.full(d, -1.0, dtype=np.float32)])
    # Each candidate's rows (documents, then witness documents), CSR by column.
    flat = np.flatnonzero(np.ascontiguousarray(both8.T))
    row_ids = flat % (2 * d)
    row_ptr = np.searchsorted(flat, np.arange(n + 1) * (2 * d)).tolist()
    del flat
    ones = np.ones(n, dtype=np.float32)
    id_type = np.int32 if n < 2**31 else np.int64
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    for a in order[(n_keep[order] >= 2) & has_witness[order]].tolist():
        partners = members[ptr[a] : ptr[a + 1]]
        rows = row_ids[row_ptr[a] : row_ptr[a + 1]]  # its documents, then its witness documents (+ d)
        block = both8[rows][:, partners].astype(np.float32)
        # A document (row) holding fewer than two partners adds to no pair.
        busy = block @ ones[:len(partners)] >= 2
        block, rows = block[busy], rows[busy]
        if not len(rows):
            continue
        if k == 2:
            pairs = _pair_hits(k, upper, block, block * weight[rows][:, None])  # weights 2 and -1: 2t - s
        else:
            is_doc = rows < d
            pairs = _pair_hits(k, upper, block[is_doc], block[~is_doc])
        if pairs is None:
            continue
        t, t_sizes = _anchor_triples(a, partners, *pairs, dense[partners[pairs[0]], partners[pairs[1]]], id_type)
        if len(t):
            yield t, t_sizes


def _kept_partners(shared: np.ndarray, partner: np.ndarray, r: Any, k: int) -> np.ndarray:
    """The partners (mask, last axis) that can be in a triple with t < k.

    Within the r documents of an anchor `a`, t(a, b, c) >= shared_b + shared_c
    - r, so b can only be in a triple with t < k if shared_b + (least other
    shared) - r < k (least over the other partners). Exact pruning: it drops
    partners present in (nearly) every document of `a`.
    shared: documents of the anchor holding each candidate (one anchor: (n,);
        every anchor: (n x n)); partner: the candidates it may pair with
        (at least two entries on the last axis); r: its number of documents
        (broadcast against `shared`).
    """
    low = np.partition(np.where(partner, shared, np.inf), 1, axis=-1)[..., :2]
    least_other = np.where(shared == low[..., :1], low[..., 1:], low[..., :1])
    return partner & (shared + least_other - r < k)


def _shared_counts(inc3: Incidence, scan: PairScan) -> np.ndarray:
    """float32 (n x n): the documents of `inc3` holding both a and b. From the
    scan's counts less the documents holding exactly two candidates, when the
    scan kept them and `inc3` is what remains of its incidence (the diagonal
    agrees); else `M.T @ M`."""
    m = inc3.matrix
    if scan.counts is not None and scan.counts.shape == (m.shape[1], m.shape[1]) and scan.two is not None:
        shared = scan.counts.copy()
        if len(scan.two):
            b, c = scan.two[:, 0], scan.two[:, 1]
            for x, y in ((b, c), (c, b), (b, b), (c, c)):
                np.subtract.at(shared, (x, y), 1.0)
        if np.array_equal(np.diagonal(shared), m.sum(axis=0)):
            return shared
    return m.T @ m


def _triples_by_packed_anchor(inc3: Incidence, scan: PairScan, k: int) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """`_triples_by_anchor` for more than `_DENSE_UP_TO` candidates: the
    partners and the pruning of each anchor worked out one anchor at a time,
    from packed rows of the frequent-pair matrix (no n x n array is made)."""
    n = inc3.n_candidates
    m, w = inc3.matrix, inc3.witness
    order = np.lexsort((np.arange(n), inc3.df))
    m8, w8 = m.astype(np.uint8), w.astype(np.uint8)  # gathered 4x faster than float32
    col_rows = _rows_by_column(m8)
    col_wrows = _rows_by_column(w8)
    id_type = np.int32 if n < 2**31 else np.int64
    later = np.ones(n, dtype=bool)  # candidates ranked after the current anchor
    for a in order.tolist():
        later[a] = False
        rows = col_rows[a]
        wrows = col_wrows[a]
        if len(rows) == 0 or len(wrows) == 0:
            continue
        partners = np.flatnonzero(scan.frequent_row(a) & later)
        if len(partners) < 2:
            continue
        sub = m8[rows][:, partners].astype(np.float32)
        shared = sub.sum(axis=0)  # documents of `a` that also hold each partner
        # A partner sharing none of them gives t = 0 with anything.
        alive = shared >= 1
        if alive.sum() < 2:
            continue
        keep = _kept_partners(shared, alive, len(rows), k)
        if keep.sum() < 2:
            continue
        if not keep.all():
            partners, sub = partners[keep], sub[:, keep]
        wsub = w8[wrows][:, partners].astype(np.float32)
        if k == 2:
            # A document (row) holding fewer than two partners adds to no pair.
            sub = sub[sub.sum(axis=1) >= 2]
            wsub = wsub[wsub.sum(axis=1) >= 2]
            pairs = _pair_hits(k, None, np.concatenate([sub, wsub]), np.concatenate([2 * sub, -wsub]))
        else:
            pairs = _pair_hits(k, None, sub, wsub)
        if pairs is None:
            continue
        t, t_sizes = _anchor_triples(a, partners, *pairs, scan.frequent_pairs(partners[pairs[0]], partners[pairs[1]]),
                                     id_type)
        if len(t):
            yield t, t_sizes


def _pair_hits(k: int, upper: Optional[np.ndarray], x: np.ndarray,
               y: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]]:
    """The partner pairs i < j (row-major) that make a triple with one anchor.

    k = 2: x, y are the anchor's documents and witness documents (rows) x its
    partners, y weighted 2 (a document) and -1 (a witness document): with
    t = |D(a) & D(b) & D(c)| and s = |W(a) & W(b) & W(c)| <= t, the triple
    matters when t = 1 and s >= 1, i.e. exactly when 2t - s = 1 (s = 2t - 1
    <= t forces t = 1 and s = 1), so one product `x.T @ y` gives it for all
    pairs. Other k: x holds the documents, y the witness documents, and t is
    returned too.
    upper: a strict upper triangle at least p x p (None: made per slice).
    RETURNS: (i, j, t or None), or None when no pair makes one.
    """
    p = x.shape[1]
    # Pairs i < j only: a slice of rows at a time against the columns from
    # its first row on (about 5/8 of the p x p cells for 4 slices), giving
    # the pairs in row-major order, as np.triu would.
    step = p if p <= 256 else -(-p // 4)
    found_i, found_j, found_t = [], [], []
    for lo in range(0, p - 1, step):
        hi = min(lo + step, p)
        if k == 2:
            hit = (x[:, lo:hi].T @ y[:, lo:]) == 1.0
        else:
            triple = x[:, lo:hi].T @ x[:, lo:]
            hit = (triple > 0.5) & (triple < k - 0.5) & ((y[:, lo:hi].T @ y[:, lo:]) > 0.5)
        if upper is not None:
            hit[:, : hi - lo] &= upper[: hi - lo, : hi - lo]
        else:
            hit[:, : hi - lo] = np.triu(hit[:, : hi - lo], 1)
        i, j = np.divmod(np.flatnonzero(hit), p - lo)
        if len(i):
            if k != 2:
                found_t.append(np.rint(triple[i, j]).astype(np.int64))
            found_i.append(i + lo)
            found_j.append(j + lo)
    if not found_i:
        return None
    if len(found_i) == 1:
        return found_i[0], found_j[0], found_t[0] if found_t else None
    return np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_t) if found_t else None


def _anchor_triples(a: int, partners: np.ndarray, i: np.ndarray, j: np.ndarray, t: Optional[np.ndarray],
                    frequent: np.ndarray, id_type: type) -> Tuple[np.ndarray, np.ndarray]:
    """The triples (a, partners[i], partners[j]) whose pair (i, j) is frequent,
    and their intersection sizes (t; 1 where t is None: k = 2)."""
    out = np.empty((int(frequent.sum()), 3), dtype=id_type)
    out[:, 0] = a
    out[:, 1] = partners[i[frequent]]
    out[:, 2] = partners[j[frequent]]
    return out, (np.ones(len(out), dtype=np.int64) if t is None else t[frequent])


def _rows_by_column(m: np.ndarray) -> List[np.ndarray]:
    """For each column, the rows holding a 1 (one pass instead of n)."""
    n = m.shape[1]
    cols, row_ids = np.nonzero(np.ascontiguousarray(m.T))  # sorted by column
    return np.split(row_ids, np.cumsum(np.bincount(cols, minlength=n))[:-1])
