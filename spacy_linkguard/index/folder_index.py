"""`FolderIndex`: one folder of the N-gram inverted index, read side (memory-mapped)."""
import json
from itertools import repeat
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import marisa_trie
import numpy as np
from pyroaring import BitMap

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings, query_key
from . import format as fmt
from .writer import Source

def arrays_to_bitmaps(arrays: List[np.ndarray]) -> List[BitMap]:
    """BitMaps of posting arrays; a list repeated in the batch (the same array object) is built once and copied."""
    built: Dict[int, BitMap] = {}
    out = []
    for a in arrays:
        bm = built.get(id(a))
        if bm is None:
            bm = built[id(a)] = BitMap(a.tolist())
            out.append(bm)
        else:
            out.append(bm.copy())
    return out


def open_index_files(path: Path, named: Sequence, trie_name: str):
    """Memory-map the .npy files `named` ((attribute, file name) pairs) and the
    trie `trie_name` of an index folder, and read its document ids.

    RETURNS (tuple): ({attribute: array}, trie, doc_ids).
    RAISES: LinkguardError E063 when a file cannot be read.
    """
    arrays = {}
    for attr, name in named:
        try:
            arrays[attr] = np.load(path / name, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError) as e:
            raise LinkguardError(Errors.E063.format(path=path / name, detail=str(e))) from None
    try:
        trie = marisa_trie.Trie()
        trie.mmap(str(path / trie_name))
        doc_ids = json.loads((path / fmt.DOC_IDS).read_text(encoding="utf-8"))
    except Exception as e:  # marisa raises plain RuntimeError/ValueError on bad bytes
        raise LinkguardError(Errors.E063.format(path=path, detail=f"{type(e).__name__}: {e}")) from None
    return arrays, trie, doc_ids


class TextLookups:
    """Lookups by phrase and by corpus id, on top of the key lookups of an index class."""

    def key(self, text: str) -> str:
        """The key of a phrase, tokenized the index's way (E004/E005 if not one N-gram)."""
        return query_key(text, self.settings)

    def doc_freq(self, text: str) -> int:
        """Number of documents containing the phrase `text` (one segment, <= max_n tokens)."""
        return int(self.key_doc_freqs([self.key(text)])[0])

    def postings(self, text: str) -> BitMap:
        """Document numbers containing the phrase `text`."""
        return self.key_postings([self.key(text)])[0]

    def doc_freqs(self, texts: Sequence[str]) -> np.ndarray:
        """`doc_freq` of many phrases (int64 array)."""
        return self.key_doc_freqs([self.key(t) for t in texts])

    def postings_many(self, texts: Sequence[str]) -> List[BitMap]:
        """`postings` of many phrases."""
        return self.key_postings([self.key(t) for t in texts])

    def doc_number(self, doc_id: str) -> int:
        """The document number of a corpus id (KeyError when absent)."""
        if self._doc_numbers is None:
            self._doc_numbers = {d: i for i, d in enumerate(self.doc_ids)}
        return self._doc_numbers[doc_id]

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)


