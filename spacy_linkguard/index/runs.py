"""Build steps 2 and 3: token stream -> sorted runs on disk -> merged rows.

Step 2 enumerates every N-gram occurrence of a chunk of the token stream with
numpy, identifies it by a 64-bit hash of its token ids, drops repeats within a
document and spills the chunk's (hash, doc, position, n) rows, sorted by hash,
as a run. Step 3 merges the runs one hash range ("bucket") at a time: the rows
of a bucket from every run are sorted together, grouped by hash, and written
as index rows (key text, df, document or Roaring bitmap). The key text is made
once per distinct N-gram, from the token ids of its first occurrence.

Hashes only group rows; they never decide an answer: rows with equal hashes
are checked to have equal token ids, and on a collision the whole step is
redone with another hash seed (at 58M N-grams that happens about once in
10,000 builds). Memory: each chunk and each bucket is sized to the budget.
"""
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

import numpy as np

from ..errors import Errors, LinkguardError
from .tokens import SENTINEL, TokenStream
from .writer import Source

# Working memory per N-gram occurrence (row) while enumerating and sorting a
# chunk, and while merging a bucket (rows, sort order, temporaries); measured.
SPILL_BYTES_PER_ROW = 80
MERGE_BYTES_PER_ROW = 100
KEY_CHUNK = 1 << 18  # distinct keys turned into text at a time
MAX_ATTEMPTS = 4
MIN_CHUNK_POSITIONS = 16
MIN_BUCKET_ROWS = 1 << 16
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class HashCollision(Exception):
    """Two different N-grams got the same hash (internal: triggers a retry)."""


def _mix(h: np.ndarray, tok: np.ndarray) -> np.ndarray:
    """splitmix64 of (h xor token): a bijection of h for a fixed token and vice versa."""
    x = h ^ (tok.astype(np.uint64) + _GOLDEN)
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def seed_for(attempt: int) -> np.uint64:
    return _mix(np.array([attempt], dtype=np.uint64), np.array([attempt], dtype=np.uint64))[0]


# Tests replace this to force collisions.
HASH_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


class _Column:
    """One column of a spilled run: a raw file, read by slices (not memory-mapped,
    so merged data does not stay resident) and searched through a memory map."""

    def __init__(self, path: Path, arr: np.ndarray):
        self.path, self.dtype, self.len = path, arr.dtype, len(arr)
        arr.tofile(path)

    def __len__(self) -> int:
        return self.len

    def read(self, i: int, j: int) -> np.ndarray:
        return np.fromfile(self.path, dtype=self.dtype, count=j - i, offset=i * self.dtype.itemsize)

    def searchsorted(self, values: np.ndarray) -> np.ndarray:
        if self.len == 0:
            return np.zeros(len(values), dtype=np.int64)
        return np.searchsorted(np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.len,)), values)


@dataclass
class _Run:
    h: _Column
    doc: _Column
    pos: _Column
    n: _Column


def _chunks(stream: TokenStream, max_positions: int) -> Iterator[tuple]:
    """Cut the stream into [a, b) ranges ending right after a sentinel."""
    tokens = stream.tokens()
    a, n = 0, stream.n_positions
    while a < n:
        b = min(a + max_positions, n)
        if b < n:
            # back up to just after the last sentinel at or before b-1
            window = np.asarray(tokens[a:b])
            sent = np.flatnonzero(window == SENTINEL)
            if len(sent):
                b = a + int(sent[-1]) + 1
            else:  # one segment longer than a chunk: take it whole
                nxt = np.flatnonzero(np.asarray(tokens[b:]) == SENTINEL)
                b = b + int(nxt[0]) + 1
        yield a, b
        a = b


