"""Build step 1: documents -> a stream of token ids on disk.

Each document's segments (`spacy_linkguard.ngrams.text_segments`) become token
ids, every segment followed by the SENTINEL id, appended to a uint32 file.
Only the token vocabulary (distinct single tokens) is held in memory; N-grams
are enumerated later from this stream with numpy.
"""
import warnings
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

import numpy as np

from ..corpus import Record, record_from_obj
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..ngrams import NgramSettings, text_segments

SENTINEL = 0xFFFFFFFF
# Texts longer than this are tokenized piece by piece, cut after line breaks:
# spaCy splits on whitespace first and a line break is always a segment
# boundary, so the pieces give exactly the tokens of the whole text while the
# tokenizer never holds more than this many characters (spaCy's max_length).
PIECE_CHARS = 1_000_000
_FLUSH = 1 << 20


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
    seen_ids: Dict[str, int] = field(default_factory=dict, repr=False)

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


def tokenize_records(
    records: Iterable[Union[Record, Dict[str, Any]]],
    path: Path,
    settings: NgramSettings,
    *,
    known_ids: Optional[Dict[str, int]] = None,
    progress: bool = False,
    total: Optional[int] = None,
) -> TokenStream:
    """Tokenize `records` into a token-id stream written to `path`.

    known_ids: ids already in the index (adding documents): repeating one is E052.
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
    n_positions = n_tokens = 0
    skipped: List[str] = []
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
                raise LinkguardError(Errors.E054.format(doc_id=rec.id, char=repr(rec.text[e.start : e.end]))) from None
            for piece in text_pieces(rec.text):
                for seg in text_segments(piece, settings):
                    for key in seg.keys:
                        tid = vocab.get(key)
                        if tid is None:
                            tid = vocab[key] = len(vocab_list)
                            vocab_list.append(key)
                        buf.append(tid)
                    n_tokens += len(seg.keys)
                    buf.append(SENTINEL)
            if len(buf) >= _FLUSH:
                n_positions += len(buf)
                buf.tofile(f)
                buf = array("I")
            doc_ids.append(rec.id)
            starts.append(n_positions + len(buf))
        n_positions += len(buf)
        buf.tofile(f)
    if len(vocab_list) >= SENTINEL:
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
        seen_ids=seen,
    )
