"""The on-disk format of an N-gram index: file names, meta.json, checksums.

An index is a directory:

| file | content |
|---|---|
| `meta.json` | format version, N-gram settings, counts, file sizes, SHA-256 and CRC-32 sums, checksums |
| `doc_ids.json` | JSON array: document number -> corpus id |
| `vocab.marisa` | marisa-trie of the N-gram keys; its key ids are the row numbers below |
| `df.npy` | uint32 per key: document frequency |
| `ref.npy` | uint32 per key: the document number when df == 1, else the row in `postings_offsets.npy` |
| `ngram_n.npy` | uint8 per key: number of tokens of the N-gram |
| `postings_offsets.npy` | uint64, one more than the keys with df >= 2 (ordered by key id) |
| `postings.npy` | uint8: serialized (run-optimized) Roaring bitmaps of the keys with df >= 2 |
| `stats.json` | per N: how many keys have each posting-list length (Figure 2) |

The *pruned* layout (the default since format version 3; `layout` in
meta.json) keeps in these files only the unigrams and the N-grams whose two
(n-1)-token sub-N-grams both have df >= 2 (the only N-grams a detector with
k >= 2 ever needs a posting list of), and adds each document's text as token
ids, so that every other N-gram is answered exactly (spacy_linkguard/index/pruned.py):

| file | content |
|---|---|
| `token_keys.npy` | uint32: token rank -> key id of that unigram in `vocab.marisa`; rank 0 (segment break) is 2**32-1 |
| `doc_tokens.npy` | uint8: every document's token ranks (ranked by df, most frequent first), LEB128 varints, 0 ends a segment |
| `doc_offsets.npy` | uint64, n_docs + 1 byte offsets into `doc_tokens.npy` |

In the pruned layout `postings.npy` holds delta-varint lists instead of Roaring
bitmaps (spacy_linkguard/index/postings_codec.py), `postings_offsets.npy` is
uint32 while the postings are under 4 GiB, `df.npy` is uint16 while every df
is under 65,536, there is no `ngram_n.npy` (a key's N is its spaces + 1), and
`ref.npy` holds only the document of each df-1 row (uint16 while documents
are under 65,536; 0 for df >= 2): a df >= 2 row's posting list number is the
count of df >= 2 rows before it, read from `multi_rank.npy` (uint32, that
count at every 32nd row) plus the rows of its block in `df.npy`. `counts.n_rows` is the number of keys in the files and
`counts.n_ngrams` the number of distinct N-grams of the collection (kept and
pruned); the histogram in `stats.json` counts all of them. The *full* layout
(`--full`, and every version 2 index, which still loads) stores every N-gram.

A *sharded* index (`build-index --shards P`) is a folder of such parts: see
spacy_linkguard/index/shards.py (layouts "shard" and "documents", manifest.json).

Every array is a plain `.npy` file, memory-mapped on load. Nothing in the
files depends on the order the documents' N-grams were met in, so the same
corpus always gives the same bytes, and adding documents gives the bytes of a
full rebuild.

meta.json carries two checksums: `checksum` identifies the content (settings
and file sums; saved pipelines remember it) and `meta_sha256` covers every
other field of meta.json, so an edited setting or count is caught on load
(spacy_linkguard/index/integrity.py).
"""
import hashlib
import json
import mmap
import os
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, List, Union