def _occurrences(tokens: np.ndarray, a: int, b: int, max_n: int, seed: np.uint64):
    """All N-gram occurrences starting in [a, b): (hash, position, n)."""
    t = np.asarray(tokens[a:b]).astype(np.int64)
    L = len(t)
    is_sent = t == SENTINEL
    # next sentinel at or after i (the chunk ends with one)
    idx = np.where(is_sent, np.arange(L), L)
    nxt = np.minimum.accumulate(idx[::-1])[::-1]
    rem = nxt - np.arange(L)
    starts = np.flatnonzero(rem >= 1)
    h = _mix(np.full(len(starts), seed, dtype=np.uint64), t[starts])
    hs, ps, ns = [h & HASH_MASK], [starts], [np.full(len(starts), 1, dtype=np.uint8)]
    for n in range(2, max_n + 1):
        keep = rem[starts] >= n
        starts = starts[keep]
        if not len(starts):
            break
        h = _mix(h[keep], t[starts + n - 1])
        hs.append(h & HASH_MASK)
        ps.append(starts)
        ns.append(np.full(len(starts), n, dtype=np.uint8))
    return np.concatenate(hs), np.concatenate(ps) + a, np.concatenate(ns)


def _check_equal_adjacent(tokens: np.ndarray, h, pos, n, max_n: int) -> None:
    """Raise HashCollision if two adjacent rows share a hash but not their tokens."""
    same = np.flatnonzero(h[1:] == h[:-1])
    if not len(same):
        return
    pa, pb = pos[same], pos[same + 1]
    na, nb = n[same], n[same + 1]
    if np.any(na != nb):
        raise HashCollision()
    for j in range(max_n):
        m = na > j
        if not m.any():
            break
        if np.any(tokens[pa[m] + j] != tokens[pb[m] + j]):
            raise HashCollision()


def _dedup(h, doc):
    """Mask keeping the first row of every (hash, doc) (rows sorted by hash, then doc)."""
    keep = np.ones(len(h), dtype=bool)
    keep[1:] = (h[1:] != h[:-1]) | (doc[1:] != doc[:-1])
    return keep


def spill_runs(stream: TokenStream, workdir: Path, *, max_n: int, budget: int, seed: np.uint64,
               doc_offset: int, progress: bool) -> List[_Run]:
    """Step 2: write one sorted run per chunk of the stream (raw column files)."""
    from tqdm import tqdm

    tokens = stream.tokens()
    max_positions = max(MIN_CHUNK_POSITIONS, budget // (SPILL_BYTES_PER_ROW * max_n))
    runs: List[_Run] = []
    with tqdm(total=stream.n_positions, desc="N-grams", unit="tok", unit_scale=True,
              disable=not progress, leave=False) as bar:
        for k, (a, b) in enumerate(_chunks(stream, max_positions)):
            h, pos, n = _occurrences(tokens, a, b, max_n, seed)
            order = np.argsort(h, kind="stable")  # ties keep position (= document) order
            h, pos, n = h[order], pos[order], n[order]
            del order
            doc = (np.searchsorted(stream.doc_starts, pos, side="right") - 1 + doc_offset).astype(np.uint32)
            _check_equal_adjacent(tokens, h, pos, n, max_n)
            keep = _dedup(h, doc)
            stem = f"run{k:05d}"
            runs.append(_Run(*(_Column(workdir / f"{stem}.{name}", arr[keep])
                               for name, arr in (("h", h), ("doc", doc), ("pos", pos), ("n", n)))))
            del h, pos, n, doc, keep
            bar.update(b - a)
    return runs


class _Appender:
    """Append numpy arrays to a raw file; reopen as a memmap at the end."""

    def __init__(self, path: Path, dtype):
        self.path, self.dtype, self.count = path, np.dtype(dtype), 0
        self.f = open(path, "wb")

    def add(self, arr: np.ndarray) -> None:
        arr = np.ascontiguousarray(arr, dtype=self.dtype)
        self.f.write(arr.tobytes())
        self.count += len(arr)

    def close(self) -> np.ndarray:
        self.f.close()
        if self.count == 0:
            return np.zeros(0, dtype=self.dtype)
        return np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.count,))


