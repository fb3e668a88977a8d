"""The brute-force oracle: SPEC.md's definitions written as directly as possible.

Sets of N-gram keys per document, every occurrence of the query text, the
x-maximal N-grams of every document x, and every combination of 2..m of them
enumerated, one x at a time. Slow, obviously right, and
independent of the detector's code (it uses only the shared tokenization).
"""
from dataclasses import dataclass
from itertools import combinations
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from spacy_linkguard.ngrams import NgramSettings, segment_ngrams, text_ngram_keys, text_segments

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


def oracle(text: str, doc_keys: Sequence[Set[str]], settings: NgramSettings, k: int, max_arity: int,
           sources: Optional[Set[int]] = None) -> OracleResult:
    """SPEC.md's sets for `text`; `sources` (document numbers) gives the source
    verdict (a search links only when its result holds one of them), None the any verdict."""
    segments = text_segments(text, settings)
    occ_key: Dict[Occ, str] = {}
    occ_chars: Dict[Occ, Tuple[int, int]] = {}
    for s, seg in enumerate(segments):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            occ_key[(s, i, n)] = key
            occ_chars[(s, i, n)] = (seg.starts[i], seg.ends[i + n - 1])
    docs_all = {key: frozenset(d for d, keys in enumerate(doc_keys) if key in keys) for key in set(occ_key.values())}
    df = {key: len(docs) for key, docs in docs_all.items()}

    def links(result: FrozenSet[int]) -> bool:
        return 1 <= len(result) < k and (sources is None or bool(result & sources))

    rare = {o for o, key in occ_key.items() if 1 <= df[key] < k}

    def inside(o: Occ):  # proper contiguous sub-occurrences
        s, i, n = o
        return [(s, j, m) for m in range(1, n + 1) for j in range(i, i + n - m + 1) if (j, m) != (i, n)]

    minimal_rare = {o for o in rare if not any(p in rare for p in inside(o))}
    # Under source, only rare N-grams of a source document link (a linking
    # rare N-gram contains a minimal rare one, which occurs in that source too).
    minimal_rare = {o for o in minimal_rare if links(docs_all[occ_key[o]])}
    rare_links = any(links(docs_all[occ_key[o]]) for o in rare)
    frequent = {o for o, key in occ_key.items() if df[key] >= k}
    frequent_keys = {occ_key[o] for o in frequent}
    docs_of = {g: frozenset(d for d, keys in enumerate(doc_keys) if g in keys) for g in frequent_keys}

    def containing(o: Occ):  # longer frequent occurrences of the same segment containing o
        s, i, n = o
        return [p for p in frequent if p[0] == s and p[2] > n and p[1] <= i and i + n <= p[1] + p[2]]

    # x-maximal keys of every document x (SPEC.md "Combinations").
    x_maximal: Dict[int, Set[str]] = {}
    for o in frequent:
        longer = containing(o)
        for x in docs_of[occ_key[o]]:
            if sources is not None and x not in sources:
                continue  # only a source document can be in a linking result set with x-maximal members
            if not any(x in docs_of[occ_key[p]] for p in longer):
                x_maximal.setdefault(x, set()).add(occ_key[o])
    candidates = set().union(*x_maximal.values()) if x_maximal else set()
    candidate_occs: Dict[str, Set[Occ]] = {}
    for o, key in occ_key.items():
        if key in candidates:
            candidate_occs.setdefault(key, set()).add(o)
    # Every combination of 2..m x-maximal keys of one x, for every x.
    linkable_set: Set[FrozenSet[str]] = set()
    for x, keys in sorted(x_maximal.items()):
        for m in range(2, max_arity + 1):
            for combo in combinations(sorted(keys), m):
                common = frozenset.intersection(*(docs_of[g] for g in combo))
                if links(common):
                    linkable_set.add(frozenset(combo))
    linkable = sorted(linkable_set, key=sorted)
    minimal = [
        c for c in linkable if not any(frozenset(sub) in linkable_set for m in range(2, len(c)) for sub in combinations(c, m))
    ]
    safe = not rare_links and not linkable
    return OracleResult(occ_key, occ_chars, df, minimal_rare, candidates, candidate_occs, linkable, minimal, safe)


def linkable_among_all_frequent(text: str, doc_keys: Sequence[Set[str]], settings: NgramSettings, k: int,
                                max_arity: int, sources: Optional[Set[int]] = None) -> List[FrozenSet[str]]:
    """Every linkable combination of 2..m frequent N-grams of the text, short or
    long, x-maximal or not: the adversary's whole choice (small texts only).
    With `sources`, only those whose result set holds one of them (source verdict)."""
    keys = text_ngram_keys(text, settings)
    docs_of = {g: frozenset(d for d, ks in enumerate(doc_keys) if g in ks) for g in keys}
    frequent = sorted(g for g in keys if len(docs_of[g]) >= k)
    out = []
    for m in range(2, max_arity + 1):
        for combo in combinations(frequent, m):
            common = frozenset.intersection(*(docs_of[g] for g in combo))
            if 1 <= len(common) < k and (sources is None or common & sources):
                out.append(frozenset(combo))
    return out
