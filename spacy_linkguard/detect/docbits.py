"""Sets of document numbers as rows of bits (for the small, dense set algebra of detection)."""
from dataclasses import dataclass
from typing import Sequence

import numpy as np

_BLOCK = 4096  # rows unpacked at a time (bounded memory on long texts)


@dataclass
class DocBits:
    """Document sets as rows of bits. `doc_numbers[j]` is the index's
    document number of bit j; `bits` is (rows x words) uint64, little-endian."""

    doc_numbers: np.ndarray
    bits: np.ndarray

    @property
    def n_words(self) -> int:
        return int(self.bits.shape[1])

    def take(self, rows: np.ndarray) -> "DocBits":
        return DocBits(self.doc_numbers, self.bits[rows])

    def sizes(self) -> np.ndarray:
        """Number of documents in each row (int64)."""
        return np.bitwise_count(self.bits).sum(axis=1).astype(np.int64)

    def docs_of(self, row: int) -> np.ndarray:
        """The document numbers of one row, sorted."""
        flags = np.unpackbits(self.bits[row].view(np.uint8), bitorder="little")
        return self.doc_numbers[np.nonzero(flags[: len(self.doc_numbers)])[0]]

    def dense(self, rows: np.ndarray) -> np.ndarray:
        """bool (len(rows) x documents) membership matrix of some rows."""
        flags = np.unpackbits(self.bits[rows].view(np.uint8), axis=1, bitorder="little")
        return flags[:, : len(self.doc_numbers)].astype(bool)


def doc_bits(postings: Sequence[np.ndarray]) -> DocBits:
    """Bitsets of posting lists over the documents that occur in any of them."""
    lengths = np.asarray([len(p) for p in postings], dtype=np.int64)
    docs = np.concatenate([np.asarray(p, dtype=np.int64) for p in postings]) if len(postings) else np.zeros(
        0, dtype=np.int64)
    present = np.zeros(int(docs.max()) + 1 if len(docs) else 0, dtype=bool)
    present[docs] = True
    doc_numbers = np.nonzero(present)[0].astype(np.int64)
    column = np.cumsum(present) - 1
    n_words = max((len(doc_numbers) + 63) // 64, 1)
    bits = np.zeros((len(postings), n_words), dtype=np.uint64)
    owner = np.repeat(np.arange(len(postings), dtype=np.int64), lengths)
    for lo in range(0, len(postings), _BLOCK):
        hi = min(lo + _BLOCK, len(postings))
        a, b = int(lengths[:lo].sum()), int(lengths[:hi].sum())
        dense = np.zeros((hi - lo, n_words * 64), dtype=bool)
        dense[owner[a:b] - lo, column[docs[a:b]]] = True
        bits[lo:hi] = np.packbits(dense, axis=1, bitorder="little").view(np.uint64)
    return DocBits(doc_numbers, bits)


