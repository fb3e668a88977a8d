"""Build step 1: documents -> a stream of token ids on disk.

Each document's segments (`spacy_linkguard.ngrams.text_segments`, here on the
normalized text since offsets are not needed) become token
ids, every segment followed by the SENTINEL id, appended to a uint32 file.
Only the token vocabulary (distinct single tokens) is held in memory; N-grams
are enumerated later from this stream with numpy.
"""
import multiprocessing
import os
import threading
import warnings
from array import array
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import numpy as np

from ..corpus import Record, record_from_obj
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..ngrams import NgramSettings, get_tokenizer, normalize_text, normalized_segments

SENTINEL = 0xFFFFFFFF
MAX_VOCAB = 2**31 - 1  # token ids also live in int32 arrays
# Texts longer than this are tokenized piece by piece, cut after line breaks
# of the normalized text: spaCy splits on whitespace first and a normalized
# text has "\n" only in blank lines, segment boundaries, so the pieces give
# exactly the tokens of the whole text while the tokenizer never holds more
# than this many characters (spaCy's max_length).
PIECE_CHARS = 1_000_000
_FLUSH = 1 << 20
BATCH_DOCS = 32  # documents per task sent to a tokenizer process
# A batch a tokenizer process has not sent back after this long is a stuck process (E037):
# 32 documents take well under a second each, so this is generous.
STALL_SECONDS = 600.0


@dataclass
class TokenStream:
    """The tokenized documents of one build (see module docstring)."""

    path: Path
    n_positions: int
    doc_starts: np.ndarray  # int64, n_docs + 1 positions
    vocab: List[str]
    doc_ids: List[str]
    n_tokens: int
    n_skipped_empty: int

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    def tokens(self) -> np.ndarray:
        if self.n_positions == 0:
            return np.zeros(0, dtype=np.uint32)
        return np.memmap(self.path, dtype=np.uint32, mode="r", shape=(self.n_positions,))


def text_pieces(text: str, limit: int = PIECE_CHARS) -> Iterator[str]:
    """Cut `text` after line breaks into pieces of at most `limit` characters
    where possible (a single longer line stays whole)."""
    start, n = 0, len(text)
    while n - start > limit:
        cut = text.rfind("\n", start, start + limit)
        if cut < start:
            cut = text.find("\n", start + limit)
            if cut == -1:
                break
        yield text[start : cut + 1]
        start = cut + 1
    yield text[start:]


def as_record(obj: Union[Record, Dict[str, Any]], position: int) -> Record:
    if isinstance(obj, Record):
        return obj
    if isinstance(obj, dict):
        return record_from_obj(obj, path="<records>", line=position)
    raise LinkguardError(Errors.E053.format(position=position, kind=type(obj).__name__))


def segment_text(texts: List[str], placeholder: str, max_n: int) -> List[str]:
    """Segments of each text as one string: keys joined by " ", segments by "\\n".

    Keys never contain whitespace (spaCy splits at every whitespace character
    and whitespace tokens are boundaries), so the joined form is unambiguous
    and cheap to send between processes.
    """
    settings = NgramSettings(max_n=max_n, placeholder=placeholder)
    out = []
    for text in texts:
        segs = []
        for piece in text_pieces(normalize_text(text).text):
            segs.extend(" ".join(seg.keys) for seg in normalized_segments(piece, settings))
        out.append("\n".join(segs))
    return out