class FolderIndex(TextLookups):
    """The read side of one index folder (a whole index, or a shard of one):
    for every N-gram (1..max_n tokens) of a collection, the documents containing it.

    Document numbers are 0..n_docs-1 in corpus order; `doc_ids[i]` is the corpus
    id. `NgramIndex` (ngram_index.py) adds building, adding documents, and
    opening a sharded folder.
    """

    def __init__(self, path: Path, meta: Dict[str, Any], trie: marisa_trie.Trie, arrays: Dict[str, np.ndarray],
                 doc_ids: List[str]):
        self.path = Path(path)
        self.meta = meta
        self.settings = NgramSettings.from_dict(meta["settings"])
        self._trie = trie
        self._get = trie.get
        self._df = arrays["df"]
        self._ref = arrays["ref"]
        self._rank = arrays.get("multi_rank")  # pruned layout: posting list numbers by rank
        self._n = arrays.get("ngram_n")  # not in the pruned layout
        self._offsets = arrays["offsets"]
        self._blob = arrays["postings"]
        self.doc_ids = doc_ids
        self._doc_numbers: Optional[Dict[str, int]] = None
        self.layout = fmt.layout_of(meta)
        self._varint = self.layout in (fmt.PRUNED, fmt.SHARD)  # postings_codec.DELTA_VARINT
        self._docs = None
        if self.layout == fmt.PRUNED:
            from .pruned_lookup import DocTokens

            self._token_keys = arrays["token_keys"]
            self._doc_blob = arrays["doc_tokens"]
            self._doc_offsets = arrays["doc_offsets"]
            self._docs = DocTokens(self._doc_blob, self._doc_offsets, self._token_keys, trie.restore_key,
                                   self.settings.max_n)

    # ---- opening ----------------------------------------------------------
    @classmethod
    def load(cls, path: Union[str, Path], *, verify: bool = False, _part: bool = False) -> "FolderIndex":
        """Open an index directory, memory-mapped (fast: only cheap checks read data).

        Every load checks meta.json (schema, checksums of its settings and
        counts), the files' sizes, the CRC-32 of the trie and of up to 64 MiB
        of arrays, and sampled values (spacy_linkguard/index/integrity.py;
        ~11 ms on the ECHR index).
        verify: also compare every file's SHA-256 with meta.json and check
            every row (reads everything).
        RAISES: E059 (no index there), E060 (meta.json unreadable), E061 (newer
            format), E072 (older format: rebuild it), E062 (missing file), E063
            (file of the wrong size, shape or values), E064 (SHA-256 mismatch,
            with verify=True), E069 (meta.json edited), E070 (CRC-32 mismatch).
        """
        from .integrity import check_arrays, check_files, read_meta

        path = Path(path)
        meta = read_meta(path)
        if fmt.layout_of(meta) in (fmt.SHARD, fmt.DOCUMENTS) and not _part:
            raise LinkguardError(Errors.E074.format(path=path, layout=fmt.layout_of(meta), parent=path.parent))
        check_files(path, meta, verify=verify)
        named = [("df", fmt.DF), ("ref", fmt.REF), ("offsets", fmt.OFFSETS), ("postings", fmt.POSTINGS)]
        if fmt.layout_of(meta) in (fmt.PRUNED, fmt.SHARD):
            named.append(("multi_rank", fmt.MULTI_RANK))
        if fmt.layout_of(meta) == fmt.FULL:
            named.append(("ngram_n", fmt.NGRAM_N))
        elif fmt.layout_of(meta) == fmt.PRUNED:
            named += [("token_keys", fmt.TOKEN_KEYS), ("doc_tokens", fmt.DOC_TOKENS),
                      ("doc_offsets", fmt.DOC_OFFSETS)]
        arrays, trie, doc_ids = open_index_files(path, named, fmt.VOCAB)
        check_arrays(path, meta, arrays, len(trie), doc_ids, full=verify)
        return cls(path, meta, trie, arrays, doc_ids)

    # ---- properties -----------------------------------------------------
    @property
    def n_ngrams(self) -> int:
        """Distinct N-grams of the collection (stored as rows or not)."""
        return int(self.meta["counts"]["n_ngrams"])

    @property
    def n_rows(self) -> int:
        """N-grams stored as rows (all of them in the full layout)."""
        return len(self._df)

    @property
    def checksum(self) -> str:
        """Identifies the content (settings, documents, ids); stored in meta.json."""
        return self.meta["checksum"]

    def __len__(self) -> int:
        return self.n_ngrams

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r}, n_docs={self.n_docs}, n_ngrams={self.n_ngrams})"

    # ---- lookups by key (the detector's hot path) -----------------------
    def key_ids(self, keys: Sequence[str]) -> np.ndarray:
        """Row of each key (int64), -1 when absent."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        return np.fromiter(map(self._get, keys, repeat(-1)), dtype=np.int64, count=len(keys))

    def key_doc_freqs(self, keys: Sequence[str]) -> np.ndarray:
        """Document frequency (int64) of each key made by `spacy_linkguard.ngrams`; 0 when absent."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        ids = self.key_ids(keys)
        out = self._row_doc_freqs(ids)
        for i, _ in self._resolved_misses(keys, ids):
            out[i] = 1
        return out

    def key_doc_freqs_and_docs(self, keys: Sequence[str]):
        """`key_doc_freqs`, and the document (int64) of each key of df 1 (-1
        for the others, and where the stored document number is out of range:
        `key_posting_arrays` then raises E063 as it would)."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        ids = self.key_ids(keys)
        hit = ids >= 0
        rows = ids[hit]
        df = self._df.view(np.ndarray)[rows]  # plain views of the memory maps: no memmap object per step
        out = np.zeros(len(ids), dtype=np.int64)
        out[hit] = df
        docs = np.full(len(ids), -1, dtype=np.int64)
        # int64 before -1 enters: the stored numbers may be uint16/uint32 (NumPy >= 2.5 refuses the mix)
        docs[hit] = np.where(df == 1, self._ref.view(np.ndarray)[rows].astype(np.int64), -1)
        for i, d in self._resolved_misses(keys, ids):
            out[i] = 1
            docs[i] = d
        docs[docs >= len(self.doc_ids)] = -1
        return out, docs

    def key_postings(self, keys: Sequence[str]) -> List[BitMap]:
        """Document numbers containing each key; an empty BitMap when absent."""
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        if self._varint:  # delta-varint lists: the batch decoder is much faster than one list at a time
            return arrays_to_bitmaps(self.key_posting_arrays(keys))
        ids = self.key_ids(keys)
        return [self._postings_of(int(i)) for i in ids]

    def key_posting_arrays(self, keys: Sequence[str]) -> List[np.ndarray]:
        """`key_postings` as sorted int64 arrays (the detector's batch path:
        the rows' metadata is read in one vectorized step).

        RAISES: E063 when a posting list is damaged (as `key_postings`).
        """
        if not hasattr(keys, "__len__"):
            keys = list(keys)
        ids = self.key_ids(keys)
        out = self._row_posting_arrays(ids)
        for i, d in self._resolved_misses(keys, ids):
            out[i] = np.asarray([d], dtype=np.int64)
        return out

    def _resolved_misses(self, keys: Sequence[str], ids: np.ndarray):
        """(position, document) of the keys that are not rows but occur (pruned layout)."""
        if self._docs is None:
            return []
        miss = np.flatnonzero(ids < 0)
        if not len(miss):
            return []
        from .pruned_lookup import forward_hints

        hints = forward_hints(self._states(ids))[miss]
        docs = self._resolve([keys[i] for i in miss.tolist()], hints)
        found = docs >= 0
        return zip(miss[found].tolist(), docs[found].tolist())

    def _row_doc_freqs(self, ids: np.ndarray) -> np.ndarray:
        """df (int64) of rows `ids`; 0 for -1."""
        out = np.zeros(len(ids), dtype=np.int64)
        hit = ids >= 0
        out[hit] = self._df[ids[hit]]
        return out

    def _states(self, ids: np.ndarray) -> np.ndarray:
        """pruned_lookup's row states of rows `ids`: the document of a df-1 row,
        FREQUENT (-2) for df >= 2, ABSENT (-1) for -1."""
        out = np.full(len(ids), -1, dtype=np.int64)
        hit = np.flatnonzero(ids >= 0)
        rows = ids[hit]
        df = np.asarray(self._df[rows])
        out[hit] = np.where(df == 1, np.asarray(self._ref[rows], dtype=np.int64), -2)
        return out

    def _key_states(self, keys: List[str]) -> np.ndarray:
        return self._states(self.key_ids(keys))

    def _resolve(self, keys: List[str], hints: Optional[np.ndarray] = None) -> np.ndarray:
        """Pruned layout: the one document (or -1) of keys that are not rows (pruned_lookup.py)."""
        from .pruned_lookup import resolve_misses

        docs = resolve_misses(keys, self._key_states, self._docs, self.settings.max_n, hints)
        if len(docs) and int(docs.max()) >= len(self.doc_ids):
            raise LinkguardError(Errors.E063.format(path=self.path / fmt.REF,
                                                    detail=f"a key resolves to document {int(docs.max())}"))
        return docs

    def _row_posting_arrays(self, ids: np.ndarray) -> List[np.ndarray]:
        """Sorted int64 documents of rows `ids` (empty for -1)."""
        present = ids >= 0
        rows = ids[present]
        df = np.asarray(self._df[rows], dtype=np.int64)
        ref = np.asarray(self._ref[rows], dtype=np.int64)
        single = df == 1
        n_docs = len(self.doc_ids)
        if single.any() and int(ref[single].max()) >= n_docs:
            bad = int(rows[single][np.argmax(ref[single] >= n_docs)])
            return [self._postings_of(bad)]  # raises E063 with the row named
        empty = np.zeros(0, dtype=np.int64)
        out: List[np.ndarray] = [empty] * len(ids)
        where = np.nonzero(present)[0]
        for i, doc in zip(where[single].tolist(), ref[single].tolist()):
            out[i] = np.asarray([doc], dtype=np.int64)
        lists = self._list_numbers(rows[~single], ref[~single])
        if len(lists) and int(lists.max()) + 1 >= len(self._offsets):
            return [self._postings_of(int(rows[~single][np.argmax(lists + 1 >= len(self._offsets))]))]
        if self._varint:  # delta-varint lists, each distinct one decoded once, all together
            from .postings_codec import decode_delta_varint_many

            uniq, inverse = np.unique(lists, return_inverse=True)
            starts_a = np.asarray(self._offsets[uniq], dtype=np.int64)
            ends_a = np.asarray(self._offsets[uniq + 1], dtype=np.int64)
            first_of = np.zeros(len(uniq), dtype=np.int64)
            first_of[inverse[::-1]] = np.arange(len(inverse))[::-1]  # a row of each distinct list
            multi_rows = rows[~single]
            if np.any(ends_a < starts_a) or (len(ends_a) and int(ends_a.max()) > len(self._blob)):
                bad = (ends_a < starts_a) | (ends_a > len(self._blob))
                return [self._postings_of(int(multi_rows[first_of[np.argmax(bad)]]))]
            lists_docs, counts, ok = decode_delta_varint_many(self._blob, starts_a, ends_a, n_docs)
            bad = (counts != df[~single][first_of]) | ~ok
            if bad.any():
                return [self._postings_of(int(multi_rows[first_of[np.argmax(bad)]]))]
            for i, u in zip(where[~single].tolist(), inverse.tolist()):
                out[i] = lists_docs[u]
            return out
        starts = np.asarray(self._offsets[lists], dtype=np.int64).tolist()
        ends = np.asarray(self._offsets[lists + 1], dtype=np.int64).tolist()
        # A memoryview of the (mmapped) bytes: slicing it makes no numpy.memmap
        # object per key (that alone was a third of this loop).
        blob = memoryview(np.asarray(self._blob).view(np.uint8).reshape(-1))
        for i, r, d, a, b in zip(where[~single].tolist(), rows[~single].tolist(), df[~single].tolist(), starts, ends):
            try:
                docs = np.frombuffer(BitMap.deserialize(blob[a:b]).to_array(), dtype=np.uint32)
            except Exception:  # damaged bytes: the checked path names the row (E063)
                return [self._postings_of(r)]
            if len(docs) != d or (d and int(docs[-1]) >= n_docs):
                return [self._postings_of(r)]
            out[i] = docs.astype(np.int64)
        return out

    def _list_numbers(self, rows: np.ndarray, refs: np.ndarray) -> np.ndarray:
        """Posting list numbers (int64) of df >= 2 rows: `ref` in the full layout, by rank in the pruned one."""
        if self._rank is None:
            return np.asarray(refs, dtype=np.int64)
        from .writer import multi_rows

        return multi_rows(self._df, self._rank, rows)

    def _postings_of(self, row: int) -> BitMap:
        if row < 0:
            return BitMap()
        if self._df[row] == 1:
            doc = int(self._ref[row])
            if doc >= len(self.doc_ids):
                raise LinkguardError(Errors.E063.format(
                    path=self.path / fmt.REF, detail=f"row {row} names document {doc} of {len(self.doc_ids)}"))
            return BitMap([doc])
        j = int(self._list_numbers(np.asarray([row]), np.asarray([self._ref[row]]))[0])
        if j + 1 >= len(self._offsets):
            raise LinkguardError(Errors.E063.format(
                path=self.path / fmt.REF, detail=f"row {row} names posting list {j} of {len(self._offsets) - 1}"))
        a, b = int(self._offsets[j]), int(self._offsets[j + 1])
        if self._varint:  # pruned layout: one delta-varint list
            from .postings_codec import decode_delta_varint

            docs = decode_delta_varint(self._blob[a:b]) if a <= b <= len(self._blob) else np.zeros(0, np.int64)
            if len(docs) != int(self._df[row]) or int(docs[-1]) >= len(self.doc_ids) or np.any(np.diff(docs) < 1) \
                    or (b > a and int(self._blob[b - 1]) >= 0x80):
                raise LinkguardError(Errors.E063.format(
                    path=self.path / fmt.POSTINGS, detail=f"the posting list of row {row} disagrees with df.npy or names no document"))
            return BitMap(docs.tolist())
        data = self._blob[a:b].tobytes()
        try:
            bm = BitMap.deserialize(data)
        except Exception as e:  # pyroaring validates the bytes and raises on damage
            raise LinkguardError(Errors.E063.format(
                path=self.path / fmt.POSTINGS, detail=f"the posting list of row {row} is unreadable ({e})")) from None
        if len(bm) != int(self._df[row]) or bm.max() >= len(self.doc_ids):
            raise LinkguardError(Errors.E063.format(
                path=self.path / fmt.POSTINGS, detail=f"the posting list of row {row} disagrees with df.npy or names no document"))
        return bm

    # ---- whole-index views ----------------------------------------------
    def stats(self) -> Dict[str, Any]:
        """Counts, sizes and the posting-list length histogram per N (Figure 2)."""
        from .stats import index_stats

        return index_stats(self)

    def _token_words(self) -> List[str]:
        """Pruned layout: the key of each token rank 1.. (rank r at index r - 1)."""
        restore = self._trie.restore_key
        return [restore(int(k)) for k in np.asarray(self._token_keys[1:]).tolist()]

    def as_source(self) -> Source:
        """The rows of this index in key-id order (for merging a full-layout index)."""
        trie = self._trie
        return Source(keys=lambda: (trie.restore_key(i) for i in range(len(trie))), df=self._df,
                      ref=self._ref, ngram_n=self._n, offsets=self._offsets, blob=self._blob,
                      contains=trie.__contains__)
