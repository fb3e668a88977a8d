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

Batches are resolved with a few vectorized row lookups per batch and one
Python step per key that is not a row. Whether a key occurs in a document is
a substring search in the document's tokens joined by spaces (segments by
" \n "), made once and kept (LRU) for the keys that follow, which in the
detector's order (all N-grams of one text) mostly point at the same document:
a few keys a document, so building its whole N-gram set cost more than the
searches.
"""
from collections import OrderedDict
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from .doc_tokens import NO_KEY, SEGMENT_END, decode_varints

FREQUENT = -2  # probe result: df >= 2
ABSENT = -1  # probe result: not a row / resolved df 0
DOC_CACHE = 256  # documents whose joined tokens are kept


class DocTokens:
    """The stored token ranks of every document, and whether a key is an N-gram of one."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray, token_keys: np.ndarray,
                 restore_key: Callable[[int], str], max_n: int):
        self.blob, self.offsets, self.token_keys = blob, offsets, token_keys
        self.restore_key, self.max_n = restore_key, max_n
        self._words: Dict[int, str] = {}
        self._texts: "OrderedDict[int, str]" = OrderedDict()

    def ranks(self, doc: int) -> np.ndarray:
        a, b = int(self.offsets[doc]), int(self.offsets[doc + 1])
        return decode_varints(self.blob[a:b])

    def word(self, rank: int) -> str:
        """The token key of a token rank."""
        w = self._words.get(rank)
        if w is None:
            k = int(self.token_keys[rank])
            if k == NO_KEY:
                raise ValueError(f"token rank {rank} has no key")
            w = self._words[rank] = self.restore_key(k)
        return w

    def text(self, doc: int) -> str:
        """The document's tokens joined by " ", its segments by " \n ", with a
        space before and after (LRU-cached): `" " + key + " "` is in it exactly
        when `key` (2..max_n tokens, no newline) is an N-gram of the document."""
        got = self._texts.get(doc)
        if got is not None:
            self._texts.move_to_end(doc)
            return got
        ranks = self.ranks(doc)
        if len(ranks) and ranks[-1] == SEGMENT_END:
            ranks = ranks[:-1]
        distinct, inverse = np.unique(ranks, return_inverse=True)
        words = np.array([self.word(r) if r != SEGMENT_END else "\n" for r in distinct.tolist()] or [""],
                         dtype=object)
        text = " " + " ".join(words[inverse].tolist()) + " "
        self._texts[doc] = text
        if len(self._texts) > DOC_CACHE:
            self._texts.popitem(last=False)
        return text

    def contains(self, doc: int) -> Callable[[str], bool]:
        """A test `key -> bool`: is `key` an N-gram (2..max_n tokens, within a
        segment) of document `doc`."""
        text, max_n = self.text(doc), self.max_n

        def has(key: str) -> bool:
            return 0 < key.count(" ") < max_n and "\n" not in key and f" {key} " in text

        return has


def forward_hints(states: np.ndarray) -> np.ndarray:
    """For each batch position, the document of the nearest df-1 row at or before it (-1: none).

    In the detector's order (one text's N-grams, left to right) that is the
    document the text's unique phrases come from, so most keys that are not
    rows are found in it at once."""
    pos = np.where(states >= 0, np.arange(len(states)), -1)
    last = np.maximum.accumulate(pos) if len(pos) else pos
    return np.where(last >= 0, states[np.maximum(last, 0)], -1)


def _hinted(misses: Sequence[str], hints: np.ndarray, contains: Callable[[int], Callable[[str], bool]]) -> np.ndarray:
    """Per key, whether it is an N-gram of its hint document (one C-level pass per run of equal hints)."""
    n = len(misses)
    found = np.zeros(n, dtype=bool)
    if not n:
        return found
    starts = np.flatnonzero(np.concatenate(([True], hints[1:] != hints[:-1])))
    ends = np.append(starts[1:], n)
    for a, b, d in zip(starts.tolist(), ends.tolist(), hints[starts].tolist()):
        if d >= 0:
            found[a:b] = np.fromiter(map(contains(d), misses[a:b]), dtype=bool, count=b - a)
    return found


def _token_states(tokens: List[str], states_of: Callable[[List[str]], np.ndarray],
                  known: Dict[str, int]) -> Set[str]:
    """Adds the states of the distinct `tokens` to `known`; returns those that
    are not rows (found nowhere), with "" (no token)."""
    distinct = [t for t in set(tokens) if t and t not in known]
    known.update(zip(distinct, states_of(distinct).tolist()))
    absent = {t for t in set(tokens) if known.get(t, ABSENT) == ABSENT}
    absent.add("")
    return absent