class _Segmenter:
    """Runs `segment_text` on batches of texts, in worker processes when n_process > 1,
    and yields the results in input order. At most 4 batches per worker wait,
    so memory stays bounded whatever the corpus size.

    The workers are forked (cheap: the tokenizer is built once, before) only
    while this process runs no other thread (`other_threads`); a fork taken while another
    thread (Dask's, say) holds a lock can leave the child waiting
    on it for ever, so then they start from a fork server (or spawn). A
    worker that dies is E036, one that sends nothing for STALL_SECONDS E037:
    never a wait without end.
    """

    def __init__(self, settings: NgramSettings, n_process: int):
        self.args = (settings.placeholder, settings.max_n)
        self.n_process, self.batch_size = n_process, BATCH_DOCS
        self.n_batches = 0
        self.pool: Optional[ProcessPoolExecutor] = None
        self.pending: Deque = deque()
        self.batch: List[Tuple[Any, str]] = []

    def add(self, item: Any, text: str) -> Iterator[Tuple[Any, str]]:
        self.batch.append((item, text))
        if len(self.batch) >= self.batch_size:
            yield from self._submit()

    def finish(self) -> Iterator[Tuple[Any, str]]:
        yield from self._submit()
        while self.pending:
            yield from self._collect()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None

    def close(self) -> None:
        """End the workers now (after an error): killed, never waited on."""
        if self.pool is None:
            return
        pool, self.pool = self.pool, None
        for f in (f for _, f in self.pending):
            f.cancel()
        self.pending.clear()
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            if p.is_alive():
                p.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    def _submit(self) -> Iterator[Tuple[Any, str]]:
        if not self.batch:
            return
        items, texts = zip(*self.batch)
        self.batch = []
        self.n_batches += 1
        if self.n_process <= 1 or self.n_batches == 1:  # small inputs never pay for a pool
            yield from zip(items, segment_text(list(texts), *self.args))
            return
        if self.pool is None:
            ctx = pool_context()
            if ctx.get_start_method() == "fork":
                get_tokenizer(self.args[0])  # build it once, before forking
            self.pool = ProcessPoolExecutor(self.n_process, mp_context=ctx)
        try:
            future = self.pool.submit(segment_text, list(texts), *self.args)
        except BrokenProcessPool:
            raise LinkguardError(Errors.E036.format(detail=self._deaths())) from None
        self.pending.append((items, future))
        while len(self.pending) > 4 * self.n_process:
            yield from self._collect()

    def _collect(self) -> Iterator[Tuple[Any, str]]:
        items, future = self.pending[0]
        try:
            texts = future.result(timeout=STALL_SECONDS)
        except BrokenProcessPool:
            raise LinkguardError(Errors.E036.format(detail=self._deaths())) from None
        except FutureTimeout:
            raise LinkguardError(Errors.E037.format(seconds=STALL_SECONDS, batch=len(items))) from None
        self.pending.popleft()
        yield from zip(items, texts)

    def _deaths(self) -> str:
        codes = [p.exitcode for p in (getattr(self.pool, "_processes", None) or {}).values()]
        dead = [f"exit code {c}" for c in codes if c not in (None, 0)]
        return ", ".join(dead) or "a worker process ended abruptly"


