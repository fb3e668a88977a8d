"""Each document's token ids, stored compactly (the pruned layout's `doc_tokens.npy`).

Tokens are numbered by rank: 1 is the unigram in most documents (ties: key
text order), 0 ends a segment. Ranks are written as LEB128 varints (7 bits a
byte, high bit set on all but the last byte), so the frequent words take one
byte. Encoding and decoding are vectorized with numpy.
"""
from pathlib import Path
from typing import List, Tuple

import marisa_trie
import numpy as np

from . import format as fmt
from .tokens import SENTINEL, TokenStream

SEGMENT_END = 0
NO_KEY = 0xFFFFFFFF  # token_keys[SEGMENT_END]
_MAX_BYTES = 5  # a uint32 takes at most 5 varint bytes


def encode_varints(values: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """LEB128 bytes of `values` (non-negative, < 2**35) and each value's byte count."""
    v = np.asarray(values, dtype=np.uint64)
    nbytes = np.ones(len(v), dtype=np.int64)
    for j in range(1, _MAX_BYTES):
        nbytes += v >= np.uint64(1 << (7 * j))
    ends = np.cumsum(nbytes)
    starts = ends - nbytes
    out = np.empty(int(ends[-1]) if len(v) else 0, dtype=np.uint8)
    for j in range(_MAX_BYTES):
        m = nbytes > j
        if not m.any():
            break
        byte = (v[m] >> np.uint64(7 * j)) & np.uint64(0x7F)
        more = (nbytes[m] - 1 > j).astype(np.uint64) << np.uint64(7)
        out[starts[m] + j] = (byte | more).astype(np.uint8)
    return out, nbytes


def decode_varints(data: np.ndarray) -> np.ndarray:
    """The int64 values of LEB128 bytes (the inverse of `encode_varints`)."""
    b = np.asarray(data, dtype=np.uint8)
    if not len(b):
        return np.zeros(0, dtype=np.int64)
    last = b < 0x80
    vid = np.cumsum(last) - last  # value number of each byte
    first = np.flatnonzero(np.concatenate([[True], last[:-1]]))
    shift = (np.arange(len(b)) - first[vid]) * 7
    parts = (b & 0x7F).astype(np.int64) << shift
    # float64 sums are exact: every value is below 2**35
    return np.bincount(vid, weights=parts).astype(np.int64)


def doc_words(ranks: np.ndarray, words: List[str]) -> List[List[str]]:
    """Segments of one document as lists of key strings (`words[rank]`)."""
    segs: List[List[str]] = []
    cur: List[str] = []
    for r in ranks.tolist():
        if r == SEGMENT_END:
            segs.append(cur)
            cur = []
        else:
            cur.append(words[r])
    if cur:
        segs.append(cur)
    return segs


def write_token_files(out: Path, rank_order: np.ndarray, vocab: List[str], doc_bytes, doc_offsets: np.ndarray,
                      *, words: bool = False) -> None:
    """token_keys.npy, doc_tokens.npy, doc_offsets.npy into `out`: token keys are
    key ids of `out`/vocab.marisa (written before), or with `words` of a trie of
    the unigrams written here as words.marisa (a sharded index's documents).
    doc_bytes: a uint8 array, or raw files to concatenate (streamed)."""
    if words:
        marisa_trie.Trie(vocab).save(str(out / fmt.WORDS))
    trie = marisa_trie.Trie()
    trie.mmap(str(out / (fmt.WORDS if words else fmt.VOCAB)))
    key_id = trie.key_id
    keys = np.empty(len(rank_order) + 1, dtype=np.uint32)
    keys[0] = NO_KEY
    keys[1:] = np.fromiter((key_id(vocab[i]) for i in rank_order.tolist()), dtype=np.uint32, count=len(rank_order))
    del trie
    np.save(out / fmt.TOKEN_KEYS, keys)
    if isinstance(doc_bytes, list):
        from .writer import new_array

        total = sum(Path(f).stat().st_size for f in doc_bytes)
        arr = new_array(out / fmt.DOC_TOKENS, dtype=np.uint8, shape=(total,))
        o = 0
        for f in doc_bytes:
            part = np.fromfile(f, dtype=np.uint8)
            arr[o : o + len(part)] = part
            o += len(part)
        arr.flush()
        del arr
    else:
        np.save(out / fmt.DOC_TOKENS, np.asarray(doc_bytes, dtype=np.uint8))
    np.save(out / fmt.DOC_OFFSETS, np.asarray(doc_offsets, dtype=np.uint64))


def index_token_stream(index, path: Path) -> TokenStream:
    """The documents of a pruned index as a token stream at `path` (token id = rank - 1),
    as `tokenize_records` would have made it (for adding documents)."""
    ranks = decode_varints(index._doc_blob)
    vocab = index._token_words()
    tokens = np.where(ranks == SEGMENT_END, SENTINEL, ranks - 1).astype(np.uint32)
    tokens.tofile(path)
    # byte offsets -> token positions: the number of values decoded before each document
    blob = np.asarray(index._doc_blob)
    ends = np.concatenate([[0], np.cumsum(blob < 0x80)])
    doc_starts = ends[np.asarray(index._doc_offsets, dtype=np.int64)].astype(np.int64)
    counts = index.meta["counts"]
    return TokenStream(path=path, n_positions=len(tokens), doc_starts=doc_starts, vocab=vocab,
                       doc_ids=list(index.doc_ids), n_tokens=int(np.count_nonzero(ranks != SEGMENT_END)),
                       n_skipped_empty=counts.get("n_skipped_empty", 0))