class _KeyText:
    """Key text of N-grams given by (position, n) of an occurrence in the token stream."""

    def __init__(self, vocab: List[str], tokens: np.ndarray):
        self.words = np.array(vocab + [""], dtype=object)
        # Rank of each token in text order: sorting rows by the ranks of their
        # first tokens puts keys with a common prefix next to each other, which
        # makes the trie lookups of the writer cache-friendly.
        order = sorted(range(len(vocab)), key=vocab.__getitem__)
        self.rank = np.empty(len(vocab) + 1, dtype=np.int32)
        self.rank[np.array(order, dtype=np.int64)] = np.arange(len(vocab))
        self.rank[-1] = -1  # "no token" (shorter N-gram) sorts first
        self.tokens = tokens

    def token_matrix(self, pos: np.ndarray, n: np.ndarray, width: int) -> np.ndarray:
        """(rows, width) token ids; -1 (mapped to the extra last entry) past each N-gram's end."""
        cols = np.full((len(pos), width), -1, dtype=np.int32)
        pos = pos.astype(np.int64)
        for j in range(width):
            m = n > j
            cols[m, j] = self.tokens[pos[m] + j]
        return cols

    def prefix_order(self, cols: np.ndarray) -> np.ndarray:
        """Row order by the text of the first three tokens (ties: current order)."""
        keys = [self.rank[cols[:, j]] for j in range(min(3, cols.shape[1]) - 1, -1, -1)]
        return np.lexsort(keys)

    def lines(self, cols: np.ndarray, n: np.ndarray) -> bytes:
        """UTF-8 keys, each followed by a line break."""
        out: List[str] = [""] * len(n)
        for k in np.unique(n).tolist():
            rows = np.flatnonzero(n == k)
            parts = [self.words[cols[rows, j]] for j in range(k)]
            texts = parts[0].tolist() if k == 1 else list(map(" ".join, zip(*parts)))
            for r, t in zip(rows.tolist(), texts):
                out[r] = t
        return ("\n".join(out) + "\n").encode("utf-8") if out else b""


