"""Write the index files from one or more *sources* of (key, postings) rows.

A source is what the build produces (rows in hash order) or an existing index
(rows in key-id order): parallel arrays over its rows plus a way to re-read its
keys in row order. Key sets of sources may overlap (adding documents to an
index); document numbers of different sources never do. The writer builds the
marisa-trie over the union of the keys, then moves every row to its key id
with numpy (no per-key Python work except keys found in several sources).
"""
import errno
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence

import marisa_trie
import numpy as np
from numpy.lib.format import open_memmap
from pyroaring import BitMap

from . import format as fmt

# Readers need nothing of this (marisa stores it in the file). One trie level
# instead of marisa's default 3: on a 33M-key index, 1.3x faster lookups and
# builds for a 4% larger file.
TRIE_CONFIG = {"num_tries": 1, "order": marisa_trie.WEIGHT_ORDER}


@dataclass
class Source:
    """Rows of (key, postings) in some fixed order.

    keys: returns a fresh iterator over the keys in row order.
    df, ref, ngram_n: per row, as in the index format (ref: document number
        when df == 1, else a row of `offsets`).
    offsets, blob: serialized Roaring bitmaps of the rows with df >= 2.
    """

    keys: Callable[[], Iterator[str]]
    df: np.ndarray
    ref: np.ndarray
    ngram_n: np.ndarray
    offsets: np.ndarray
    blob: np.ndarray
    # key -> bool; needed for every source but the last when key sets overlap
    contains: Optional[Callable[[str], bool]] = None

    def __len__(self) -> int:
        return len(self.df)

    def bitmap(self, row: int) -> BitMap:
        if self.df[row] == 1:
            return BitMap([int(self.ref[row])])
        j = int(self.ref[row])
        return BitMap.deserialize(self.blob[int(self.offsets[j]) : int(self.offsets[j + 1])].tobytes())


def serialize_docs(docs: Sequence[int]) -> bytes:
    """The canonical bytes of a posting list (the same set always gives the same bytes)."""
    bm = BitMap(docs)
    bm.run_optimize()
    return bm.serialize()


def _canonical(bm: BitMap) -> bytes:
    # A union's containers can differ from those of the same set built from
    # scratch; rebuilding keeps incremental == rebuild byte for byte.
    return serialize_docs(bm.to_array())


