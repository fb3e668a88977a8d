"""The reference paper's span choice, for comparison: the shortest N-gram of
every linkable combination (not only minimal ones) of arity 2..m.

Used by benchmarks and reports to compare with our hitting set; detection
itself never needs it.
"""
import numpy as np

from .detector import Analysis


def paper_rule_candidates(res: Analysis, k: int, max_arity: int) -> np.ndarray:
    """Candidate numbers the paper's rule flags (sorted).

    Shortest means fewest tokens; ties go to the candidate occurring first.
    A candidate x is flagged when some linkable combination has x as its
    shortest member: a linkable pair with a longer partner, or (m = 3) a
    triple of x and two later-ranked candidates whose common documents number
    1..k-1 (whether or not the triple contains a linkable pair). As for our
    hitting set, only combinations whose members share a witness (are
    x-maximal for one common document) count.

    res (Analysis): `Detector.analyze` output at the same k and arity >= 2,
        on the in-memory path (not `res.streamed`: raise the detector's max_combos).
    RETURNS (np.ndarray): int64 candidate numbers.
    """
    assert not res.streamed, "the paper's rule needs every combination: raise Detector(max_combos=...)"
    if len(res.candidates) < 2 or max_arity < 2 or res.incidence is None:
        return np.zeros(0, dtype=np.int64)
    # Work on the live candidates (the incidence's columns): no linkable
    # combination has another member.
    live = res.live
    n = len(live)
    local = np.full(len(res.candidates), -1, dtype=np.int64)
    local[live] = np.arange(n)
    length = np.asarray([res.candidate_occurrences[c][0][1] for c in live.tolist()], dtype=np.int64)
    first = np.asarray([res.candidate_occurrences[c][0][0] for c in live.tolist()], dtype=np.int64)
    order = np.lexsort((first, length))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    flagged = np.zeros(n, dtype=bool)
    if len(res.pairs):
        a, b = local[res.pairs[:, 0]], local[res.pairs[:, 1]]
        flagged[np.where(rank[a] < rank[b], a, b)] = True
    if max_arity >= 3:
        inc3 = res.incidence.restrict(3)
        m, w = inc3.matrix, inc3.witness
        for x in order.tolist():
            if flagged[x]:
                continue
            rows = np.nonzero(m[:, x])[0]
            wrows = np.nonzero(w[:, x])[0]
            later = np.nonzero(rank > rank[x])[0]
            if len(rows) == 0 or len(wrows) == 0 or len(later) < 2:
                continue
            sub = m[np.ix_(rows, later)]
            t = sub.T @ sub
            linkable = np.triu((t >= 1) & (t < k), 1)
            if linkable.any():
                wsub = w[np.ix_(wrows, later)]
                if (linkable & (wsub.T @ wsub >= 1)).any():
                    flagged[x] = True
    return np.sort(live[np.nonzero(flagged)[0]]).astype(np.int64)