def merge_runs(runs: List[_Run], stream: TokenStream, workdir: Path, *, max_n: int, budget: int,
               progress: bool) -> Source:
    """Step 3: merge the runs bucket by bucket into rows (a Source in hash order)."""
    from tqdm import tqdm

    tokens = stream.tokens()
    total = sum(len(r.h) for r in runs)
    per_bucket = max(MIN_BUCKET_ROWS, budget // MERGE_BYTES_PER_ROW)
    bits = 0
    while (total >> bits) > per_bucket and bits < 20:
        bits += 1
    n_buckets = 1 << bits
    if bits:
        edges = (np.arange(1, n_buckets, dtype=np.uint64) << np.uint64(64 - bits))
        cuts = [np.concatenate([[0], r.h.searchsorted(edges), [len(r.h)]]) for r in runs]
    else:
        cuts = [np.array([0, len(r.h)]) for r in runs]
    sink = RowSink(workdir, _KeyText(stream.vocab, tokens), max_n)
    with tqdm(total=total, desc="merging", unit="row", unit_scale=True, disable=not progress, leave=False) as bar:
        for b in range(n_buckets):
            parts = [(r, int(c[b]), int(c[b + 1])) for r, c in zip(runs, cuts) if c[b + 1] > c[b]]
            if not parts:
                continue
            h = np.concatenate([r.h.read(i, j) for r, i, j in parts])
            order = np.argsort(h, kind="stable")  # runs are in document order: ties stay sorted by doc
            h = h[order]
            doc = np.concatenate([r.doc.read(i, j) for r, i, j in parts])[order]
            pos = np.concatenate([r.pos.read(i, j) for r, i, j in parts])[order]
            n = np.concatenate([r.n.read(i, j) for r, i, j in parts])[order]
            del order
            _check_equal_adjacent(tokens, h, pos, n, max_n)  # before dropping any row
            keep = _dedup(h, doc)  # a document cut between two chunks
            if not keep.all():
                h, doc, pos, n = h[keep], doc[keep], pos[keep], n[keep]
            sink.add(h, doc, pos, n)
            bar.update(len(h))
    return sink.close()


class RowSink:
    """Index rows (key text, df, ref, N, Roaring bitmaps) appended group by group
    to files in `workdir`; `close()` gives them as a Source in append order."""

    def __init__(self, workdir: Path, keytext: "_KeyText", max_n: int, encoding: str = "roaring"):
        from .postings_codec import ENCODERS

        self.encode = ENCODERS[encoding]
        self.keys_path = workdir / "keys.txt"
        self.keys_f = open(self.keys_path, "wb")
        self.df = _Appender(workdir / "rows.df", np.uint32)
        self.ref = _Appender(workdir / "rows.ref", np.uint32)
        self.n = _Appender(workdir / "rows.n", np.uint8)
        self.blob = _Appender(workdir / "rows.blob", np.uint8)
        self.offsets = [0]
        self.keytext, self.max_n, self.n_multi = keytext, max_n, 0

    def add(self, h: np.ndarray, doc: np.ndarray, pos: np.ndarray, n: np.ndarray) -> None:
        """Rows of occurrences sorted by hash, then document, one per (hash, document)."""
        if not len(h):
            return
        keytext = self.keytext
        first = np.flatnonzero(np.concatenate([[True], h[1:] != h[:-1]]))
        df = np.diff(np.append(first, len(h))).astype(np.uint32)
        cols = keytext.token_matrix(pos[first], n[first], self.max_n)
        order = keytext.prefix_order(cols)
        first, df, cols = first[order], df[order], cols[order]
        ref = doc[first].astype(np.uint32)
        multi = np.flatnonzero(df >= 2)
        if len(multi):
            ref[multi] = np.arange(self.n_multi, self.n_multi + len(multi), dtype=np.uint32)
            self.n_multi += len(multi)
            for a in range(0, len(multi), KEY_CHUNK):
                sel = multi[a : a + KEY_CHUNK]
                starts, dfs = first[sel], df[sel].astype(np.int64)
                # the documents of these groups only, a chunk at a time
                flat = doc[np.repeat(starts - (np.cumsum(dfs) - dfs), dfs) + np.arange(int(dfs.sum()))]
                data, lens = self.encode(flat, dfs)
                self.blob.add(data)
                self.offsets.extend((self.offsets[-1] + np.cumsum(lens)).tolist())
        self.df.add(df)
        self.ref.add(ref)
        self.n.add(n[first])
        for a in range(0, len(first), KEY_CHUNK):
            self.keys_f.write(keytext.lines(cols[a : a + KEY_CHUNK], n[first[a : a + KEY_CHUNK]]))

    def close(self) -> Source:
        self.keys_f.close()
        keys_path = self.keys_path
        return Source(
            keys=lambda: iter_lines(keys_path),
            df=self.df.close(),
            ref=self.ref.close(),
            ngram_n=self.n.close(),
            offsets=np.array(self.offsets, dtype=np.uint64),
            blob=self.blob.close(),
        )


def iter_lines(path: Path, block: int = 1 << 24) -> Iterator[str]:
    """The lines of a UTF-8 file without their line breaks (only '\\n' ends a line)."""
    rest = b""
    with open(path, "rb") as f:
        while True:
            data = f.read(block)
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            if cut:
                yield from data[: cut - 1].decode("utf-8").split("\n")
    if rest:
        raise LinkguardError(Errors.E063.format(path=path, detail="the key file does not end with a line break"))


def build_rows(stream: TokenStream, workdir: Path, *, max_n: int, budget: int, doc_offset: int = 0,
               progress: bool = False, attempts: Optional[int] = None) -> Source:
    """Steps 2 and 3 with a fresh hash seed after a collision."""
    for attempt in range(attempts or MAX_ATTEMPTS):
        attempt_dir = workdir / f"attempt{attempt}"
        attempt_dir.mkdir()
        try:
            runs = spill_runs(stream, attempt_dir, max_n=max_n, budget=budget, seed=seed_for(attempt),
                              doc_offset=doc_offset, progress=progress)
            return merge_runs(runs, stream, attempt_dir, max_n=max_n, budget=budget, progress=progress)
        except HashCollision:
            shutil.rmtree(attempt_dir, ignore_errors=True)
            continue
    raise LinkguardError(Errors.E066.format(attempts=attempts or MAX_ATTEMPTS))