def write_rows(sources: List[Source], out: Path, *, max_n: int, progress: bool = False,
               pruned_by_n: Optional[Dict[int, int]] = None, compact: bool = False) -> Dict[str, int]:
    """Write vocab.marisa, df/ref/ngram_n/postings files and stats.json into `out`.

    pruned_by_n: the pruned layout's N-grams not in the rows (each with df 1),
        counted per N in n_ngrams, n_postings and the histogram.
    compact: the pruned layout's narrower files: df.npy as uint16 and
        postings_offsets.npy as uint32 where the values fit, no ngram_n.npy,
        ref.npy holding only documents (uint16 where they fit; 0 for df >= 2)
        and multi_rank.npy for the posting-list number of a df >= 2 row.
    RETURNS (dict): counts (n_ngrams, n_rows, n_pruned, n_multi, n_postings).
    """
    from tqdm import tqdm

    bar = tqdm(total=3, desc="writing index", disable=not progress, leave=False)
    # marisa's layout depends on duplicate keys (their weights add up), so every
    # key goes in exactly once: a later source skips keys of earlier ones.
    trie = marisa_trie.Trie(itertools.chain.from_iterable(_new_keys(s, sources[:i]) for i, s in enumerate(sources)),
                            **TRIE_CONFIG)
    try:
        trie.save(str(out / fmt.VOCAB))
    except OSError:
        raise
    except Exception as e:  # marisa reports write errors (a full disk) as plain exceptions
        raise OSError(errno.EIO, f"cannot write {fmt.VOCAB}: {e}") from None
    n_keys = len(trie)
    bar.update(1)
    key_id = trie.key_id
    new_ids = [np.fromiter(map(key_id, s.keys()), dtype=np.uint32, count=len(s)) for s in sources]
    bar.update(1)
    del trie

    df = new_array(out / (fmt.DF + ".u32" if compact else fmt.DF), dtype=np.uint32, shape=(n_keys,))
    ngram_n = (np.zeros(n_keys, dtype=np.uint8) if compact
               else new_array(out / fmt.NGRAM_N, dtype=np.uint8, shape=(n_keys,)))
    ref = new_array(out / (fmt.REF + ".u32" if compact else fmt.REF), dtype=np.uint32, shape=(n_keys,))
    df[:] = 0
    seen = np.zeros(n_keys, dtype=np.uint8)
    for s, ids in zip(sources, new_ids):
        for a, b in _row_chunks(len(s)):
            # ids are unique within one source, so fancy-index += adds once per row.
            df[ids[a:b]] += s.df[a:b]
            seen[ids[a:b]] += 1
            ngram_n[ids[a:b]] = s.ngram_n[a:b]

    # Keys found in several sources get their posting lists united in Python;
    # when adding a few documents to a big index these are few.
    shared: Dict[int, BitMap] = {}
    if len(sources) > 1:
        for s, ids in zip(sources, new_ids):
            for a, b in _row_chunks(len(s)):
                rows = a + np.flatnonzero(seen[ids[a:b]] >= 2)
                for row, kid in zip(rows.tolist(), ids[rows].tolist()):
                    bm = s.bitmap(row)
                    if kid in shared:
                        shared[kid] |= bm
                    else:
                        shared[kid] = bm
    shared_bytes = {kid: _canonical(bm) for kid, bm in shared.items()}
    del shared

    multi_ids = np.flatnonzero(df[:] >= 2)
    n_multi = len(multi_ids)
    ref[multi_ids] = np.arange(n_multi, dtype=np.uint32)
    del multi_ids
    lengths = np.zeros(n_multi, dtype=np.int64)
    moves = []  # per source: (destination multi rows, source byte starts, lengths)
    for s, ids in zip(sources, new_ids):
        dsts, srcs, lens_all = [], [], []
        for a, b in _row_chunks(len(s)):
            sdf, sref, kid = s.df[a:b], s.ref[a:b], ids[a:b]
            solo = seen[kid] == 1
            single = sdf == 1
            rows = np.flatnonzero(single & solo)
            ref[kid[rows]] = sref[rows]
            rows = np.flatnonzero(~single & solo)
            if len(rows):
                j_src = sref[rows].astype(np.int64)
                starts = s.offsets[j_src].astype(np.int64)
                lens = s.offsets[j_src + 1].astype(np.int64) - starts
                j_dst = ref[kid[rows]].astype(np.int64)
                lengths[j_dst] = lens
                dsts.append(j_dst)
                srcs.append(starts)
                lens_all.append(lens)
        if dsts:
            j_dst, starts, lens = np.concatenate(dsts), np.concatenate(srcs), np.concatenate(lens_all)
            order = np.argsort(j_dst, kind="stable")  # write the output front to back
            moves.append((s, j_dst[order], starts[order], lens[order]))
    del seen
    for kid, data in shared_bytes.items():
        lengths[int(ref[kid])] = len(data)

    offsets = np.zeros(n_multi + 1, dtype=np.uint64)
    np.cumsum(lengths, out=offsets[1:])
    del lengths
    if compact and offsets[-1] < 2**32:
        np.save(out / fmt.OFFSETS, offsets.astype(np.uint32))
    else:
        np.save(out / fmt.OFFSETS, offsets)
    blob = new_array(out / fmt.POSTINGS, dtype=np.uint8, shape=(int(offsets[-1]),))
    for s, j_dst, starts, lens in moves:
        copy_ranges(blob, offsets[j_dst].astype(np.int64), s.blob, starts, lens)
    del moves
    for kid, data in shared_bytes.items():
        o = int(offsets[int(ref[kid])])
        blob[o : o + len(data)] = np.frombuffer(data, dtype=np.uint8)

    hist = df_histogram(df, ngram_n, max_n)
    n_pruned = sum((pruned_by_n or {}).values())
    for n, count in (pruned_by_n or {}).items():
        if count:
            pairs = dict(map(tuple, hist.get(n, [])))
            pairs[1] = pairs.get(1, 0) + count
            hist[n] = [[k, c] for k, c in sorted(pairs.items())]
    fmt.dump_json({"df_histogram": fmt.histogram_to_json(hist)}, out / fmt.STATS)
    n_postings = int(df[:].sum(dtype=np.int64)) + n_pruned
    for arr in (df, ref, blob) if compact else (df, ngram_n, ref, blob):
        arr.flush()
    if compact:
        _compact_ref(out, df, ref, n_keys)
        narrow = np.uint16 if n_keys == 0 or int(df.max()) < 2**16 else np.uint32
        small = new_array(out / fmt.DF, dtype=narrow, shape=(n_keys,))
        for a, b in _row_chunks(n_keys):
            small[a:b] = df[a:b]
        small.flush()
        del small
        os.unlink(out / (fmt.DF + ".u32"))
    bar.update(1)
    bar.close()
    del df, ngram_n, ref, blob
    return {"n_ngrams": int(n_keys) + n_pruned, "n_rows": int(n_keys), "n_pruned": n_pruned,
            "n_multi": int(n_multi), "n_postings": n_postings}


RANK_BLOCK = 32  # rows per multi_rank.npy entry


