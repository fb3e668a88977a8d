"""The detector's combination code as it was before the strict-verdict speed-up
(commit 62d9bbb): `minimal_triples` and `greedy_hitting_set`, kept verbatim as
a reference. `test_strict_fast.py` checks that the faster versions give the
same arrays, the same picks and the same Detection on every input tried.
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np

from spacy_linkguard.detect.combos import Incidence, PairScan, _rows_by_column
from spacy_linkguard.detect.hitting import HittingSet


def minimal_triples(inc3: Incidence, scan: PairScan, k: int,
                    limit: Optional[int] = None) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """Triples with every pair frequent, 1 <= |D(a) & D(b) & D(c)| < k and a common witness.

    inc3 (Incidence): documents holding >= 3 candidates.
    scan (PairScan): `scan_pairs` over documents holding >= 2 candidates.
    k (int): The threshold.
    limit (int): give up (RETURNS None) as soon as more than this many are found.
    RETURNS (Tuple[np.ndarray, np.ndarray]): (t x 3) int64 triples (each set
        once), and their intersection sizes.
    """
    n = inc3.n_candidates
    m, w = inc3.matrix, inc3.witness
    order = np.lexsort((np.arange(n), inc3.df))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    found: List[np.ndarray] = []
    sizes: List[np.ndarray] = []
    n_found = 0
    col_rows = _rows_by_column(m)
    col_wrows = _rows_by_column(w)
    later = np.ones(n, dtype=bool)  # candidates ranked after the current anchor
    for a in order.tolist():
        later[a] = False
        rows = col_rows[a]
        if len(rows) == 0 or len(col_wrows[a]) == 0:
            continue
        partners = np.flatnonzero(scan.frequent_row(a) & later)
        if len(partners) < 2:
            continue
        sub = m[rows[:, None], partners]
        shared = sub.sum(axis=0)  # documents of `a` that also hold each partner
        # A partner sharing none of them gives t = 0 with anything.
        alive = shared >= 1
        if alive.sum() < 2:
            continue
        if not alive.all():
            partners, sub, shared = partners[alive], sub[:, alive], shared[alive]
        # Within the r documents of `a`, t(a, b, c) >= shared_b + shared_c - r, so b
        # can only be in a triple with t < k if shared_b + (least other shared) - r < k.
        # Exact pruning: it drops partners present in (nearly) every document of `a`.
        low = np.partition(shared, 1)[:2]
        least_other = np.where(shared == low[0], low[1], low[0])
        keep = shared + least_other - len(rows) < k
        if keep.sum() < 2:
            continue
        if not keep.all():
            partners, sub = partners[keep], sub[:, keep]
        triple = sub.T @ sub
        # Few entries are in [1, k): find them first, then test only those
        # (row-major order, as np.triu would give).
        i, j = np.nonzero((triple < k - 0.5) & (triple > 0.5))
        upper = i < j
        i, j = i[upper], j[upper]
        if not len(i):
            continue
        both = scan.frequent_pairs(partners[i], partners[j])
        i, j = i[both], j[both]
        if not len(i):
            continue
        wsub = w[col_wrows[a][:, None], partners]
        common = np.einsum("ri,ri->i", wsub[:, i], wsub[:, j])  # |W(a) & W(b) & W(c)|
        i, j = i[common > 0.5], j[common > 0.5]
        if len(i):
            t = np.empty((len(i), 3), dtype=np.int64)
            t[:, 0] = a
            t[:, 1] = partners[i]
            t[:, 2] = partners[j]
            found.append(t)
            sizes.append(np.rint(triple[i, j]).astype(np.int64))
            n_found += len(t)
            if limit is not None and n_found > limit:
                return None
    if not found:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found), np.concatenate(sizes)


def greedy_hitting_set(n_candidates: int, combos: Sequence[np.ndarray]) -> HittingSet:
    """Pick candidates until every combination contains a picked one.

    n_candidates (int): Candidates are numbered 0..n-1.
    combos (Sequence[np.ndarray]): arrays of shape (m_i, arity_i) of candidate numbers.
    RETURNS (HittingSet).
    """
    blocks = [np.asarray(c, dtype=np.int64) for c in combos]
    assert all(b.ndim == 2 for b in blocks), "combinations must be (m, arity) arrays"
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    members = np.concatenate([b.ravel() for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    ids = (
        np.concatenate([np.repeat(np.arange(len(b)) + offsets[i], b.shape[1]) for i, b in enumerate(blocks)])
        if blocks
        else np.zeros(0, dtype=np.int64)
    )
    # Candidate numbers are small: a 16-bit stable sort is a linear-time radix sort.
    small = members.astype(np.int16) if n_candidates < 2**15 else members
    combo_ids = ids[np.argsort(small, kind="stable")]
    totals = np.bincount(members, minlength=n_candidates).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(totals)])

    # All combinations in one (total x widest) table, -1 where a row is shorter.
    width = max([b.shape[1] for b in blocks] + [1])
    table = np.full((int(offsets[-1]), width), -1, dtype=np.int64)
    for i, b in enumerate(blocks):
        table[offsets[i] : offsets[i + 1], : b.shape[1]] = b

    def members_of(ids_: np.ndarray) -> np.ndarray:
        flat = table[ids_].ravel()
        return flat[flat >= 0]

    remaining = totals.copy()
    covered = np.zeros(int(offsets[-1]), dtype=bool)
    chosen: List[int] = []
    while n_candidates:
        best = int(np.argmax(remaining))  # first maximum: ties go to the lower number
        if remaining[best] == 0:
            break
        mine = combo_ids[indptr[best] : indptr[best + 1]]
        new = mine[~covered[mine]]
        covered[new] = True
        remaining -= np.bincount(members_of(new), minlength=n_candidates)
        chosen.append(best)
    # Reverse delete: hits[c] = picks inside combination c.
    hits = np.zeros(int(offsets[-1]), dtype=np.int64)
    for c in chosen:
        hits[combo_ids[indptr[c] : indptr[c + 1]]] += 1
    kept = []
    for c in reversed(chosen):
        mine = combo_ids[indptr[c] : indptr[c + 1]]
        if len(mine) and hits[mine].min() >= 2:
            hits[mine] -= 1
        else:
            kept.append(c)
    kept.reverse()
    return HittingSet(kept, len(chosen) - len(kept), totals, indptr, combo_ids)
