"""How posting lists (documents of an N-gram with df >= 2) are stored in `postings.npy`.

- "roaring" (the full layout, format 2's): portable serialized Roaring bitmaps,
  run-optimized. A list of two documents takes about 20 bytes (headers).
- "delta-varint" (the pruned layout): the first document number, then the
  gaps to the next, as LEB128 varints (`doc_tokens.encode_varints`): a list of
  two documents of a 10^4-document collection takes 3-4 bytes. Lists are
  decoded in one vectorized step per batch of keys.
"""
from typing import List, Tuple

import numpy as np

from .doc_tokens import decode_varints, encode_varints

ROARING, DELTA_VARINT = "roaring", "delta-varint"


def encode_roaring(flat: np.ndarray, dfs: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Bytes of consecutive lists (`flat` holds the lists' sorted documents, `dfs` their lengths)."""
    from .writer import serialize_docs

    docs, lens, chunks, o = flat.tolist(), [], [], 0
    for d in dfs.tolist():
        data = serialize_docs(docs[o : o + d])
        o += d
        chunks.append(data)
        lens.append(len(data))
    return np.frombuffer(b"".join(chunks), dtype=np.uint8), np.asarray(lens, dtype=np.int64)


def encode_delta_varint(flat: np.ndarray, dfs: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """As `encode_roaring`, in the delta-varint encoding (vectorized)."""
    flat = np.asarray(flat, dtype=np.int64)
    dfs = np.asarray(dfs, dtype=np.int64)
    gaps = np.empty_like(flat)
    if len(flat):
        gaps[0] = flat[0]
        gaps[1:] = flat[1:] - flat[:-1]
        firsts = np.cumsum(dfs) - dfs
        gaps[firsts] = flat[firsts]
    data, nbytes = encode_varints(gaps)
    lens = np.add.reduceat(nbytes, np.cumsum(dfs) - dfs) if len(dfs) else np.zeros(0, dtype=np.int64)
    return data, lens


ENCODERS = {ROARING: encode_roaring, DELTA_VARINT: encode_delta_varint}


def decode_delta_varint(data: np.ndarray) -> np.ndarray:
    """The documents (int64) of one delta-varint list."""
    return np.cumsum(decode_varints(data))


def decode_delta_varint_many(blob: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                             n_docs: int) -> Tuple[List[np.ndarray], np.ndarray, np.ndarray]:
    """The documents of many delta-varint lists blob[starts[i]:ends[i]], each list's
    length, and whether each list is well formed (increasing, below n_docs)."""
    starts = np.asarray(starts, dtype=np.int64)
    lens = np.asarray(ends, dtype=np.int64) - starts
    total = int(lens.sum())
    if not len(starts):
        return [], np.zeros(0, dtype=np.int64), np.ones(0, dtype=bool)
    rel = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    data = np.asarray(blob[np.repeat(starts, lens) + rel]) if total else np.zeros(0, dtype=np.uint8)
    last = data < 0x80
    # values per list: the bytes that end a value
    ends_per_list = np.add.reduceat(last.astype(np.int64), np.cumsum(lens) - lens) if total else np.zeros(len(lens), np.int64)
    ends_per_list[lens == 0] = 0
    counts = ends_per_list
    vals = decode_varints(data)[: int(counts.sum())]  # damaged bytes (no final byte): counts tell
    csum = np.cumsum(vals)
    first = np.cumsum(counts) - counts
    base = np.where(first > 0, csum[np.maximum(first - 1, 0)], 0) if len(vals) else np.zeros(len(counts), np.int64)
    docs = csum - np.repeat(base, counts)
    # well formed: every gap after a list's first value >= 1, every document < n_docs
    bad_value = (docs >= n_docs) | (vals < 1)
    bad_value[first[counts > 0]] = docs[first[counts > 0]] >= n_docs
    ok = np.ones(len(counts), dtype=bool)
    if bad_value.any():
        owner = np.repeat(np.arange(len(counts)), counts)
        ok[np.unique(owner[bad_value])] = False
    return np.split(docs, np.cumsum(counts)[:-1]), counts, ok
