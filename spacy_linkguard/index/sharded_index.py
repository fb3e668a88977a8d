"""`ShardedIndex`: a sharded index (shards.py) with the API of `NgramIndex`.

Each batch of keys is split by shard, each shard answers its part with its
own vectorized lookups, and the answers are put back in the batch's order.
Keys that are in no shard are answered from the documents (pruned_lookup.py),
probing each sub-N-gram in its own shard.
"""
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import marisa_trie
import numpy as np
from pyroaring import BitMap

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
from . import format as fmt
from .folder_index import FolderIndex, TextLookups, arrays_to_bitmaps, open_index_files
from .pruned_lookup import DocTokens, forward_hints, resolve_misses
from .shards import read_manifest, shard_ids


class ShardedIndex(TextLookups):
    """An index split into shards by a hash of the key; the API of `NgramIndex`."""

    def __init__(self, path: Path, manifest: Dict[str, Any], shards: List[FolderIndex], docs: Optional[DocTokens],
                 doc_ids: List[str], doc_arrays: Dict[str, np.ndarray], words: marisa_trie.Trie):
        self.path = Path(path)
        self.meta = manifest
        self.settings = NgramSettings.from_dict(manifest["settings"])
        self.layout = "sharded"
        self.n_shards = len(shards)
        self.shards = shards
        self.doc_ids = doc_ids
        self._doc_numbers: Optional[Dict[str, int]] = None
        self._docs = docs
        self._words = words
        self._doc_blob = doc_arrays["doc_tokens"]
        self._doc_offsets = doc_arrays["doc_offsets"]
        self._token_keys = doc_arrays["token_keys"]

    @classmethod
    def load(cls, path: Union[str, Path], *, verify: bool = False) -> "ShardedIndex":
        """Open a sharded index folder (every part checked as `NgramIndex.load` checks a folder).

        RAISES: as `NgramIndex.load`, and E076 (parts that do not belong together).
        """
        from .integrity import check_documents, check_files, read_meta

        path = Path(path)
        m = read_manifest(path)
        shards = [FolderIndex.load(path / d, verify=verify, _part=True) for d in m["shards"]]
        dpath = path / m["documents"]
        dmeta = read_meta(dpath)
        check_files(dpath, dmeta, verify=verify)
        arrays, words, doc_ids = open_index_files(
            dpath, (("token_keys", fmt.TOKEN_KEYS), ("doc_tokens", fmt.DOC_TOKENS), ("doc_offsets", fmt.DOC_OFFSETS)),
            fmt.WORDS)
        check_documents(dpath, dmeta, arrays, len(words), doc_ids, full=verify)
        parts = {d: s.checksum for d, s in zip(m["shards"], shards)}
        parts[m["documents"]] = dmeta["checksum"]
        for name, ck in parts.items():
            if m["parts"][name] != ck:
                raise LinkguardError(Errors.E076.format(path=path, detail=f"{name} has checksum {ck}, "
                                                        f"manifest.json says {m['parts'][name]}"))
        for name, s in zip(m["shards"], shards):
            if s.meta["settings"] != m["settings"] or s.doc_ids != doc_ids:
                raise LinkguardError(Errors.E076.format(path=path, detail=f"{name} has other settings or documents"))
        docs = DocTokens(arrays["doc_tokens"], arrays["doc_offsets"], arrays["token_keys"], words.restore_key,
                         int(m["settings"]["max_n"]))
        return cls(path, m, shards, docs, doc_ids, arrays, words)

    # ---- properties -----------------------------------------------------
    @property
    def n_ngrams(self) -> int:
        return int(self.meta["counts"]["n_ngrams"])

    @property
    def n_rows(self) -> int:
        return sum(s.n_rows for s in self.shards)

    @property
    def checksum(self) -> str:
        return self.meta["checksum"]

    def __len__(self) -> int:
        return self.n_ngrams

    def __repr__(self) -> str:
        return f"ShardedIndex({str(self.path)!r}, n_shards={self.n_shards}, n_docs={self.n_docs}, n_ngrams={self.n_ngrams})"

    # ---- lookups by key -------------------------------------------------
    def _route(self, keys: Sequence[str]):
        """Per shard: (positions in the batch, row ids in the shard)."""
        sid = shard_ids(keys, self.n_shards, len(keys))
        order = np.argsort(sid, kind="stable")
        bounds = np.searchsorted(sid[order], np.arange(self.n_shards + 1))
        out = []
        for i, shard in enumerate(self.shards):
            pos = order[bounds[i] : bounds[i + 1]]
            if len(pos):
                out.append((shard, pos, shard.key_ids([keys[j] for j in pos.tolist()])))
        return out

    def _misses(self, keys: Sequence[str], missing: np.ndarray, states: np.ndarray):
        miss = np.flatnonzero(missing)
        if not len(miss):
            return []
        hints = forward_hints(states)[miss]
        docs = resolve_misses([keys[i] for i in miss.tolist()], self._key_states, self._docs, self.settings.max_n,
                              hints)
        if len(docs) and int(docs.max()) >= len(self.doc_ids):
            raise LinkguardError(Errors.E063.format(path=self.path, detail=f"a key resolves to document {int(docs.max())}"))
        found = docs >= 0
        return zip(miss[found].tolist(), docs[found].tolist())

    def _key_states(self, keys: List[str]) -> np.ndarray:
        out = np.full(len(keys), -1, dtype=np.int64)
        for shard, pos, ids in self._route(keys):
            out[pos] = shard._states(ids)
        return out

    def key_doc_freqs(self, keys: Sequence[str]) -> np.ndarray:
        """Document frequency (int64) of each key; 0 when absent."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        out = np.zeros(len(keys), dtype=np.int64)
        missing = np.zeros(len(keys), dtype=bool)
        states = np.full(len(keys), -1, dtype=np.int64)
        for shard, pos, ids in self._route(keys):
            out[pos] = shard._row_doc_freqs(ids)
            missing[pos] = ids < 0
            states[pos] = shard._states(ids)
        for i, _ in self._misses(keys, missing, states):
            out[i] = 1
        return out

    def key_posting_arrays(self, keys: Sequence[str]) -> List[np.ndarray]:
        """Sorted int64 document numbers of each key (empty when absent)."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        out: List[np.ndarray] = [np.zeros(0, dtype=np.int64)] * len(keys)
        missing = np.zeros(len(keys), dtype=bool)
        states = np.full(len(keys), -1, dtype=np.int64)
        for shard, pos, ids in self._route(keys):
            for j, arr in zip(pos.tolist(), shard._row_posting_arrays(ids)):
                out[j] = arr
            missing[pos] = ids < 0
            states[pos] = shard._states(ids)
        for i, d in self._misses(keys, missing, states):
            out[i] = np.asarray([d], dtype=np.int64)
        return out

    def key_postings(self, keys: Sequence[str]) -> List[BitMap]:
        """Document numbers containing each key; an empty BitMap when absent."""
        return arrays_to_bitmaps(self.key_posting_arrays(keys))

    # ---- whole-index views / updates ------------------------------------
    def stats(self) -> Dict[str, Any]:
        from .stats import index_stats

        return index_stats(self)

    def _token_words(self) -> List[str]:
        restore = self._words.restore_key
        return [restore(int(k)) for k in np.asarray(self._token_keys[1:]).tolist()]

    def add_documents(self, records, *, memory_budget: Union[str, int] = "4GB", progress: bool = True,
                      n_process: Optional[int] = None) -> "ShardedIndex":
        """Add documents; the result has the bytes of a full sharded rebuild (same number of shards)."""
        from .build import add_to_index

        add_to_index(self, records, memory_budget=memory_budget, progress=progress, n_process=n_process)
        return type(self).load(self.path)