def _compact_ref(out: Path, df: np.ndarray, ref: np.ndarray, n_keys: int) -> None:
    """ref.npy (documents of df-1 rows only) and multi_rank.npy from the full ref array.

    A df >= 2 row's posting list number is the number of df >= 2 rows before
    it (lists are written in row order): multi_rank.npy holds that count at
    every RANK_BLOCK-th row, the rest is counted in df.npy (`multi_rows`)."""
    top = 0
    for a, b in _row_chunks(n_keys):
        sel = df[a:b] == 1
        if sel.any():
            top = max(top, int(ref[a:b][sel].max()))
    small = new_array(out / fmt.REF, dtype=np.uint16 if top < 2**16 else np.uint32, shape=(n_keys,))
    n_blocks = (n_keys + RANK_BLOCK - 1) // RANK_BLOCK
    rank = np.zeros(n_blocks, dtype=np.uint32)
    seen = 0
    for a, b in _row_chunks(n_keys):  # chunks are multiples of RANK_BLOCK
        d = df[a:b]
        small[a:b] = np.where(d == 1, ref[a:b], 0)
        multi = (d >= 2).astype(np.int64)
        per_block = np.add.reduceat(multi, np.arange(0, b - a, RANK_BLOCK)) if b > a else multi[:0]
        rank[a // RANK_BLOCK : a // RANK_BLOCK + len(per_block)] = seen + np.cumsum(per_block) - per_block
        seen += int(multi.sum())
    small.flush()
    del small
    np.save(out / fmt.MULTI_RANK, rank)
    os.unlink(out / (fmt.REF + ".u32"))


def multi_rows(df: np.ndarray, rank: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The posting list numbers (int64) of df >= 2 rows `rows` (see `_compact_ref`)."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return rows
    start = rows - rows % RANK_BLOCK
    k = np.arange(RANK_BLOCK, dtype=np.int64)
    idx = np.minimum(start[:, None] + k, len(df) - 1)
    before = (np.asarray(df[idx.ravel()]).reshape(idx.shape) >= 2) & (k < (rows - start)[:, None])
    return np.asarray(rank[rows // RANK_BLOCK], dtype=np.int64) + before.sum(axis=1)


def new_array(path: Path, dtype, shape: tuple) -> np.ndarray:
    """A writable memory-mapped .npy file whose disk blocks are allocated now.

    Writing into a memory map on a full disk kills the process (SIGBUS)
    instead of raising; allocating first turns that into OSError(ENOSPC).
    """
    arr = open_memmap(path, mode="w+", dtype=dtype, shape=shape)
    size = os.path.getsize(path)
    if size and hasattr(os, "posix_fallocate"):
        with open(path, "r+b") as f:
            os.posix_fallocate(f.fileno(), 0, size)
    return arr


def _row_chunks(n: int, size: int = 1 << 23) -> Iterator[tuple]:
    """[a, b) ranges over n rows, so per-row temporaries stay small."""
    return ((a, min(n, a + size)) for a in range(0, n, size))


def _new_keys(source: Source, earlier: List[Source]) -> Iterator[str]:
    if not earlier:
        return source.keys()
    checks = [e.contains for e in earlier]
    if any(c is None for c in checks):
        raise ValueError("sources whose keys may overlap need `contains`")
    return (k for k in source.keys() if not any(c(k) for c in checks))


def copy_ranges(dst: np.ndarray, dst_starts: np.ndarray, src: np.ndarray, src_starts: np.ndarray,
                lengths: np.ndarray, chunk_bytes: int = 1 << 25) -> None:
    """dst[dst_starts[i] : +lengths[i]] = src[src_starts[i] : +lengths[i]] for all i, vectorized in chunks."""
    cum = np.cumsum(lengths)
    i, n = 0, len(lengths)
    while i < n:
        base = int(cum[i - 1]) if i else 0
        e = max(int(np.searchsorted(cum, base + chunk_bytes, side="right")), i + 1)
        lens = lengths[i:e]
        total = int(lens.sum())
        rel = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        dst[np.repeat(dst_starts[i:e], lens) + rel] = src[np.repeat(src_starts[i:e], lens) + rel]
        i = e


def df_histogram(df: np.ndarray, ngram_n: np.ndarray, max_n: int) -> Dict[int, List[List[int]]]:
    """{n: [[posting-list length, number of N-grams], ...]} (Figure 2's data)."""
    hist: Dict[int, List[List[int]]] = {}
    step = 1 << 24
    for n in range(1, max_n + 1):
        counts = np.zeros(1, dtype=np.int64)
        for a in range(0, len(df), step):
            sel = df[a : a + step][ngram_n[a : a + step] == n]
            c = np.bincount(sel)
            if len(c) > len(counts):
                c[: len(counts)] += counts
                counts = c
            else:
                counts[: len(c)] += c
        nz = np.flatnonzero(counts)
        hist[n] = [[int(k), int(counts[k])] for k in nz if k > 0]
    return hist


def merge_histograms(hists: List[Dict[int, List[List[int]]]]) -> Dict[int, List[List[int]]]:
    """The sum of df histograms ({n: [[df, count], ...]}); every N of any input is kept."""
    total: Dict[int, Dict[int, int]] = {}
    for hist in hists:
        for n, pairs in hist.items():
            acc = total.setdefault(int(n), {})
            for k, c in pairs:
                acc[int(k)] = acc.get(int(k), 0) + int(c)
    return {n: [[k, c] for k, c in sorted(acc.items()) if c] for n, acc in sorted(total.items())}
