"""Exact answers for the N-grams a pruned index does not store (prune.py).

A key that is not a row of a pruned index either occurs nowhere (df 0) or
contains a sub-N-gram in one document only; then its df is 0 or 1, and its one
possible document is that sub-N-gram's. Both (n-1)-token sub-N-grams are
looked at (recursively when one is itself not a row, memoized per batch):
- one of them has df 0: so has the key;
- one of them has df 1, in document d: the key's df is 1 (document d) when
  it occurs in d's stored tokens, else 0;
- both have df >= 2: the key would be a row if it occurred, so its df is 0.
Unigrams and keys longer than max_n that are not rows have df 0.
"""
from collections import OrderedDict
from typing import Callable, Dict, List, Set

import numpy as np

from .doc_tokens import NO_KEY, SEGMENT_END, decode_varints

FREQUENT = -2  # probe result: df >= 2
ABSENT = -1  # probe result: not a row / resolved df 0
DOC_CACHE = 256  # documents whose N-gram sets are kept


class DocTokens:
    """The stored token ranks of every document, and the N-gram keys of a document."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray, token_keys: np.ndarray,
                 restore_key: Callable[[int], str], max_n: int):
        self.blob, self.offsets, self.token_keys = blob, offsets, token_keys
        self.restore_key, self.max_n = restore_key, max_n
        self._words: Dict[int, str] = {}
        self._keysets: "OrderedDict[int, Set[str]]" = OrderedDict()

    def ranks(self, doc: int) -> np.ndarray:
        a, b = int(self.offsets[doc]), int(self.offsets[doc + 1])
        return decode_varints(self.blob[a:b])

    def segments(self, doc: int) -> List[List[str]]:
        """The document's segments as lists of token keys."""
        words, tk, restore = self._words, self.token_keys, self.restore_key
        segs: List[List[str]] = []
        cur: List[str] = []
        for r in self.ranks(doc).tolist():
            if r == SEGMENT_END:
                segs.append(cur)
                cur = []
                continue
            w = words.get(r)
            if w is None:
                k = int(tk[r])
                if k == NO_KEY:
                    raise ValueError(f"token rank {r} has no key")
                w = words[r] = restore(k)
            cur.append(w)
        if cur:
            segs.append(cur)
        return segs

    def keyset(self, doc: int) -> Set[str]:
        """Every N-gram key (2..max_n tokens) of document `doc` (LRU-cached)."""
        got = self._keysets.get(doc)
        if got is not None:
            self._keysets.move_to_end(doc)
            return got
        keys: Set[str] = set()
        add, max_n = keys.add, self.max_n
        for seg in self.segments(doc):
            L = len(seg)
            for i in range(L - 1):
                key = seg[i]
                for j in range(i + 1, min(L, i + max_n)):
                    key = key + " " + seg[j]
                    add(key)
        self._keysets[doc] = keys
        if len(self._keysets) > DOC_CACHE:
            self._keysets.popitem(last=False)
        return keys


def resolve_misses(keys: List[str], probe: Callable[[str], int], docs: DocTokens, max_n: int) -> np.ndarray:
    """For keys that are not rows: their one document (int64), or -1 where df is 0.

    probe(key): the document when the key is a row with df 1, FREQUENT for a
    row with df >= 2, ABSENT when the key is not a row.
    """
    memo: Dict[str, int] = {}

    def resolve(g: str) -> int:
        r = memo.get(g)
        if r is not None:
            return r
        r = ABSENT
        first, last = g.find(" "), g.rfind(" ")
        if first > 0 and g.count(" ") < max_n:
            d = FREQUENT
            for s in (g[:last], g[first + 1 :]):
                st = probe(s)
                if st == FREQUENT:
                    continue
                d = resolve(s) if st == ABSENT else st
                break
            if d >= 0 and g in docs.keyset(d):
                r = d
        memo[g] = r
        return r

    return np.fromiter(map(resolve, keys), dtype=np.int64, count=len(keys))
