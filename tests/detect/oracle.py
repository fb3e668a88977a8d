"""The brute-force oracle: SPEC.md's definitions written as directly as possible.

Sets of N-gram keys per document, every occurrence of the query text, every
combination of 2..m candidates enumerated. Slow, obviously right, and
independent of the detector's code (it uses only the shared tokenization).
"""
from dataclasses import dataclass
from itertools import combinations
from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

from spacy_linkguard.ngrams import NgramSettings, segment_ngrams, text_segments

# (segment number, first token in segment, n tokens)
Occ = Tuple[int, int, int]


@dataclass
class OracleResult:
    occ_key: Dict[Occ, str]
    occ_chars: Dict[Occ, Tuple[int, int]]
    df: Dict[str, int]
    minimal_rare: Set[Occ]
    candidates: Set[str]
    candidate_occs: Dict[str, Set[Occ]]
    linkable: List[FrozenSet[str]]
    minimal: List[FrozenSet[str]]
    safe: bool


def oracle(text: str, doc_keys: Sequence[Set[str]], settings: NgramSettings, k: int, max_arity: int) -> OracleResult:
    segments = text_segments(text, settings)
    occ_key: Dict[Occ, str] = {}
    occ_chars: Dict[Occ, Tuple[int, int]] = {}
    for s, seg in enumerate(segments):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            occ_key[(s, i, n)] = key
            occ_chars[(s, i, n)] = (seg.starts[i], seg.ends[i + n - 1])
    df = {key: sum(key in keys for keys in doc_keys) for key in set(occ_key.values())}
    rare = {o for o, key in occ_key.items() if 1 <= df[key] < k}

    def inside(o: Occ):  # proper contiguous sub-occurrences
        s, i, n = o
        return [(s, j, m) for m in range(1, n + 1) for j in range(i, i + n - m + 1) if (j, m) != (i, n)]

    minimal_rare = {o for o in rare if not any(p in rare for p in inside(o))}
    frequent = {o for o, key in occ_key.items() if df[key] >= k}
    contained = {p for o in frequent for p in inside(o)}
    maximal = frequent - contained
    candidate_occs: Dict[str, Set[Occ]] = {}
    for o in maximal:
        candidate_occs.setdefault(occ_key[o], set()).add(o)
    candidates = set(candidate_occs)
    docs_of = {g: frozenset(d for d, keys in enumerate(doc_keys) if g in keys) for g in candidates}
    linkable: List[FrozenSet[str]] = []
    for m in range(2, max_arity + 1):
        for combo in combinations(sorted(candidates), m):
            common = frozenset.intersection(*(docs_of[g] for g in combo))
            if 1 <= len(common) < k:
                linkable.append(frozenset(combo))
    linkable_set = set(linkable)
    minimal = [
        c for c in linkable if not any(frozenset(sub) in linkable_set for m in range(2, len(c)) for sub in combinations(c, m))
    ]
    safe = not rare and not linkable
    return OracleResult(occ_key, occ_chars, df, minimal_rare, candidates, candidate_occs, linkable, minimal, safe)
