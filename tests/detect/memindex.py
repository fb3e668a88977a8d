"""A tiny in-memory index with the key-level API of `NgramIndex`, for tests.

Built straight from the brute-force definition (`text_ngram_keys` of every
document), so it shares no code with the real index.
"""
import hashlib
from typing import Dict, List, Sequence, Tuple

import numpy as np
from pyroaring import BitMap

from spacy_linkguard.ngrams import NgramSettings, text_ngram_keys


class MemoryIndex:
    def __init__(self, records: Sequence[Tuple[str, str]], settings: NgramSettings = NgramSettings()):
        self.settings = settings
        self.doc_ids: List[str] = [doc_id for doc_id, _ in records]
        self.n_docs = len(records)
        self.doc_keys: List[set] = [text_ngram_keys(text, settings) for _, text in records]
        self._postings: Dict[str, BitMap] = {}
        for number, keys in enumerate(self.doc_keys):
            for key in keys:
                self._postings.setdefault(key, BitMap()).add(number)
        self.checksum = hashlib.sha1(repr(records).encode()).hexdigest()

    def key_doc_freqs(self, keys: Sequence[str]) -> np.ndarray:
        get = self._postings.get
        return np.asarray([len(get(key, ())) for key in keys], dtype=np.int64)

    def key_postings(self, keys: Sequence[str]) -> List[BitMap]:
        return [BitMap(self._postings.get(key, BitMap())) for key in keys]
