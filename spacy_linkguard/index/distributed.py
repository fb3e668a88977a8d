"""Build a sharded index on a Dask cluster: map, shuffle by shard, one reduce per shard.

The result is the sharded index `build_index(..., shards=P)` writes, byte for
byte. The client only plans and relays small arrays; the work runs on the
cluster's workers (`dask.distributed`; a `LocalCluster` for `--workers N`, or
`dask scheduler` + `dask worker` on several machines for `--scheduler`):

1. map, one task per part of the corpus file (byte ranges cut at line ends,
   read by the worker from the shared path): tokenize (spaCy, as `tokens.py`),
   hash every token's key (BLAKE2b, 64 bits, so parts need no common vocabulary).
2. N by N (the Apriori levels of prune.py), for n = 1..max_n:
   - map: each part enumerates the occurrences of its candidate N-grams (both
     (n-1)-sub-N-grams frequent), de-duplicates them per document, names each
     distinct one by its key text, and splits them by the key's shard
     (`shards.shard_of`); the other occurrences are counted where they are (a
     pruned N-gram occurs in one document, so in one part);
   - shuffle + reduce, one task per shard: the shard's occurrences from every
     part are merged (Dask moves them between workers), grouped into rows
     (df, documents), and checked: one key text per hash, or the build starts
     again with another hash seed. The rows go to files in the staging folder
     (`_levels/`), not into worker memory, so a worker holds one level's rows
     of one shard at a time. Each reduce answers every part which of the
     hashes it sent are frequent (a join, not a broadcast: a part only ever
     holds the frequent hashes of its own N-grams), for level n + 1.
3. Ranks of the tokens (unigram df, from the level-1 reduces) go back to the
   parts, which encode their documents' token ranks (documents part).
4. One task per shard reads its rows of every level back and writes its folder
   (`writer.write_rows`) into the staging folder, which every worker must see
   (a shared file system); the client writes the documents part and the
   manifest, and renames the folder.

A worker that dies (killed for its memory, a lost machine) costs time, not the
build: Dask computes what it held again on another worker. Every task can be
run again from what is kept: the client holds the futures of the parts and of
the last level (their tasks lead back to the corpus) until no later step needs
them, and what the tasks share otherwise is a file in the staging folder (level
rows, written aside and renamed; token ranks; document ids), never data
scattered by the client, which dies with the worker holding it. A task whose
workers keep dying (Dask's `distributed.scheduler.allowed-failures`) or a lost
result ends the build with E080 and no output.

Memory of a worker: its parts' tokens and last-level state (about 30 bytes
per token position of its parts: more workers or machines divide it), one
level's map or reduce at a time, and at the end, with the states and then the
tokens released, one shard's rows. Temporary disk: every kept row once (key
text, df, documents), until the shards are written.
"""
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
from . import format as fmt
from .runs import MAX_ATTEMPTS, HashCollision, _check_equal_adjacent, _dedup, _KeyText, _mix, iter_lines, seed_for
from .shards import shard_ids
from .tokens import SENTINEL


