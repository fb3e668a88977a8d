"""A hitting set of the minimal linkable combinations in bounded memory.

The in-memory path (`combos.scan_pairs`, `combos.minimal_triples`, then
`hitting.greedy_hitting_set`) holds every minimal linkable combination. On
long texts they are far too many (the largest bundled ECHR judgment, 206k
characters: 10k live candidates, 41M minimal pairs; 1 MB of judgments: 55k
candidates, 107M pairs and billions of triples). This module never holds
more than about `block` combinations, and never enumerates a combination
that an earlier pick already broke:

- Every listed combination has a *witness*: a document x for which all its
  members are x-maximal (SPEC.md "Combinations"). Witness documents are
  taken one at a time (those that are a witness of most candidates first).
  For x, S = its candidates not yet chosen.
- Pairs of S, a slice of rows at a time: |D(a) & D(b)| by one small product
  (it is >= 1: x holds both); every pair with fewer than k documents is
  linkable (and minimal). Each slice's pairs (at most `block`) get the greedy
  hitting set of `hitting.py`; its picks leave S before the next slice.
- Triples of what is left of S: every pair of it now holds >= k documents
  (the linkable ones are hit), so each triple with 1..k-1 common documents
  is a minimal linkable one with witness x. They are enumerated at their
  member of smallest df (as `combos.minimal_triples` does) and hit block by
  block the same way.

Why nothing is missed: a minimal linkable combination C with witness x
either has a member chosen before x is reached, or all of C is in S when x is
reached; a pair is then found in the slice of its first member (unless a
member was picked meanwhile), a triple at its member of smallest df in the
triple phase of x (likewise). So the picks hit every minimal linkable
combination -- exactly what the in-memory path guarantees -- but the set can
differ from (and be somewhat larger than) the in-memory greedy one: each
block is greedy on its own, and no pass over all combinations removes a pick
made redundant by later ones. Counts are of the combinations enumerated
(`ComboHits.exact` is False).
"""
from typing import Dict, List, Optional

import numpy as np

from .docbits import DocBits
from .hitting import ComboHits, Example, greedy_hitting_set


