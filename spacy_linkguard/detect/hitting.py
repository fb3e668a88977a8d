"""A small hitting set of the minimal linkable combinations (greedy).

Rephrasing one candidate breaks every combination containing it. The greedy
rule of SPEC.md takes the candidate in most not-yet-hit combinations first
(ties: the lower candidate number, i.e. the one occurring first in the text),
which is within a factor ln(#combinations) of the smallest hitting set. A
last pass drops, latest pick first, any pick whose combinations all contain
another pick (the greedy order can leave such picks behind).

Weighted (given a cost per candidate, `Detector(span_cost="weighted")`): the
greedy takes the candidate breaking most not-yet-hit combinations per unit of
cost (ties: the lower number), which is within a factor
H(most combinations of one candidate) of the cheapest hitting set, and the
last pass tries the costliest picks first (ties: latest first). Either way
every combination is hit; unit costs give exactly the unweighted picks.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

# One combination given as evidence: (member candidate numbers, |intersection|).
Example = Tuple[Tuple[int, ...], int]


@dataclass
class ComboHits:
    """The candidates to rephrase and the evidence the COMBO spans carry.

    chosen: candidate numbers, in the order picked.
    n_broken: for each chosen candidate (same order), the number of minimal
        linkable combinations containing it.
    examples: for each chosen candidate, up to `n_examples` of them.
    counts: {arity: number of minimal linkable combinations}.
    exact: True when `counts` and `n_broken` count every minimal linkable
        combination (the in-memory path); False on the streamed path, where
        they count those enumerated -- combinations already broken by an
        earlier pick are skipped unseen, so they are lower bounds (> 0 for
        every chosen candidate). `chosen` hits every one either way.
    dropped: redundant greedy picks removed by the reverse-delete pass.
    """

    chosen: List[int] = field(default_factory=list)
    n_broken: List[int] = field(default_factory=list)
    examples: List[List[Example]] = field(default_factory=list)
    counts: Dict[int, int] = field(default_factory=dict)
    exact: bool = True
    dropped: int = 0

    @property
    def n_combinations(self) -> int:
        return int(sum(self.counts.values()))


@dataclass
class HittingSet:
    """chosen: candidate numbers in the order picked (redundant picks dropped);
    dropped: how many greedy picks the last pass removed; totals: for every
    candidate, the number of combinations containing it; `combos_of(c)`: the
    ids of those combinations (ids number the given arrays' rows one after
    another)."""

    chosen: List[int]
    dropped: int
    totals: np.ndarray
    indptr: np.ndarray
    combo_ids: np.ndarray

    def combos_of(self, candidate: int) -> np.ndarray:
        return self.combo_ids[self.indptr[candidate] : self.indptr[candidate + 1]]

    def evidence(self, combos: Sequence[np.ndarray], sizes: Sequence[np.ndarray], n_examples: int,
                 numbers: np.ndarray) -> ComboHits:
        """`ComboHits` of this hitting set over `combos` (the arrays it was given,
        with the intersection size of each row); `numbers` maps the candidate
        numbers used here to the caller's."""
        offsets = np.cumsum([0] + [len(b) for b in combos])
        width = max([b.shape[1] for b in combos] + [1])
        firsts = [self.combos_of(c)[:n_examples] for c in self.chosen]
        cids = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
        # All examples at once: the block and row of each combination id.
        block = np.searchsorted(offsets, cids, side="right") - 1
        rows = np.full((len(cids), width), -1, dtype=np.int64)
        size = np.zeros(len(cids), dtype=np.int64)
        for i, (b, z) in enumerate(zip(combos, sizes)):
            at = np.flatnonzero(block == i)
            rows[at, : b.shape[1]] = numbers[b[cids[at] - offsets[i]]]
            size[at] = np.asarray(z)[cids[at] - offsets[i]]
        flat = [(tuple(m for m in row if m >= 0), z) for row, z in zip(rows.tolist(), size.tolist())]
        ends = np.cumsum([len(f) for f in firsts]).tolist()
        examples = [flat[e - len(f) : e] for f, e in zip(firsts, ends)]
        counts = {int(b.shape[1]): int(len(b)) for b in combos}
        return ComboHits(chosen=[int(numbers[c]) for c in self.chosen],
                         n_broken=[int(self.totals[c]) for c in self.chosen], examples=examples,
                         counts=counts, exact=True, dropped=self.dropped)