# ---- the plan --------------------------------------------------------------
def split_file(path: Path, n_parts: int) -> List[Tuple[int, int]]:
    """[start, end) byte ranges of `path`, cut after line breaks, about equal in size."""
    size = path.stat().st_size
    cuts = [0]
    with open(path, "rb") as f:
        for i in range(1, n_parts):
            f.seek(max(cuts[-1], size * i // n_parts))
            f.readline()
            pos = min(f.tell(), size)
            if pos > cuts[-1]:
                cuts.append(pos)
    if cuts[-1] != size:
        cuts.append(size)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


# ---- map side ---------------------------------------------------------------
@dataclass
class Part:
    """One part of the corpus after tokenizing (lives on a worker)."""

    number: int
    doc_ids: List[str]
    vocab: List[str]
    tokens: np.ndarray  # uint32 local token ids, SENTINEL after each segment
    doc_starts: np.ndarray  # int64, n_docs + 1
    token_hash: np.ndarray  # uint64 per local token id
    n_tokens: int
    n_skipped_empty: int
    first_doc: int = 0  # global number of the part's first document (set after the map)


def token_hashes(vocab: List[str]) -> np.ndarray:
    """A stable 64-bit hash of each key text (the same on every machine)."""
    return np.fromiter((int.from_bytes(hashlib.blake2b(w.encode("utf-8"), digest_size=8).digest(), "little")
                        for w in vocab), dtype=np.uint64, count=len(vocab))


def tokenize_part(corpus: str, start: int, end: int, number: int, settings: Dict[str, Any]) -> Part:
    """Map step 1: the records in bytes [start, end) of the corpus, tokenized."""
    from ..corpus import record_from_obj
    from .tokens import tokenize_records

    with open(corpus, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    records = []
    for i, raw in enumerate(data.split(b"\n")):
        if raw.strip():
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                raise LinkguardError(Errors.E006.format(path=f"{corpus} (part from byte {start})", line=i + 1,
                                                        detail=str(e))) from None
            records.append(record_from_obj(obj, path=corpus, line=i + 1))
    s = NgramSettings.from_dict(settings)
    tmp = Path(tempfile.mkdtemp(prefix="linkguard-part-"))
    try:
        stream = tokenize_records(records, tmp / "tokens.u32", s, n_process=1)
        tokens = np.array(stream.tokens(), dtype=np.uint32)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Part(number=number, doc_ids=stream.doc_ids, vocab=stream.vocab, tokens=tokens,
                doc_starts=stream.doc_starts, token_hash=token_hashes(stream.vocab), n_tokens=stream.n_tokens,
                n_skipped_empty=stream.n_skipped_empty)


def set_first_doc(part: Part, first_doc: int) -> Part:
    part.first_doc = first_doc
    return part


@dataclass
class LevelState:
    """A part's N-gram occurrences of the last level: all starts and hashes, and the candidates."""

    starts: np.ndarray
    h: np.ndarray
    cand_pos: np.ndarray
    cand_h: np.ndarray


@dataclass
class ShardPiece:
    """What one part sends to one shard for one level."""

    h: np.ndarray  # uint64, sorted; one row per (hash, document)
    doc: np.ndarray  # uint32 global document numbers
    key_h: np.ndarray  # uint64: the distinct hashes ...
    keys: str  # ... and their key texts, one per line (one string: cheaper to hold and send than a list)

    def key_list(self) -> List[str]:
        return self.keys.split("\n") if len(self.key_h) else []


def level_map(part: Part, state: Optional[LevelState], n: int, seed: int, mask: int, max_n: int, n_shards: int,
              *frequent_parts: np.ndarray) -> Tuple[LevelState, List[ShardPiece], int]:
    """Map step of level n: (new state, one piece per shard, distinct pruned N-grams here).

    frequent_parts: from each shard, which of this part's (n-1)-gram hashes have df >= 2.
    """
    frequent = np.sort(np.concatenate(frequent_parts)) if frequent_parts else np.zeros(0, dtype=np.uint64)
    t = part.tokens
    L = len(t)
    pos_type = np.int32 if L < 2**31 else np.int64  # positions in the part: half the memory of int64
    idx = np.where(t == SENTINEL, np.arange(L, dtype=pos_type), pos_type(L))
    rem = (np.minimum.accumulate(idx[::-1])[::-1] - np.arange(L, dtype=pos_type)) if L else np.zeros(0, pos_type)
    del idx
    th = np.append(part.token_hash, np.uint64(0))
    tt = np.where(t == SENTINEL, np.uint32(len(part.vocab)), t)
    if n == 1:
        starts = np.flatnonzero(rem >= 1).astype(pos_type)
        h = _mix(np.full(len(starts), np.uint64(seed), dtype=np.uint64), th[tt[starts]])
        cand = np.ones(len(starts), dtype=bool)
    else:
        freq = np.zeros(L, dtype=bool)
        if len(state.cand_h) and len(frequent):
            at = np.minimum(np.searchsorted(frequent, state.cand_h), len(frequent) - 1)
            freq[state.cand_pos] = frequent[at] == state.cand_h
        more = rem[state.starts] >= n
        starts = state.starts[more]
        h = _mix(state.h[more], th[tt[starts + n - 1]])
        cand = freq[starts] & freq[starts + 1] if len(starts) else np.zeros(0, dtype=bool)
    m = np.uint64(mask)
    doc_local = np.repeat(np.arange(len(part.doc_ids), dtype=np.uint32), np.diff(part.doc_starts))
    # pruned occurrences: each such N-gram is in one document, hence only in this part
    ph = h[~cand] & m
    order = np.argsort(ph, kind="stable")
    ph = ph[order]
    _check_equal_adjacent(t, ph, starts[~cand][order], np.full(len(ph), n, dtype=np.uint8), max_n)
    n_pruned = int(np.count_nonzero(ph[1:] != ph[:-1])) + 1 if len(ph) else 0
    cpos = starts[cand]
    ch = h[cand] & m
    order = np.argsort(ch, kind="stable")
    ch, cpos = ch[order], cpos[order]
    _check_equal_adjacent(t, ch, cpos, np.full(len(cpos), n, dtype=np.uint8), max_n)
    cdoc = doc_local[cpos] + np.uint32(part.first_doc)
    state = LevelState(starts=starts, h=h, cand_pos=cpos, cand_h=ch)  # every candidate occurrence
    one = _dedup(ch, cdoc)
    ch, cdoc, cpos = ch[one], cdoc[one], cpos[one]
    first = np.flatnonzero(np.concatenate([[True], ch[1:] != ch[:-1]])) if len(ch) else np.zeros(0, dtype=np.int64)
    keytext = _KeyText(part.vocab, t)
    lines = keytext.lines(keytext.token_matrix(cpos[first], np.full(len(first), n, dtype=np.uint8), n),
                          np.full(len(first), n, dtype=np.uint8)).decode("utf-8")
    keys = lines.split("\n")[:-1] if len(first) else []
    key_shard = shard_ids(keys, n_shards, len(keys))
    group = np.cumsum(np.concatenate([[True], ch[1:] != ch[:-1]])) - 1 if len(ch) else np.zeros(0, dtype=np.int64)
    row_shard = key_shard[group] if len(ch) else np.zeros(0, dtype=np.int64)
    pieces = []
    for s in range(n_shards):
        r = np.flatnonzero(row_shard == s)
        k = np.flatnonzero(key_shard == s)
        pieces.append(ShardPiece(h=ch[r], doc=cdoc[r], key_h=ch[first[k]],
                                 keys="\n".join([keys[i] for i in k.tolist()])))
    return state, pieces, n_pruned


def encode_part_docs(part: Part, ranks_file: str, out: str) -> np.ndarray:
    """Write a part's documents as varint token ranks to the file `out` (in the
    shared staging folder); returns each document's byte count.

    ranks_file: JSON list of the words in rank order (rank 1 first), in the staging folder."""
    from .doc_tokens import SEGMENT_END, encode_varints

    with open(ranks_file, encoding="utf-8") as f:
        rank_of = {w: r for r, w in enumerate(json.load(f), 1)}
    ranks_of_local = np.fromiter((rank_of[w] for w in part.vocab), dtype=np.int64, count=len(part.vocab))
    ranks_of_local = np.append(ranks_of_local, SEGMENT_END)
    t = part.tokens
    ranks = ranks_of_local[np.where(t == SENTINEL, len(part.vocab), t).astype(np.int64)]
    data, nbytes = encode_varints(ranks)
    data.tofile(out)
    cum = np.concatenate([[0], np.cumsum(nbytes)])
    return np.diff(cum[part.doc_starts])


# ---- reduce side ------------------------------------------------------------
@dataclass
class ShardRows:
    """One level's rows of one shard.

    keys: returns a fresh iterator over the keys in row order (as `writer.Source.keys`).
    """

    keys: Callable[[], Iterator[str]]
    df: np.ndarray
    docs: np.ndarray  # the documents of every row, row after row

    def save(self, prefix: str) -> str:
        """Write the rows to `prefix`.keys (UTF-8 lines), .df.npy and .docs.npy; returns prefix.

        Each file appears whole (written aside, then renamed): a reduce computed
        again after a worker died rewrites the same bytes while another task
        may be reading them."""
        with _replacing(prefix + ".keys") as f:
            f.write("".join(k + "\n" for k in self.keys()).encode("utf-8"))
        with _replacing(prefix + ".df.npy") as f:
            np.save(f, self.df)
        with _replacing(prefix + ".docs.npy") as f:
            np.save(f, self.docs)
        return prefix

    @classmethod
    def load(cls, prefix: str) -> "ShardRows":
        """The rows saved at `prefix`; the keys are read from the file each time they are iterated."""
        return cls(keys=partial(iter_lines, Path(prefix + ".keys")), df=np.load(prefix + ".df.npy"),
                   docs=np.load(prefix + ".docs.npy"))


@contextmanager
def _replacing(path: str) -> Iterator[BinaryIO]:
    """A binary file to write that replaces `path` when complete (never a partial `path`)."""
    part = f"{path}.{os.getpid()}-{uuid.uuid4().hex}.part"
    try:
        with open(part, "wb") as f:
            yield f
        os.replace(part, path)
    finally:
        if os.path.exists(part):
            os.unlink(part)


@dataclass
class Reduced:
    """What a level's reduce of one shard returns (its rows are on disk)."""

    prefix: str  # ShardRows.load(prefix)
    replies: List[np.ndarray]  # per part: which of the hashes it sent have df >= 2
    unigrams: Optional[Tuple[List[str], np.ndarray]]  # level 1 only: the shard's words and their df


def level_reduce(n: int, prefix: str, *pieces: ShardPiece) -> Reduced:
    """Reduce step of level n for one shard: rows (saved at `prefix`), and for
    each part (in the order of `pieces`) which of the hashes it sent have df >= 2
    (sent back to it only: no part ever receives the whole frequent set)."""
    h = np.concatenate([p.h for p in pieces]) if pieces else np.zeros(0, dtype=np.uint64)
    doc = np.concatenate([p.doc for p in pieces]) if pieces else np.zeros(0, dtype=np.uint32)
    order = np.argsort(h, kind="stable")  # parts come in document order: ties stay sorted by document
    h, doc = h[order], doc[order]
    kh = np.concatenate([p.key_h for p in pieces]) if pieces else np.zeros(0, dtype=np.uint64)
    keys_all = [k for p in pieces for k in p.key_list()]
    korder = np.argsort(kh, kind="stable")
    kh = kh[korder]
    keys_sorted = [keys_all[i] for i in korder.tolist()]
    same = np.flatnonzero(kh[1:] == kh[:-1])
    if any(keys_sorted[i] != keys_sorted[i + 1] for i in same.tolist()):
        raise HashCollision()
    first_k = np.flatnonzero(np.concatenate([[True], kh[1:] != kh[:-1]])) if len(kh) else np.zeros(0, np.int64)
    keys = [keys_sorted[i] for i in first_k.tolist()]
    first = np.flatnonzero(np.concatenate([[True], h[1:] != h[:-1]])) if len(h) else np.zeros(0, np.int64)
    df = np.diff(np.append(first, len(h))).astype(np.uint32)
    if len(first) != len(keys):
        raise HashCollision()  # cannot happen unless two hashes share a key text
    frequent = h[first][df >= 2]
    replies = []
    for p in pieces:
        if len(frequent) and len(p.key_h):
            at = np.minimum(np.searchsorted(frequent, p.key_h), len(frequent) - 1)
            replies.append(p.key_h[frequent[at] == p.key_h])
        else:
            replies.append(np.zeros(0, dtype=np.uint64))
    ShardRows(keys=lambda: iter(keys), df=df, docs=doc).save(prefix)
    return Reduced(prefix=prefix, replies=replies, unigrams=(keys, df) if n == 1 else None)


def write_shard(out_dir: str, levels: List[ShardRows], settings: Dict[str, Any], doc_ids: List[str],
                extra: Dict[str, int]) -> Dict[str, Any]:
    """Final reduce: write one shard folder from its rows of every level (level 1 first)."""
    from .build import _finish
    from .postings_codec import encode_delta_varint
    from .writer import Source, df_histogram, write_rows

    s = NgramSettings.from_dict(settings)
    df = np.concatenate([lv.df for lv in levels]) if levels else np.zeros(0, dtype=np.uint32)
    ngram_n = np.concatenate([np.full(len(lv.df), i + 1, dtype=np.uint8) for i, lv in enumerate(levels)]) \
        if levels else np.zeros(0, dtype=np.uint8)
    docs = np.concatenate([lv.docs for lv in levels]) if levels else np.zeros(0, dtype=np.uint32)
    starts = np.cumsum(df.astype(np.int64)) - df
    ref = docs[starts].astype(np.uint32) if len(df) else np.zeros(0, dtype=np.uint32)
    multi = np.flatnonzero(df >= 2)
    ref[multi] = np.arange(len(multi), dtype=np.uint32)
    m_df = df[multi].astype(np.int64)
    sel = np.repeat(starts[multi], m_df) + (np.arange(int(m_df.sum())) - np.repeat(np.cumsum(m_df) - m_df, m_df))
    blob, lens = encode_delta_varint(docs[sel], m_df)
    offsets = np.zeros(len(multi) + 1, dtype=np.uint64)
    np.cumsum(lens, out=offsets[1:])
    src = Source(keys=lambda: chain.from_iterable(lv.keys() for lv in levels), df=df, ref=ref, ngram_n=ngram_n,
                 offsets=offsets, blob=blob)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = write_rows([src], out, max_n=s.max_n, compact=True)
    meta = _finish(out, s, doc_ids, counts, extra, fmt.SHARD)
    return {"checksum": meta["checksum"], "counts": counts, "hist": df_histogram(df, ngram_n, s.max_n)}


# ---- the client ---------------------------------------------------------------
def build_distributed(corpus: Union[str, Path], path: Union[str, Path], settings: NgramSettings, *,
                      n_shards: int, client=None, scheduler: Optional[str] = None, n_workers: int = 2,
                      n_parts: Optional[int] = None, progress: bool = True) -> Path:
    """Build a sharded index of the JSONL `corpus` at `path` on a Dask cluster.

    client: a `distributed.Client` to use; else one for `scheduler` (an address
        such as tcp://host:8786), else a LocalCluster of `n_workers` processes.
    n_parts: map tasks (default: 4 per worker thread).
    The staging folder next to `path` must be visible to every worker.
    RAISES: E077 (dask.distributed not installed), E078 (scheduler unreachable), E079 (no
        worker within WORKER_WAIT_S), E080 (Dask gave up: workers kept dying, or a result was
        lost), E050-E058 and E075 as `build_index`.
    """
    from .build import _check_layout, _check_target, _locked, _staging

    _check_layout(fmt.PRUNED, n_shards)
    corpus, path = Path(corpus), Path(path)
    if not corpus.is_file():
        raise LinkguardError(Errors.E010.format(path=corpus, hint=""))
    try:
        from distributed import Client, KilledWorker, LocalCluster
    except ImportError:
        raise LinkguardError(Errors.E077) from None
    own = None
    if client is None:
        if scheduler:
            client = own = _connect(Client, scheduler)
        else:
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = own = Client(cluster)
    try:
        _check_target(path)
        _wait_for_workers(client, scheduler or "the given client")
        with _locked(path), _staging(path) as tmp:
            _check_target(path)
            threads = sum(client.nthreads().values()) or 1
            ranges = split_file(corpus, n_parts or 4 * threads)
            for attempt in range(MAX_ATTEMPTS):
                try:
                    _run(client, corpus, ranges, tmp, settings, n_shards, seed_for(attempt), progress)
                    break
                except HashCollision:
                    for p in tmp.iterdir():
                        shutil.rmtree(p) if p.is_dir() else p.unlink()
                except (KilledWorker, CancelledError) as e:
                    raise LinkguardError(Errors.E080.format(detail=_lost_work(e))) from None
            else:
                raise LinkguardError(Errors.E066.format(attempts=MAX_ATTEMPTS))
    finally:
        if own is not None:
            cluster = getattr(own, "cluster", None)
            own.close()
            if cluster is not None and not scheduler:
                cluster.close()
    return path


# How long a build waits for the first worker of a cluster that has none yet.
WORKER_WAIT_S = 60.0


def _connect(client_cls, address: str):
    """A Client of the scheduler at `address`, or E078 (unreachable, bad address)."""
    try:
        return client_cls(address)
    except (OSError, ValueError, TypeError) as e:
        raise LinkguardError(Errors.E078.format(address=address, detail=f"{type(e).__name__}: {e}")) from None


def _wait_for_workers(client, address: str) -> None:
    """Return once the cluster has a worker; E079 after WORKER_WAIT_S without one."""
    if client.nthreads():
        return
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_S)
    except (TimeoutError, OSError):
        raise LinkguardError(Errors.E079.format(address=address, timeout=WORKER_WAIT_S)) from None


def _lost_work(e: Exception) -> str:
    """What Dask gave up on, in a line: a task whose workers all died (KilledWorker),
    or a result it could not compute again (a cancelled future)."""
    task = getattr(e, "task", None)
    if task is not None:
        n = e.allowed_failures + 1
        return f"the worker running task {task} died {n} time{'s' if n > 1 else ''}"
    return f"{type(e).__name__}: {' '.join(str(e).split())[:400] or 'a result was cancelled'}"


def _run(client, corpus: Path, ranges, tmp: Path, settings: NgramSettings, n_shards: int, seed: np.uint64,
         progress: bool) -> None:
    from tqdm import tqdm

    from .doc_tokens import write_token_files
    from .shards import DOCS_DIR, shard_dir, write_manifest
    from .writer import merge_histograms

    sd, max_n = settings.to_dict(), settings.max_n
    parts = [client.submit(tokenize_part, str(corpus), a, b, i, sd, pure=False) for i, (a, b) in enumerate(ranges)]
    infos = _gather(client, [client.submit(_part_info, p) for p in parts])
    doc_ids: List[str] = []
    seen: Dict[str, int] = {}
    firsts = []
    for ids, _, _ in infos:
        firsts.append(len(doc_ids))
        for d in ids:
            if d in seen:
                raise LinkguardError(Errors.E051.format(doc_id=d, first=seen[d] + 1, pos=len(doc_ids) + 1))
            seen[d] = len(doc_ids)
            doc_ids.append(d)
    if not doc_ids:
        raise LinkguardError(Errors.E050.format(skipped=sum(i[2] for i in infos)))
    extra = {"n_tokens": sum(i[1] for i in infos), "n_skipped_empty": sum(i[2] for i in infos)}
    parts = [client.submit(set_first_doc, p, f) for p, f in zip(parts, firsts)]
    states: List[Any] = [None] * len(parts)
    frequent: List[List[Any]] = [[] for _ in parts]  # per part: the shards' replies
    levels: List[List[str]] = [[] for _ in range(n_shards)]  # per shard: the prefix of each level's rows
    levels_tmp = tmp / "_levels"
    levels_tmp.mkdir()
    n_pruned: Dict[int, int] = {}
    unigram_rows = None
    for n in tqdm(range(1, max_n + 1), desc="N-grams (Dask)", unit="N", disable=not progress, leave=False):
        states, frequent, prefixes, n_pruned[n], rows = _level(client, n, parts, states, frequent, seed, max_n,
                                                               n_shards, levels_tmp)
        for s, prefix in enumerate(prefixes):
            levels[s].append(prefix)
        unigram_rows = rows if n == 1 else unigram_rows
    # No later level needs the last one's states and replies: release them, so the
    # workers free that memory and no lost one is computed again.
    del states, frequent
    # documents: token ranks by unigram df (descending), then key text
    words = [k for keys, _ in unigram_rows for k in keys]
    dfs = np.concatenate([df for _, df in unigram_rows]).astype(np.int64)
    text_rank = np.empty(len(words), dtype=np.int64)
    text_rank[np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)] = np.arange(len(words))
    rank_order = np.lexsort((text_rank, -dfs))
    # The tasks from here on read what they share from files in the staging folder, not
    # from data scattered by the client, which would be lost with the worker holding it.
    docs_tmp = tmp / "_documents"
    docs_tmp.mkdir()
    ranks_file = docs_tmp / "ranks.json"
    _dump_list([words[i] for i in rank_order.tolist()], ranks_file)
    files = [docs_tmp / f"part-{i:05d}.bin" for i in range(len(parts))]
    per_doc = np.concatenate(_gather(client, [client.submit(encode_part_docs, p, str(ranks_file), str(f),
                                                            pure=False) for p, f in zip(parts, files)]))
    del parts  # the documents part is on disk: the workers free the tokens
    doc_offsets = np.zeros(len(per_doc) + 1, dtype=np.uint64)
    np.cumsum(per_doc, out=doc_offsets[1:])
    # reduce: one task per shard writes its folder into the shared staging folder
    ids_file = docs_tmp / "doc_ids.json"
    _dump_list(doc_ids, ids_file)
    written = _gather(client, [client.submit(_write_levels, str(tmp / shard_dir(s)), sd, str(ids_file), extra,
                                             *levels[s], pure=False) for s in range(n_shards)])
    from .build import _finish

    d = tmp / DOCS_DIR
    d.mkdir()
    write_token_files(d, rank_order, words, files, doc_offsets, words=True)
    shutil.rmtree(docs_tmp)
    shutil.rmtree(levels_tmp)
    none = {"n_ngrams": 0, "n_rows": 0, "n_multi": 0, "n_pruned": 0, "n_postings": 0}
    parts_ck = {shard_dir(s): w["checksum"] for s, w in enumerate(written)}
    parts_ck[DOCS_DIR] = _finish(d, settings, doc_ids, none, extra, fmt.DOCUMENTS)["checksum"]
    total_pruned = sum(n_pruned.values())
    totals = {k: sum(w["counts"][k] for w in written) for k in ("n_rows", "n_multi", "n_postings")}
    counts = {"n_docs": len(doc_ids), "n_ngrams": totals["n_rows"] + total_pruned, "n_pruned": total_pruned,
              "n_rows": totals["n_rows"], "n_multi": totals["n_multi"],
              "n_postings": totals["n_postings"] + total_pruned, **extra}
    hist = merge_histograms([w["hist"] for w in written] + [{n: [[1, c]] for n, c in n_pruned.items() if c}])
    write_manifest(tmp, sd, n_shards, counts, parts_ck, hist)


def _level(client, n: int, parts: List[Any], states: List[Any], frequent: List[List[Any]], seed: np.uint64,
           max_n: int, n_shards: int, levels_tmp: Path) -> Tuple[List[Any], List[List[Any]], List[str], int, Any]:
    """Level n on the cluster: its maps and its reduces, waited for (a HashCollision raises here).

    RETURNS: futures of the parts' states and of their replies for level n + 1 (held by
        the caller while a later level may need them computed again), the prefix of each
        shard's rows (on disk), the number of pruned N-grams, the unigram rows (level 1 only).
    """
    from . import runs
    from .shards import shard_dir

    outs = [client.submit(level_map, p, st, n, int(seed), int(runs.HASH_MASK), max_n, n_shards, *fr, pure=False)
            for p, st, fr in zip(parts, states, frequent)]
    states = [client.submit(_item, o, 0) for o in outs]
    pieces = [client.submit(_item, o, 1) for o in outs]
    n_pruned = sum(_gather(client, [client.submit(_item, o, 2) for o in outs]))
    reduced = [client.submit(level_reduce, n, str(levels_tmp / f"{shard_dir(s)}-n{n}"),
                             *[client.submit(_item, pc, s) for pc in pieces], pure=False) for s in range(n_shards)]
    frequent = [[client.submit(_reply, r, p) for r in reduced] for p in range(len(parts))]
    unigram_rows = _gather(client, [client.submit(_unigrams, r) for r in reduced]) if n == 1 else None
    prefixes = _gather(client, [client.submit(_prefix, r) for r in reduced])
    return states, frequent, prefixes, n_pruned, unigram_rows


def _gather(client, futures: List[Any]) -> List[Any]:
    """The futures' results, once all of them are finished: a failure (raised as
    Dask gives it) then leaves no task of the batch running, writing into the
    staging folder that the failure removes."""
    from distributed import wait

    wait(futures)
    return client.gather(futures)


def _item(x: Any, i: int) -> Any:
    return x[i]


def _reply(r: Reduced, part: int) -> np.ndarray:
    return r.replies[part]


def _prefix(r: Reduced) -> str:
    return r.prefix


def _part_info(p: Part) -> Tuple[List[str], int, int]:
    return p.doc_ids, p.n_tokens, p.n_skipped_empty


def _unigrams(r: Reduced) -> Tuple[List[str], np.ndarray]:
    return r.unigrams


def _write_levels(out_dir: str, settings: Dict[str, Any], ids_file: str, extra: Dict[str, int],
                  *prefixes: str) -> Dict[str, Any]:
    """Final reduce of one shard from files only (its level rows at `prefixes`,
    the document ids in `ids_file`), so Dask can run it again on any worker; a
    folder left by an attempt on a worker that died is replaced."""
    shutil.rmtree(out_dir, ignore_errors=True)
    with open(ids_file, encoding="utf-8") as f:
        doc_ids = json.load(f)
    return write_shard(out_dir, [ShardRows.load(p) for p in prefixes], settings, doc_ids, extra)


def _dump_list(items: List[str], path: Path) -> None:
    """Write a list of strings as compact JSON (for the workers, in the staging folder)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(items, f, ensure_ascii=False, separators=(",", ":"))


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1
