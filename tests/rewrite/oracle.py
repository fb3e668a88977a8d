"""Test helpers: a brute-force implementation of SPEC.md (the oracle), an
in-memory index over a tiny corpus, and a brute-force detector double.

None of this is shipped: it is the slow, obviously-correct definition that
the rewrite loop's results are checked against.
"""
from dataclasses import dataclass, field
from itertools import combinations
from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

import numpy as np

from spacy_linkguard.ngrams import NgramSettings, segment_ngrams, text_ngram_keys, text_segments


class DictIndex:
    """The index API the Detector uses, over a few documents held in memory."""

    def __init__(self, texts: Sequence[str], settings: NgramSettings = NgramSettings()):
        self.settings = settings
        self.doc_ids = [f"d{i}" for i in range(len(texts))]
        self.n_docs = len(texts)
        self.keysets = [text_ngram_keys(t, settings) for t in texts]
        self.checksum = "test"

    def docs_of(self, key: str) -> FrozenSet[int]:
        return frozenset(i for i, ks in enumerate(self.keysets) if key in ks)

    def key_doc_freqs(self, keys: Sequence[str]) -> np.ndarray:
        return np.asarray([len(self.docs_of(k)) for k in keys], dtype=np.int64)

    def key_postings(self, keys: Sequence[str]) -> List[np.ndarray]:
        return [np.asarray(sorted(self.docs_of(k)), dtype=np.int64) for k in keys]


@dataclass
class Occ:
    seg: int
    first: int
    n: int
    key: str
    start: int
    end: int


def occurrences(text: str, settings: NgramSettings) -> List[Occ]:
    out = []
    for si, seg in enumerate(text_segments(text, settings)):
        for i, n, key in segment_ngrams(seg, settings.max_n):
            out.append(Occ(si, i, n, key, seg.starts[i], seg.ends[i + n - 1]))
    return out


@dataclass
class Verdict:
    minimal_rare: List[Occ] = field(default_factory=list)
    candidates: Dict[str, List[Occ]] = field(default_factory=dict)
    combos: List[Tuple[str, ...]] = field(default_factory=list)  # minimal linkable combinations

    @property
    def safe(self) -> bool:
        return not self.minimal_rare and not self.combos


def brute_force(text: str, index: DictIndex, k: int = 2, m: int = 3) -> Verdict:
    """SPEC.md, literally: rare N-grams, the x-maximal N-grams of every document
    x, and every minimal linkable combination of 2..m x-maximal N-grams of one x."""
    occs = occurrences(text, index.settings)
    df = {o.key: len(index.docs_of(o.key)) for o in occs}
    rare = [o for o in occs if 1 <= df[o.key] < k]
    rare_pos = {(o.seg, o.first, o.n) for o in rare}
    v = Verdict()
    for o in rare:
        subs = [(o.seg, o.first + a, b) for b in range(1, o.n) for a in range(o.n - b + 1)]
        if not any(s in rare_pos for s in subs):
            v.minimal_rare.append(o)
    frequent = [o for o in occs if df[o.key] >= k]
    # x-maximal keys of every document x: in x, and no longer frequent
    # occurrence containing them is (SPEC.md "Combinations").
    x_maximal: Dict[int, Set[str]] = {}
    for o in frequent:
        longer = [
            p for p in frequent
            if p.seg == o.seg and p.n > o.n and p.first <= o.first and o.first + o.n <= p.first + p.n
        ]
        for x in index.docs_of(o.key):
            if not any(x in index.docs_of(p.key) for p in longer):
                x_maximal.setdefault(x, set()).add(o.key)
    closed = set().union(*x_maximal.values()) if x_maximal else set()
    for o in occs:
        if o.key in closed:
            v.candidates.setdefault(o.key, []).append(o)
    sets = {c: index.docs_of(c) for c in closed}
    linkable: Set[FrozenSet[str]] = set()
    for size in range(2, m + 1):
        for x, keys in sorted(x_maximal.items()):
            for combo in combinations(sorted(keys), size):
                docs = frozenset.intersection(*(sets[c] for c in combo))
                fs = frozenset(combo)
                if 1 <= len(docs) < k and fs not in linkable:
                    linkable.add(fs)
                    if not any(frozenset(sub) in linkable for r in range(2, size) for sub in combinations(combo, r)):
                        v.combos.append(tuple(sorted(combo)))
    return v


@dataclass
class _Span:
    start_char: int
    end_char: int
    label: str
    key: str
    df: int = 0


@dataclass
class _Detection:
    spans: List[_Span]
    safe: bool
    report: dict


def greedy_hitting_set(combos: List[Tuple[str, ...]]) -> List[str]:
    """Candidates hitting every combination: the one in most unhit combinations first."""
    left = [set(c) for c in combos]
    chosen: List[str] = []
    while left:
        counts: Dict[str, int] = {}
        for c in left:
            for key in c:
                counts[key] = counts.get(key, 0) + 1
        best = max(sorted(counts), key=lambda key: counts[key])
        chosen.append(best)
        left = [c for c in left if best not in c]
    return chosen


class BruteDetector:
    """A detector double: flags every minimal rare N-gram and every occurrence
    of a greedy hitting set of the minimal linkable combinations."""

    def __init__(self, index: DictIndex, k: int = 2, max_arity: int = 3):
        self.index = index
        self.settings = index.settings
        self.k = k
        self.max_arity = max_arity
        self.calls = 0

    def detect(self, text: str) -> _Detection:
        self.calls += 1
        v = brute_force(text, self.index, self.k, self.max_arity)
        spans = [_Span(o.start, o.end, "NGRAM", o.key) for o in v.minimal_rare]
        for key in greedy_hitting_set(v.combos):
            spans.extend(_Span(o.start, o.end, "COMBO", o.key) for o in v.candidates[key])
        spans.sort(key=lambda s: (s.start_char, s.end_char))
        return _Detection(spans, v.safe, {})


# A tiny collection: court-case sentences that share phrases, so a query has
# rare N-grams and linkable pairs of frequent phrases.
CORPUS = [
    "The applicant was born in 1961 and lives in Kraljevo. He was arrested by the police on 3 May 2001.",
    "The applicant was born in 1970 and lives in Belgrade. He was arrested by the police in June.",
    "The applicant lives in Kraljevo. The Government submitted that the complaint was ill-founded.",
    "The Government submitted that the application was inadmissible. He was arrested by the police.",
    "The Court notes that the applicant was born in 1961. The complaint was ill-founded.",
    "The applicant complained about the length of the proceedings. The Court notes the delay.",
]
QUERY = (
    "PROCEDURE\n\nThe applicant was born in 1961 and lives in Kraljevo. He was arrested by the police on 3 May 2001 "
    "at the railway station in Kraljevo.\n\nThe Government submitted that the complaint was ill-founded. "
    "The Court notes that the applicant complained about the length of the proceedings."
)