def _found_tokens(tokens: List[str], states_of: Callable[[List[str]], np.ndarray],
                  known: Dict[str, int]) -> List[int]:
    """Positions of `tokens` that occur somewhere (are rows); a key holding a
    token found nowhere has df 0. The tokens' states are added to `known`."""
    absent = _token_states(tokens, states_of, known)
    return np.flatnonzero(~np.fromiter(map(absent.__contains__, tokens), dtype=bool, count=len(tokens))).tolist()


def resolve_misses(misses: Sequence[str], states_of: Callable[[List[str]], np.ndarray], docs: DocTokens,
                   max_n: int, hints: Optional[np.ndarray] = None) -> np.ndarray:
    """For keys that are not rows: their one document (int64), or -1 where df is 0.

    states_of(keys): per key, the document when it is a row with df 1, FREQUENT
        for a row with df >= 2, ABSENT when it is not a row (vectorized).
    hints: a document to try first for each key (`forward_hints`): a key that
        is not a row and occurs in a document has df 1, so finding it there
        settles it. The others are settled from their sub-N-grams: first in
        bulk, a key whose last or first token is found nowhere (not a row)
        has df 0; then the (n-1)-grams in rounds of one vectorized lookup,
        shortest keys first.
    """
    if not isinstance(misses, list):
        misses = list(misses)
    n = len(misses)
    out = np.full(n, ABSENT, dtype=np.int64)
    if not n:
        return out
    contains = docs.contains
    if hints is not None:
        hints = np.asarray(hints, dtype=np.int64)
        hit = _hinted(misses, hints, contains)
        out[hit] = hints[hit]
        open_pos = np.flatnonzero(~hit)
    else:
        open_pos = np.arange(n)
    if not len(open_pos):
        return out
    pos_list = open_pos.tolist()
    open_keys = [misses[i] for i in pos_list] if len(pos_list) < n else misses
    # Last tokens in bulk (a key without a space is its own last token: not a row, df 0).
    known: Dict[str, int] = {}  # states of tokens and sub-N-grams
    live_idx = _found_tokens([g[g.rfind(" ") + 1 :] for g in open_keys], states_of, known)
    if not live_idx:
        return out
    live_keys = [open_keys[i] for i in live_idx]
    # First tokens: each key left has a space (its last token was not itself).
    keep = _found_tokens([g[: g.find(" ")] for g in live_keys], states_of, known)
    if not keep:
        return out
    todo_pos = [pos_list[live_idx[i]] for i in keep]
    res = _resolve_rest(dict.fromkeys(live_keys[i] for i in keep), known, states_of, contains, max_n)
    for i in todo_pos:
        out[i] = res[misses[i]]
    return out


def _resolve_rest(keys: Dict[str, None], known: Dict[str, int], states_of: Callable[[List[str]], np.ndarray],
                  contains: Callable[[int], Callable[[str], bool]], max_n: int) -> Dict[str, int]:
    """The document (or ABSENT) of distinct keys that are not rows, from their
    sub-N-grams; `known`: states already looked up (extended here)."""
    res: Dict[str, int] = {}
    known.update(dict.fromkeys(keys, ABSENT))  # none of them is a row
    todo = []
    for g in keys:
        c = g.count(" ")
        if c >= max_n or "  " in g:
            res[g] = ABSENT  # too long, or not a key at all
        else:
            todo.append(g)
    by_n: List[List[Tuple[str, str, str]]] = [[] for _ in range(max_n + 1)]
    queued = set(known)
    while todo:
        ask: List[str] = []
        for g in todo:
            c = g.count(" ")
            if c == 0:
                res[g] = ABSENT
                continue
            pre, suf = g[: g.rfind(" ")], g[g.find(" ") + 1 :]
            by_n[c + 1].append((g, pre, suf))
            for sub in (pre, suf):
                if sub not in known and sub not in queued:
                    queued.add(sub)
                    ask.append(sub)
        todo = []
        if ask:
            for sub, st in zip(ask, states_of(ask).tolist()):
                known[sub] = st
                if st == ABSENT:
                    todo.append(sub)
    for level in by_n:
        for g, pre, suf in level:
            d = known[pre]
            if d == ABSENT:  # not a row: resolved here, or a token found nowhere (df 0)
                d = res.get(pre, ABSENT)
            elif d == FREQUENT:
                d = known[suf]
                if d == ABSENT:
                    d = res.get(suf, ABSENT)
                elif d == FREQUENT:
                    d = ABSENT  # both sub-N-grams frequent: the key would be a row
            res[g] = d if d >= 0 and contains(d)(g) else ABSENT
    return res
