"""Closed candidates: the frequent N-grams that are x-maximal for some document x.

An occurrence `o` of the text is x-maximal when its N-gram is frequent, occurs
in document `x`, and no longer frequent occurrence containing `o` (same
segment, at most max_n tokens) occurs in `x` (SPEC.md "Combinations"). Every
such longer occurrence contains the occurrence one token longer on the left or
on the right, which is then frequent too, and whose documents include the
longer one's. So the documents for which `o` is x-maximal are

    W(o) = D(o) - D(left) - D(right)   (only the frequent neighbours count),

and a key's *witnesses* W(g) are the union over its occurrences. The closed
candidates are the keys with a witness. A combination of candidates can be
cut down to x-maximal members of one document only, so linkable combinations
are only looked for among candidates sharing a witness.

Document sets are bitsets over the documents that hold any frequent N-gram of
the text (`docbits.DocBits`), so W is a few word operations per distinct
(key, left key, right key).
"""
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .docbits import DocBits, doc_bits
from .occurrences import Frequent

@dataclass
class Closure:
    """candidates: key ids (into `Frequent.keys`) of the closed keys, ascending.
    postings: D(g) of each candidate, as bitsets.
    witnesses: W(g) of each candidate (a non-empty subset of D(g)), as bitsets
        over the same documents.
    """

    candidates: np.ndarray
    postings: DocBits
    witnesses: DocBits

    def __len__(self) -> int:
        return int(len(self.candidates))


def closed_candidates(freq: Frequent, postings: Sequence[np.ndarray],
                      within: Optional[np.ndarray] = None) -> Closure:
    """The closed keys of a text and their witness documents.

    freq (Frequent): the text's frequent occurrences (`find_occurrences`).
    postings (Sequence[np.ndarray]): D(g) of every key of `freq.keys`, sorted.
    within (np.ndarray): document numbers that may be witnesses (the source
        verdict's sources, sorted); None: every document.
    RETURNS (Closure).
    """
    n_keys = len(freq.keys)
    d = doc_bits(postings)
    if n_keys == 0:
        return Closure(np.zeros(0, dtype=np.int64), d, d)
    key = freq.key_ids
    # -1 (no frequent neighbour) becomes row n_keys: the empty set.
    lkey = np.where(freq.left >= 0, key[np.maximum(freq.left, 0)], n_keys)
    rkey = np.where(freq.right >= 0, key[np.maximum(freq.right, 0)], n_keys)
    base = n_keys + 1
    codes = np.unique((key * base + lkey) * base + rkey)  # sorted by key first
    g, lg, rg = codes // (base * base), (codes // base) % base, codes % base
    bits = np.vstack([d.bits, np.zeros((1, d.n_words), dtype=np.uint64)])
    wit = bits[g] & ~bits[lg] & ~bits[rg]
    if within is not None:
        wit &= _mask(d.doc_numbers, within, d.n_words)
    keys, starts = np.unique(g, return_index=True)
    wit = np.bitwise_or.reduceat(wit, starts, axis=0)
    closed = np.bitwise_count(wit).sum(axis=1) > 0
    candidates = keys[closed].astype(np.int64)
    return Closure(candidates, DocBits(d.doc_numbers, d.bits[candidates]), DocBits(d.doc_numbers, wit[closed]))


def _mask(doc_numbers: np.ndarray, within: np.ndarray, n_words: int) -> np.ndarray:
    """One row of bits over `doc_numbers`, set where the document is in `within`."""
    flags = np.zeros(n_words * 64, dtype=bool)
    flags[: len(doc_numbers)] = np.isin(doc_numbers, within)
    return np.packbits(flags, bitorder="little").view(np.uint64)


def rich_witnesses(closure: Closure, k: int, block: int = 1 << 16, n_hubs: int = 32) -> DocBits:
    """The witnesses x of each candidate that some linkable combination can have.

    A combination C with witness x is a subset of S_x, the candidates x-maximal
    for x, so its result set contains I(x) = the documents holding all of S_x;
    C is linkable only if |I(x)| < k. Witnesses with |I(x)| >= k are dropped
    (exactly: no combination with that witness is linkable). For released
    text that was only masked, I(x) >= k for all but its original, so most
    candidates are left with no witness at all.

    Most witnesses are settled first by a few *hubs*, the documents holding
    the most candidates: when k - 1 hubs other than x hold all of S_x, then
    |I(x)| >= k (one small product). I(x) is computed for the others only:
    one AND of bitsets per (witness, candidate) pair, grouped by witness, in
    blocks of about `block` pairs (bounded memory).

    RETURNS (DocBits): per candidate, its witnesses with |I(x)| < k.
    """
    wit, post = closure.witnesses, closure.postings
    if len(closure) == 0:
        return wit
    n_docs = len(wit.doc_numbers)
    rich = np.zeros(n_docs, dtype=bool)
    held = post.dense(np.arange(len(closure)))  # candidates x documents
    hubs = np.argsort(-held.sum(axis=0), kind="stable")[:n_hubs]
    missing_t = np.ascontiguousarray((~held[:, hubs]).T).astype(np.float32)  # hubs x candidates
    del held
    # Documents a block at a time: the unpacked block is candidates x step (bounded memory).
    step = int(min(1024, max(64, ((1 << 22) // len(closure)) // 64 * 64)))
    for lo in range(0, n_docs, step):
        hi = min(lo + step, n_docs)
        words = wit.bits[:, lo // 64 : (hi + 63) // 64]  # lo is a multiple of 64
        flags = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")[:, : hi - lo]
        # covers[x, h]: hub h holds every candidate x-maximal for x (and is not x).
        covers = ((missing_t @ flags.astype(np.float32)) < 0.5).T
        covers &= hubs[None, :] != np.arange(lo, hi)[:, None]
        settled = covers.sum(axis=1) >= k - 1
        open_docs = np.flatnonzero(~settled & flags.any(axis=0))
        if not len(open_docs):
            continue
        x, c = np.nonzero(np.ascontiguousarray(flags[:, open_docs].T))  # sorted by witness
        x = open_docs[x]
        xs, starts = np.unique(x, return_index=True)
        bounds = np.concatenate([starts, [len(x)]])
        i = 0
        while i < len(xs):
            j = max(i + 1, int(np.searchsorted(bounds, bounds[i] + block, side="right")) - 1)
            j = min(j, len(xs))
            a, b = bounds[i], bounds[j]
            common = np.bitwise_and.reduceat(post.bits[c[a:b]], bounds[i:j] - a, axis=0)
            rich[lo + xs[i:j]] = np.bitwise_count(common).sum(axis=1) < k
            i = j
    mask = np.packbits(np.concatenate([rich, np.zeros(wit.n_words * 64 - n_docs, dtype=bool)]),
                       bitorder="little").view(np.uint64)
    return DocBits(wit.doc_numbers, wit.bits & mask)
