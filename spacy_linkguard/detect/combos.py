"""Arity 2 and 3: minimal linkable combinations of candidates, exactly.

Only documents that contain at least two (for triples: three) candidates can
be in the intersection of two (three) candidates' document sets, so the work
runs on a small dense incidence matrix `M` (documents x candidates):

- pairs: `C = M.T @ M` gives every |D(a) & D(b)| at once; a pair is linkable
  (and, candidates being frequent, minimal) when 1 <= C < k.
- triples: a minimal linkable triple has every pair frequent (C >= k: a pair
  with C = 0 gives an empty triple, one with 1 <= C < k is linkable itself)
  and 1 <= |D(a) & D(b) & D(c)| < k. Each triple is found once, at its member
  `a` of smallest df: the documents of `a` (few, for most candidates) times
  the frequent partners of `a` ranked after it give all |D(a) & D(b) & D(c)|
  by one small product. Costs stay near sum_a df(a) * deg(a)^2 instead of
  all C(n, 3) triples.

Float32 products are exact here: counts never exceed the number of documents
(< 2^24).
"""
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np


@dataclass
class Incidence:
    """Which candidates each relevant document contains.

    matrix: float32 (documents x candidates), 1.0 where the document contains
        the candidate; only documents holding >= `min_members` candidates.
    doc_numbers: the index's document number of each row.
    df: each candidate's document frequency over the whole collection.
    """

    matrix: np.ndarray
    doc_numbers: np.ndarray
    df: np.ndarray

    @property
    def n_candidates(self) -> int:
        return int(self.matrix.shape[1])

    def restrict(self, min_members: int) -> "Incidence":
        """The rows (documents) holding at least `min_members` candidates."""
        keep = self.matrix.sum(axis=1) >= min_members
        return Incidence(self.matrix[keep], self.doc_numbers[keep], self.df)


def build_incidence(postings: Sequence[np.ndarray], min_members: int = 2) -> Incidence:
    """Documents x candidates matrix from the candidates' posting lists.

    postings: for each candidate, the sorted document numbers containing it.
    min_members (int): keep only documents holding at least this many candidates.
    RETURNS (Incidence).
    """
    n = len(postings)
    df = np.asarray([len(p) for p in postings], dtype=np.int64)
    if n == 0 or df.sum() == 0:
        return Incidence(np.zeros((0, n), dtype=np.float32), np.zeros(0, dtype=np.int64), df)
    docs = np.concatenate([np.asarray(p, dtype=np.int64) for p in postings])
    cols = np.repeat(np.arange(n, dtype=np.int64), df)
    doc_numbers, rows, members = np.unique(docs, return_inverse=True, return_counts=True)
    keep = members >= min_members
    new_row = np.cumsum(keep) - 1
    sel = keep[rows]
    matrix = np.zeros((int(keep.sum()), n), dtype=np.float32)
    matrix[new_row[rows[sel]], cols[sel]] = 1.0
    return Incidence(matrix, doc_numbers[keep], df)


def pair_counts(inc: Incidence) -> np.ndarray:
    """|D(a) & D(b)| for every pair of candidates (n x n, int64; diagonal = df within the rows)."""
    m = inc.matrix
    return np.rint(m.T @ m).astype(np.int64)


def linkable_pairs(counts: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
    """Pairs (a < b) with 1 <= |D(a) & D(b)| < k, and those sizes.

    RETURNS (Tuple[np.ndarray, np.ndarray]): (p x 2) int64 pairs in row-major order, (p,) sizes.
    """
    upper = np.triu((counts >= 1) & (counts < k), 1)
    a, b = np.nonzero(upper)
    return np.stack([a, b], axis=1).astype(np.int64), counts[a, b]


def minimal_triples(inc3: Incidence, counts: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
    """Triples with every pair frequent and 1 <= |D(a) & D(b) & D(c)| < k.

    inc3 (Incidence): documents holding >= 3 candidates.
    counts (np.ndarray): `pair_counts` (over documents holding >= 2 candidates).
    k (int): The threshold.
    RETURNS (Tuple[np.ndarray, np.ndarray]): (t x 3) int64 triples (each set
        once), and their intersection sizes.
    """
    n = inc3.n_candidates
    m = inc3.matrix
    frequent = counts >= k
    np.fill_diagonal(frequent, False)
    order = np.lexsort((np.arange(n), inc3.df))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    found: List[np.ndarray] = []
    sizes: List[np.ndarray] = []
    cols, row_ids = np.nonzero(m.T)  # sorted by column: one pass instead of n
    col_rows = np.split(row_ids, np.cumsum(np.bincount(cols, minlength=n))[:-1])
    for a in order.tolist():
        partners = np.nonzero(frequent[a] & (rank > rank[a]))[0]
        rows = col_rows[a]
        if len(partners) < 2 or len(rows) == 0:
            continue
        sub = m[rows[:, None], partners]
        shared = sub.sum(axis=0)  # documents of `a` that also hold each partner
        # A partner sharing none of them gives t = 0 with anything.
        alive = shared >= 1
        if alive.sum() < 2:
            continue
        partners, sub, shared = partners[alive], sub[:, alive], shared[alive]
        # Within the r documents of `a`, t(a, b, c) >= shared_b + shared_c - r, so b
        # can only be in a triple with t < k if shared_b + (least other shared) - r < k.
        # Exact pruning: it drops partners present in (nearly) every document of `a`.
        low = np.partition(shared, 1)[:2]
        least_other = np.where(shared == low[0], low[1], low[0])
        keep = shared + least_other - len(rows) < k
        if keep.sum() < 2:
            continue
        partners, sub = partners[keep], sub[:, keep]
        triple = sub.T @ sub
        hit = (triple < k) & (triple >= 1)
        hit &= frequent[partners[:, None], partners]
        i, j = np.nonzero(np.triu(hit, 1))
        if len(i):
            t = np.empty((len(i), 3), dtype=np.int64)
            t[:, 0] = a
            t[:, 1] = partners[i]
            t[:, 2] = partners[j]
            found.append(t)
            sizes.append(np.rint(triple[i, j]).astype(np.int64))
    if not found:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found), np.concatenate(sizes)
