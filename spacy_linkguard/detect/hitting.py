"""A small hitting set of the minimal linkable combinations (greedy).

Rephrasing one candidate breaks every combination containing it. The greedy
rule of SPEC.md takes the candidate in most not-yet-hit combinations first
(ties: the lower candidate number, i.e. the one occurring first in the text),
which is within a factor ln(#combinations) of the smallest hitting set.
"""
from dataclasses import dataclass
from typing import List, Sequence

import numpy as np


@dataclass
class HittingSet:
    """chosen: candidate numbers in the order picked; gains: combinations newly
    hit by each pick; totals: for every candidate, the combinations containing it;
    by_candidate: combination ids containing each candidate (ids number the
    combination arrays in the order given, rows one after another)."""

    chosen: List[int]
    gains: List[int]
    totals: np.ndarray
    indptr: np.ndarray
    combo_ids: np.ndarray

    def combos_of(self, candidate: int) -> np.ndarray:
        return self.combo_ids[self.indptr[candidate] : self.indptr[candidate + 1]]


def greedy_hitting_set(n_candidates: int, combos: Sequence[np.ndarray]) -> HittingSet:
    """Pick candidates until every combination contains a picked one.

    n_candidates (int): Candidates are numbered 0..n-1.
    combos (Sequence[np.ndarray]): arrays of shape (m_i, arity_i) of candidate numbers.
    RETURNS (HittingSet).
    """
    blocks = [np.asarray(c, dtype=np.int64) for c in combos]
    assert all(b.ndim == 2 for b in blocks), "combinations must be (m, arity) arrays"
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    member_lists = [b.ravel() for b in blocks]
    id_lists = [np.repeat(np.arange(len(b)) + offsets[i], b.shape[1]) for i, b in enumerate(blocks)]
    members = np.concatenate(member_lists) if member_lists else np.zeros(0, dtype=np.int64)
    ids = np.concatenate(id_lists) if id_lists else np.zeros(0, dtype=np.int64)
    order = np.argsort(members, kind="stable")
    combo_ids = ids[order]
    totals = np.bincount(members, minlength=n_candidates).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(totals)])
    remaining = totals.copy()
    covered = np.zeros(int(offsets[-1]), dtype=bool)
    chosen: List[int] = []
    gains: List[int] = []
    while n_candidates:
        best = int(np.argmax(remaining))  # first maximum: ties go to the lower number
        if remaining[best] == 0:
            break
        mine = combo_ids[indptr[best] : indptr[best + 1]]
        new = mine[~covered[mine]]
        covered[new] = True
        hit_members = [
            blocks[i][new[(new >= offsets[i]) & (new < offsets[i + 1])] - offsets[i]].ravel()
            for i in range(len(blocks))
        ]
        remaining -= np.bincount(np.concatenate(hit_members), minlength=n_candidates)
        chosen.append(best)
        gains.append(int(len(new)))
    return HittingSet(chosen, gains, totals, indptr, combo_ids)