def pool_context() -> BaseContext:
    """How the tokenizer processes start: fork while this process runs one
    thread only (`other_threads`); else the fork server (where there is one) or spawn."""
    if not other_threads():
        return multiprocessing.get_context("fork")
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def default_n_process() -> int:
    """Worker processes for tokenization: the CPUs this process may use, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(4, n))


def tokenize_records(
    records: Iterable[Union[Record, Dict[str, Any]]],
    path: Path,
    settings: NgramSettings,
    *,
    known_ids: Optional[Dict[str, int]] = None,
    progress: bool = False,
    total: Optional[int] = None,
    n_process: Optional[int] = None,
) -> TokenStream:
    """Tokenize `records` into a token-id stream written to `path`.

    known_ids: ids already in the index (adding documents): repeating one is E052.
    n_process: tokenizer processes (default: the usable CPUs, at most 4).
    RAISES: E051 (id repeated among the records), E052, E053 (not a record),
        E054 (text not encodable as UTF-8).
    Empty (whitespace-only) documents are skipped with warning W050.
    """
    from tqdm import tqdm

    vocab: Dict[str, int] = {}
    vocab_list: List[str] = []
    doc_ids: List[str] = []
    seen: Dict[str, int] = {}
    starts = array("q", [0])
    buf = array("I")
    counts = {"positions": 0, "tokens": 0}
    skipped: List[str] = []
    n_process = default_n_process() if n_process is None else max(1, n_process)
    segmenter = _Segmenter(settings, n_process)

    def consume(done: Iterator[Tuple[str, str]]) -> None:
        nonlocal buf
        for doc_id, joined in done:
            if joined:
                for seg in joined.split("\n"):
                    keys = seg.split(" ")
                    for key in keys:
                        tid = vocab.get(key)
                        if tid is None:
                            tid = vocab[key] = len(vocab_list)
                            vocab_list.append(key)
                        buf.append(tid)
                    counts["tokens"] += len(keys)
                    buf.append(SENTINEL)
            if len(buf) >= _FLUSH:
                counts["positions"] += len(buf)
                buf.tofile(f)
                buf = array("I")
            doc_ids.append(doc_id)
            starts.append(counts["positions"] + len(buf))

    try:
        with open(path, "wb") as f, tqdm(
            total=total, desc="tokenizing", unit="doc", disable=not progress, leave=False
        ) as bar:
            for position, obj in enumerate(records, start=1):
                bar.update(1)
                rec = as_record(obj, position)
                if rec.id in seen:
                    raise LinkguardError(Errors.E051.format(doc_id=rec.id, first=seen[rec.id], pos=position))
                if known_ids is not None and rec.id in known_ids:
                    raise LinkguardError(Errors.E052.format(doc_id=rec.id, number=known_ids[rec.id]))
                seen[rec.id] = position
                if not rec.text.strip():
                    skipped.append(rec.id)
                    continue
                try:  # spaCy (and the key file) need text that UTF-8 can encode
                    rec.text.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise LinkguardError(
                        Errors.E054.format(doc_id=rec.id, char=repr(rec.text[e.start : e.end]))
                    ) from None
                consume(segmenter.add(rec.id, rec.text))
            consume(segmenter.finish())
            counts["positions"] += len(buf)
            buf.tofile(f)
    finally:
        segmenter.close()
    n_positions, n_tokens = counts["positions"], counts["tokens"]
    if len(vocab_list) >= MAX_VOCAB:
        raise LinkguardError(Errors.E065.format(n=len(vocab_list)))
    if skipped:
        warnings.warn(Warnings.W050.format(n=len(skipped), doc_id=skipped[0]), LinkguardWarning, stacklevel=3)
    return TokenStream(
        path=path,
        n_positions=n_positions,
        doc_starts=np.frombuffer(starts, dtype=np.int64).copy(),
        vocab=vocab_list,
        doc_ids=doc_ids,
        n_tokens=n_tokens,
        n_skipped_empty=len(skipped),
    )


def concat_streams(first: TokenStream, second: TokenStream, path: Path) -> TokenStream:
    """One stream of the documents of `first`, then those of `second` (vocabularies merged)."""
    vocab = list(first.vocab)
    ids = {w: i for i, w in enumerate(vocab)}
    remap = np.empty(len(second.vocab) + 1, dtype=np.uint32)
    for j, w in enumerate(second.vocab):
        i = ids.get(w)
        if i is None:
            i = ids[w] = len(vocab)
            vocab.append(w)
        remap[j] = i
    remap[-1] = SENTINEL
    if len(vocab) >= MAX_VOCAB:
        raise LinkguardError(Errors.E065.format(n=len(vocab)))
    with open(path, "wb") as f:
        np.asarray(first.tokens()).tofile(f)
        t = np.asarray(second.tokens()).astype(np.int64)
        remap[np.where(t == SENTINEL, len(second.vocab), t)].tofile(f)
    return TokenStream(
        path=path,
        n_positions=first.n_positions + second.n_positions,
        doc_starts=np.concatenate([first.doc_starts, second.doc_starts[1:] + first.n_positions]),
        vocab=vocab,
        doc_ids=first.doc_ids + second.doc_ids,
        n_tokens=first.n_tokens + second.n_tokens,
        n_skipped_empty=first.n_skipped_empty + second.n_skipped_empty,
    )


def other_threads() -> List[threading.Thread]:
    """The threads of this process besides the calling one that a fork must not
    be taken under. tqdm's monitor is not among them: every tqdm bar starts it,
    a disabled one too (the build's own "tokenizing" bar is open while the pool
    starts), and it only takes tqdm's own lock, which the tokenizer processes
    never use. Counting it would make every build start its workers from the
    fork server, which re-runs a user's script without a `__main__` guard in
    each worker (E036)."""
    try:
        from tqdm._monitor import TMonitor
    except ImportError:  # pragma: no cover (tqdm is a dependency)
        TMonitor = ()  # type: ignore[assignment,misc]
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t is not me and not isinstance(t, TMonitor)]