def greedy_hitting_set(n_candidates: int, combos: Sequence[np.ndarray],
                       costs: Optional[np.ndarray] = None) -> HittingSet:
    """Pick candidates until every combination contains a picked one.

    n_candidates (int): Candidates are numbered 0..n-1.
    combos (Sequence[np.ndarray]): arrays of shape (m_i, arity_i) of candidate numbers.
    costs (Optional[np.ndarray]): the cost of picking each candidate (n finite
        values > 0); None: every pick costs the same (the unweighted rule).
    RETURNS (HittingSet).
    """
    blocks = [np.asarray(c) for c in combos]
    assert all(b.ndim == 2 for b in blocks), "combinations must be (m, arity) arrays"
    n = n_candidates
    if costs is not None:
        costs = np.asarray(costs, dtype=np.float64)
        assert costs.shape == (n,) and bool(np.all(np.isfinite(costs) & (costs > 0))), "costs: n values > 0"
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    total = int(offsets[-1])
    # One row a combination (ids number the rows one block after another), its
    # members padded with n (a candidate that is never picked).
    width = max([b.shape[1] for b in blocks] + [1])
    small = np.int16 if n < 2**15 - 1 else np.int64
    table = np.full((total, width), n, dtype=small)
    for i, b in enumerate(blocks):
        table[offsets[i] : offsets[i + 1], : b.shape[1]] = b
    # Slots sorted by member; candidate numbers are small, so a 16-bit stable
    # sort is a linear-time radix sort, and each candidate's ids stay ascending.
    slot_order = np.argsort(table.ravel(), kind="stable")
    id_type = np.int32 if total < 2**31 else np.int64
    totals = np.bincount(table.ravel(), minlength=n + 1)[:n].astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(totals)])
    combo_ids = np.empty(int(indptr[-1]), dtype=id_type)
    np.floor_divide(slot_order[: len(combo_ids)], width, out=combo_ids, casting="unsafe")
    del slot_order

    remaining = totals.copy()
    covered = np.zeros(total, dtype=bool)
    chosen: List[int] = []
    while n:
        # First maximum: ties go to the lower number. Costs are > 0, so a
        # candidate with nothing left to hit never wins while another has some.
        best = int(np.argmax(remaining if costs is None else remaining / costs))
        if remaining[best] == 0:
            break
        mine = combo_ids[indptr[best] : indptr[best + 1]]
        new = mine[~covered[mine]]
        covered[new] = True
        remaining -= np.bincount(table[new].ravel(), minlength=n + 1)[:n]
        chosen.append(best)
    del covered
    # Reverse delete, latest pick first (weighted: costliest first, then
    # latest): drop a pick when every combination it is in holds another
    # pick. hits[c] = picks inside combination c.
    picked = np.zeros(n + 1, dtype=np.int8)
    picked[chosen] = 1
    hits = picked[table].sum(axis=1, dtype=np.int32)
    # A pick that is alone in some combination is kept whatever the others do
    # (hits only go down, and never below 1 where the pick alone holds it).
    alone = np.zeros(n + 1, dtype=bool)
    rows = table[hits == 1]
    alone[rows[picked[rows] == 1]] = True
    order = chosen[::-1]
    if costs is not None:
        order = [chosen[i] for i in sorted(range(len(chosen)), key=lambda i: (-costs[chosen[i]], -i))]
    kept = []
    for c in order:
        if alone[c]:
            kept.append(c)
            continue
        mine = combo_ids[indptr[c] : indptr[c + 1]]
        if len(mine) and hits[mine].min() >= 2:
            hits[mine] -= 1
        else:
            kept.append(c)
    left = set(kept)
    kept = [c for c in chosen if c in left]  # in the order picked
    return HittingSet(kept, len(chosen) - len(kept), totals, indptr, combo_ids)
