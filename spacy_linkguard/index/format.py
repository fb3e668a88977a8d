"""The on-disk format of an N-gram index: file names, meta.json, checksums.

An index is a directory:

| file | content |
|---|---|
| `meta.json` | format version, N-gram settings, counts, file sizes and SHA-256 sums, checksum |
| `doc_ids.json` | JSON array: document number -> corpus id |
| `vocab.marisa` | marisa-trie of the N-gram keys; its key ids are the row numbers below |
| `df.npy` | uint32 per key: document frequency |
| `ref.npy` | uint32 per key: the document number when df == 1, else the row in `postings_offsets.npy` |
| `ngram_n.npy` | uint8 per key: number of tokens of the N-gram |
| `postings_offsets.npy` | uint64, one more than the keys with df >= 2 (ordered by key id) |
| `postings.npy` | uint8: serialized (run-optimized) Roaring bitmaps of the keys with df >= 2 |
| `stats.json` | per N: how many keys have each posting-list length (Figure 2) |

Every array is a plain `.npy` file, memory-mapped on load. Nothing in the
files depends on the order the documents' N-grams were met in, so the same
corpus always gives the same bytes, and adding documents gives the bytes of a
full rebuild.
"""
import hashlib
import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Union

# 2: keys of normalized text (NFKC, format characters dropped, whitespace
# folded; `spacy_linkguard.ngrams.normalize`). Version 1 indexes are refused.
FORMAT_VERSION = 2
META = "meta.json"
DOC_IDS = "doc_ids.json"
VOCAB = "vocab.marisa"
DF = "df.npy"
REF = "ref.npy"
NGRAM_N = "ngram_n.npy"
OFFSETS = "postings_offsets.npy"
POSTINGS = "postings.npy"
STATS = "stats.json"
# Every file listed in meta.json's "files" (meta.json itself is not).
DATA_FILES = (DOC_IDS, VOCAB, DF, REF, NGRAM_N, OFFSETS, POSTINGS, STATS)


def sha256_file(path: Union[str, Path], block: int = 1 << 22) -> str:
    """Hex SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(block), b""):
            h.update(chunk)
    return h.hexdigest()


def file_table(directory: Path, names: Iterable[str] = DATA_FILES) -> Dict[str, Dict[str, Any]]:
    """{name: {"bytes", "sha256"}} for the data files of an index directory."""
    return {
        name: {"bytes": (directory / name).stat().st_size, "sha256": sha256_file(directory / name)}
        for name in names
    }


def content_checksum(settings: Dict[str, Any], files: Dict[str, Dict[str, Any]]) -> str:
    """The index checksum: SHA-256 over the format version, settings and file sums.

    It identifies the content (documents, ids, settings): two indexes with the
    same checksum answer every query the same way.
    """
    payload = json.dumps(
        {"format_version": FORMAT_VERSION, "settings": settings,
         "files": {k: v["sha256"] for k, v in sorted(files.items())}},
        sort_keys=True,
    )
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def dump_json(obj: Any, path: Path) -> None:
    """Write JSON deterministically (sorted keys, fixed separators, trailing newline)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=1) + "\n")


def histogram_to_json(hist: Dict[int, List[List[int]]]) -> Dict[str, List[List[int]]]:
    return {str(n): pairs for n, pairs in sorted(hist.items())}