class _Picks:
    """The picks so far, and counts and examples of the combinations enumerated."""

    def __init__(self, n: int, n_examples: int, costs: Optional[np.ndarray] = None) -> None:
        self.costs = costs
        self.chosen = np.zeros(n, dtype=bool)
        self.order: List[int] = []
        self.seen = np.zeros(n, dtype=np.int64)  # enumerated combinations holding each candidate
        self.n_examples = n_examples
        self.examples: Dict[int, List[Example]] = {}
        self.n_kept = np.zeros(n, dtype=np.int64)
        self.counts: Dict[int, int] = {}
        self.dropped = 0

    def hit(self, combos: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """Pick candidates hitting every row of `combos` (none of whose members
        is chosen yet); RETURNS the new picks."""
        if not len(combos):
            return np.zeros(0, dtype=np.int64)
        arity = combos.shape[1]
        self.counts[arity] = self.counts.get(arity, 0) + len(combos)
        members, local = np.unique(combos, return_inverse=True)
        local = local.reshape(combos.shape)
        hs = greedy_hitting_set(len(members), [local], costs=None if self.costs is None else self.costs[members])
        self.seen[members] += hs.totals
        self._keep_examples(combos, sizes)
        new = members[np.asarray(hs.chosen, dtype=np.int64)]
        self.dropped += hs.dropped
        self.chosen[new] = True
        self.order.extend(new.tolist())
        return new

    def _keep_examples(self, combos: np.ndarray, sizes: np.ndarray) -> None:
        """Keep the first `n_examples` enumerated combinations of every candidate."""
        flat = combos.ravel()
        at = np.nonzero(self.n_kept[flat] < self.n_examples)[0]  # row-major: earlier rows first
        if not len(at):
            return
        owner = flat[at]
        order = np.argsort(owner, kind="stable")
        at, owner = at[order], owner[order]
        first = np.searchsorted(owner, owner, side="left")
        take = (np.arange(len(owner)) - first) < self.n_examples - self.n_kept[owner]
        for c, row in zip(owner[take].tolist(), (at[take] // combos.shape[1]).tolist()):
            self.examples.setdefault(c, []).append((tuple(combos[row].tolist()), int(sizes[row])))
        np.add.at(self.n_kept, owner[take], 1)

    def result(self) -> ComboHits:
        return ComboHits(chosen=list(self.order), n_broken=[int(self.seen[c]) for c in self.order],
                         examples=[self.examples.get(c, []) for c in self.order], counts=dict(self.counts),
                         exact=False, dropped=self.dropped)


def streamed_hits(postings: DocBits, witnesses: DocBits, k: int, max_arity: int, *, block: int = 1 << 20,
                  n_examples: int = 3, costs: Optional[np.ndarray] = None) -> ComboHits:
    """Hit every minimal linkable combination of 2..max_arity candidates, one witness at a time.

    postings (DocBits): D(g) of each candidate (rows: candidates 0..n-1).
    witnesses (DocBits): the witnesses of each candidate that a linkable
        combination can have (`closed.rich_witnesses`), over the same documents.
    k (int): The threshold. max_arity (int): 2 or 3.
    block (int): combinations (and float32 cells of a product) held at once;
        memory is O(block + documents x candidates of one witness).
    n_examples (int): combinations kept as examples per candidate.
    costs (Optional[np.ndarray]): the cost of each candidate, for the weighted
        greedy of every block (`hitting.greedy_hitting_set`); None: uniform.
    RETURNS (ComboHits): candidate numbers are rows of `postings`; counts are
        of the combinations enumerated (`exact` False).
    """
    n = len(postings.bits)
    picks = _Picks(n, n_examples, costs)
    if n < 2 or max_arity < 2:
        return picks.result()
    df = postings.sizes()
    for x in _witness_order(witnesses):
        members = np.nonzero(_column(witnesses, x) & ~picks.chosen)[0]
        if len(members) < 2:
            continue
        # Documents x candidates of this witness; only documents holding two of them matter.
        held = postings.dense(members).T
        held = held[held.sum(axis=1) >= 2].astype(np.float32)
        alive = _pairs_of_witness(held, members, k, block, picks)
        if max_arity >= 3 and alive.sum() >= 3:
            _triples_of_witness(held, members, alive, df, k, block, picks)
    return picks.result()


def _witness_order(witnesses: DocBits, chunk: int = 4096) -> np.ndarray:
    """Documents (bit numbers) that are a witness of >= 2 candidates, most first."""
    n_docs = len(witnesses.doc_numbers)
    count = np.zeros(n_docs, dtype=np.int64)
    for lo in range(0, len(witnesses.bits), chunk):
        count += witnesses.dense(np.arange(lo, min(lo + chunk, len(witnesses.bits)))).sum(axis=0)
    docs = np.nonzero(count >= 2)[0]
    return docs[np.lexsort((docs, -count[docs]))]


def _column(bits: DocBits, x: int) -> np.ndarray:
    """bool per row: does the row hold bit x."""
    return ((bits.bits[:, x // 64] >> np.uint64(x % 64)) & np.uint64(1)).astype(bool)


def _pairs_of_witness(held: np.ndarray, members: np.ndarray, k: int, block: int, picks: _Picks) -> np.ndarray:
    """Hit the linkable pairs among `members` (all hold the witness); RETURNS
    the members still not chosen (bool, by position)."""
    m = len(members)
    alive = np.ones(m, dtype=bool)
    rows_per_slice = max(1, block // m)
    for lo in range(0, m, rows_per_slice):
        rows = np.arange(lo, min(lo + rows_per_slice, m))
        rows = rows[alive[rows]]
        if not len(rows):
            continue
        cols = np.nonzero(alive)[0]
        cols = cols[cols > rows[0]]
        if not len(cols):
            break
        counts = held[:, rows].T @ held[:, cols]  # >= 1 everywhere: the witness holds both
        linkable = (counts < k - 0.5) & (cols[None, :] > rows[:, None])
        i, j = np.nonzero(linkable)
        if not len(i):
            continue
        pairs = np.stack([members[rows[i]], members[cols[j]]], axis=1)
        new = picks.hit(pairs, np.rint(counts[i, j]).astype(np.int64))
        alive[np.isin(members, new)] = False
    return alive


def _triples_of_witness(held: np.ndarray, members: np.ndarray, alive: np.ndarray, df: np.ndarray, k: int,
                        block: int, picks: _Picks) -> None:
    """Hit the linkable triples among the members still alive (every pair of
    them holds >= k documents, so each linkable triple is minimal)."""
    left = np.nonzero(alive)[0]
    left = left[np.lexsort((members[left], df[members[left]]))]  # smallest df first
    found: List[np.ndarray] = []
    sizes: List[np.ndarray] = []
    n_found = 0

    def flush() -> None:
        nonlocal found, sizes, n_found
        if found:
            new = picks.hit(np.concatenate(found), np.concatenate(sizes))
            alive[np.isin(members, new)] = False
        found, sizes, n_found = [], [], 0

    for at, a in enumerate(left.tolist()):
        if not alive[a]:
            continue
        partners = left[at + 1 :]
        partners = partners[alive[partners]]
        if len(partners) < 2:
            continue
        sub = held[held[:, a] > 0.5][:, partners]
        r = len(sub)
        shared = sub.sum(axis=0)
        # As in combos.minimal_triples: t(a, b, c) >= shared_b + shared_c - r.
        low = np.partition(shared, 1)[:2]
        least_other = np.where(shared == low[0], low[1], low[0])
        keep = shared + least_other - r < k
        if keep.sum() < 2:
            continue
        partners, sub = partners[keep], sub[:, keep]
        p = len(partners)
        step = max(1, block // p)
        for lo in range(0, p, step):
            if not alive[a]:  # picked by a flush below
                break
            hi = min(lo + step, p)
            t = sub[:, lo:hi].T @ sub  # >= 1 everywhere: the witness holds all three
            ok = alive[partners]  # a flush may have picked some partners
            i, j = np.nonzero((t < k - 0.5) & (np.arange(p)[None, :] > np.arange(lo, hi)[:, None])
                              & ok[None, :] & ok[lo:hi, None])
            if not len(i):
                continue
            triple = np.empty((len(i), 3), dtype=np.int64)
            triple[:, 0] = members[a]
            triple[:, 1] = members[partners[lo + i]]
            triple[:, 2] = members[partners[j]]
            found.append(triple)
            sizes.append(np.rint(t[i, j]).astype(np.int64))
            n_found += len(i)
            if n_found >= block:
                flush()
    flush()