# 2: keys of normalized text (NFKC, format characters dropped, whitespace
# folded; `spacy_linkguard.ngrams.normalize`). Version 1 indexes are refused.
# 3: a `layout` ("full" or "pruned") and `counts.n_rows`; the pruned layout's
# token files. Version 2 indexes (always full) still load.
FORMAT_VERSION = 3
OLDEST_READABLE = 2
FULL, PRUNED = "full", "pruned"
# Parts of a sharded index (spacy_linkguard/index/shards.py): a folder with
# manifest.json, shard folders of rows, and one folder of the documents' tokens.
SHARD, DOCUMENTS = "shard", "documents"
MANIFEST = "manifest.json"
WORDS = "words.marisa"
META = "meta.json"
DOC_IDS = "doc_ids.json"
VOCAB = "vocab.marisa"
DF = "df.npy"
REF = "ref.npy"
NGRAM_N = "ngram_n.npy"
OFFSETS = "postings_offsets.npy"
POSTINGS = "postings.npy"
STATS = "stats.json"
MULTI_RANK = "multi_rank.npy"
TOKEN_KEYS = "token_keys.npy"
DOC_TOKENS = "doc_tokens.npy"
DOC_OFFSETS = "doc_offsets.npy"
# Every file listed in meta.json's "files" (meta.json itself is not).
DATA_FILES = (DOC_IDS, VOCAB, DF, REF, NGRAM_N, OFFSETS, POSTINGS, STATS)
PRUNED_FILES = tuple(f for f in DATA_FILES if f != NGRAM_N) + (MULTI_RANK, TOKEN_KEYS, DOC_TOKENS, DOC_OFFSETS)
ALL_FILES = DATA_FILES + (MULTI_RANK, TOKEN_KEYS, DOC_TOKENS, DOC_OFFSETS)


def layout_of(meta: Dict[str, Any]) -> str:
    """The layout of an index from its meta.json ("full" for version 2)."""
    return meta.get("layout", FULL)


SHARD_FILES = (DOC_IDS, VOCAB, DF, REF, OFFSETS, POSTINGS, STATS, MULTI_RANK)
DOCUMENT_FILES = (DOC_IDS, WORDS, TOKEN_KEYS, DOC_TOKENS, DOC_OFFSETS)


def data_files(layout: str) -> tuple:
    """The files of an index (or index part) of this layout (besides meta.json)."""
    return {PRUNED: PRUNED_FILES, SHARD: SHARD_FILES, DOCUMENTS: DOCUMENT_FILES}.get(layout, DATA_FILES)


def sha256_file(path: Union[str, Path], block: int = 1 << 22) -> str:
    """Hex SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(block), b""):
            h.update(chunk)
    return h.hexdigest()


def crc32_file(path: Union[str, Path]) -> str:
    """CRC-32 of a file as 8 hex digits (memory-mapped: ~3.5 GB/s, 3x SHA-256's speed here).

    For the check on every load, which guards against damage, not forgery.
    """
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return "%08x" % zlib.crc32(b"")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return "%08x" % zlib.crc32(m)


def file_table(directory: Path, names: Iterable[str] = DATA_FILES) -> Dict[str, Dict[str, Any]]:
    """{name: {"bytes", "sha256", "crc32"}} for the data files of an index directory."""
    return {
        name: {"bytes": (directory / name).stat().st_size, "crc32": crc32_file(directory / name),
               "sha256": sha256_file(directory / name)}
        for name in names
    }


def content_checksum(settings: Dict[str, Any], files: Dict[str, Dict[str, Any]],
                     version: int = FORMAT_VERSION) -> str:
    """The index checksum: SHA-256 over the format version, settings and file sums.

    It identifies the content (documents, ids, settings): two indexes with the
    same checksum answer every query the same way. `version`: the index's
    format version (an older index's checksum is recomputed with its own).
    """
    payload = json.dumps(
        {"format_version": version, "settings": settings,
         "files": {k: v["sha256"] for k, v in sorted(files.items())}},
        sort_keys=True,
    )
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def meta_checksum(meta: Dict[str, Any]) -> str:
    """SHA-256 of meta.json's fields except `meta_sha256` itself (canonical JSON)."""
    body = {k: v for k, v in meta.items() if k != "meta_sha256"}
    payload = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def dump_json(obj: Any, path: Path) -> None:
    """Write JSON deterministically (sorted keys, fixed separators, trailing newline)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=1) + "\n")


def histogram_to_json(hist: Dict[int, List[List[int]]]) -> Dict[str, List[List[int]]]:
    return {str(n): pairs for n, pairs in sorted(hist.items())}
