"""A brute-force safety verdict against a full index (thousands of documents).

SPEC.md, one document x at a time: the x-maximal N-grams of x are found by
checking every longer frequent occurrence containing each occurrence (not only
the one-token-longer ones the detector uses), and every combination of 2..m
of them is intersected. A document x whose whole x-maximal set S_x is held by
k or more documents is skipped: any combination within S_x is held by them
too, so none is linkable (this is what makes the oracle fast enough on safe
text, where most x have large S_x). Documents are Python int bitsets.
"""
from itertools import combinations
from typing import Dict, Optional, Set, Tuple

from spacy_linkguard.ngrams import segment_ngrams, text_segments


def brute_force_verdict(index, text: str, k: int, max_arity: int) -> Tuple[bool, Optional[Tuple[str, ...]]]:
    """(safe, a linkable combination or rare N-gram found, or None)."""
    settings = index.settings
    occ: Dict[Tuple[int, int, int], str] = {}
    for s, seg in enumerate(text_segments(text, settings)):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            occ[(s, i, n)] = key
    keys = sorted(set(occ.values()))
    df = dict(zip(keys, index.key_doc_freqs(keys).tolist()))
    for key in keys:
        if 1 <= df[key] < k:
            return False, (key,)
    if max_arity < 2:
        return True, None
    frequent = [o for o, key in occ.items() if df[key] >= k]
    fkeys = sorted({occ[o] for o in frequent})
    docs = {g: sum(1 << int(d) for d in _numbers(p)) for g, p in zip(fkeys, index.key_postings(fkeys))}
    by_segment: Dict[int, list] = {}
    for o in frequent:
        by_segment.setdefault(o[0], []).append(o)
    x_maximal: Dict[int, Set[str]] = {}
    for o in frequent:
        s, i, n = o
        covered = 0
        for p in by_segment[s]:
            if p[2] > n and p[1] <= i and i + n <= p[1] + p[2]:
                covered |= docs[occ[p]]
        mine = docs[occ[o]] & ~covered
        while mine:
            low = mine & -mine
            x_maximal.setdefault(low.bit_length() - 1, set()).add(occ[o])
            mine ^= low
    for x, members in sorted(x_maximal.items()):
        everything = -1
        for g in members:
            everything &= docs[g]
        if everything.bit_count() >= k:
            continue
        for m in range(2, max_arity + 1):
            for combo in combinations(sorted(members), m):
                common = -1
                for g in combo:
                    common &= docs[g]
                if 1 <= common.bit_count() < k:
                    return False, combo
    return True, None


def _numbers(postings):
    return postings.to_array() if hasattr(postings, "to_array") else postings
