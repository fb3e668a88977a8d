"""A sharded index: rows split by a stable hash of the key, documents kept once.

A sharded index is a folder:

| entry | content |
|---|---|
| `manifest.json` | format, settings, number of shards and hash, totals, each part's checksum, its own checksum |
| `stats.json` | the df histogram of the whole collection (Figure 2) |
| `shard-00000/` ... | one index folder per shard (layout "shard"): the pruned layout's rows whose key has `shard_of(key, P) == i` |
| `documents/` | one index folder (layout "documents"): doc_ids.json, the documents' token ranks, and `words.marisa` (the unigram keys) |

Document numbers are global: every shard names documents by their number in
the whole collection. A key's shard is `crc32(key as UTF-8) mod P`, the same
on every machine and Python version. A lookup goes to its key's shard; a key
that is in no shard is answered from the documents (pruned_lookup.py), whose
sub-N-gram probes go to their own shards.
"""
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, List

import numpy as np

from . import format as fmt
from .writer import Source, copy_ranges, df_histogram, new_array

SHARD_HASH = "crc32-utf8-mod-n"
SHARDED_FORMAT = "spacy-linkguard sharded N-gram index"
DOCS_DIR = "documents"


def shard_dir(i: int) -> str:
    return f"shard-{i:05d}"


def shard_of(key: str, n_shards: int) -> int:
    """The shard of a key: CRC-32 of its UTF-8 bytes, modulo the number of shards."""
    return zlib.crc32(key.encode("utf-8")) % n_shards


def shard_ids(keys: Iterable[str], n_shards: int, count: int = -1) -> np.ndarray:
    """`shard_of` of many keys (int64 array)."""
    crc = zlib.crc32
    return np.fromiter((crc(k.encode("utf-8")) for k in keys), dtype=np.int64, count=count) % n_shards


def split_source(src: Source, n_shards: int, workdir: Path) -> List[Source]:
    """The rows of `src` split by the shard of their key, each shard a Source of
    its own (rows in `src` order, postings copied), in one pass over the keys."""
    from .runs import iter_lines

    workdir.mkdir(parents=True, exist_ok=True)
    paths = [workdir / f"keys{i:05d}.txt" for i in range(n_shards)]
    files = [open(p, "w", encoding="utf-8") for p in paths]
    crc = zlib.crc32
    try:
        shard = np.empty(len(src), dtype=np.int64)
        for row, k in enumerate(src.keys()):
            i = crc(k.encode("utf-8")) % n_shards
            shard[row] = i
            files[i].write(k + "\n")
    finally:
        for f in files:
            f.close()
    out = []
    for i in range(n_shards):
        rows = np.flatnonzero(shard == i)
        df = np.asarray(src.df[rows])
        ref = np.asarray(src.ref[rows]).astype(np.uint32)
        multi = np.flatnonzero(df >= 2)
        j_src = ref[multi].astype(np.int64)
        starts = np.asarray(src.offsets[j_src], dtype=np.int64)
        lens = np.asarray(src.offsets[j_src + 1], dtype=np.int64) - starts
        offsets = np.zeros(len(multi) + 1, dtype=np.uint64)
        np.cumsum(lens, out=offsets[1:])
        blob = new_array(workdir / f"blob{i:05d}.npy", dtype=np.uint8, shape=(int(offsets[-1]),))
        if len(multi):
            copy_ranges(blob, offsets[:-1].astype(np.int64), src.blob, starts, lens)
        ref[multi] = np.arange(len(multi), dtype=np.uint32)
        out.append(Source(keys=lambda p=paths[i]: iter_lines(p), df=df, ref=ref,
                          ngram_n=np.asarray(src.ngram_n[rows]), offsets=offsets, blob=blob))
    return out


def total_histogram(source: Source, pruned_by_n: Dict[int, int], max_n: int) -> Dict[int, List[List[int]]]:
    """The df histogram of all N-grams: the rows' and the pruned ones (df 1)."""
    hist = df_histogram(np.asarray(source.df), np.asarray(source.ngram_n), max_n)
    for n, count in pruned_by_n.items():
        if count:
            pairs = dict(map(tuple, hist.get(n, [])))
            pairs[1] = pairs.get(1, 0) + count
            hist[n] = [[k, c] for k, c in sorted(pairs.items())]
    return hist


def write_manifest(out: Path, settings: Dict[str, Any], n_shards: int, counts: Dict[str, int],
                   parts: Dict[str, str], hist: Dict[int, List[List[int]]]) -> Dict[str, Any]:
    """stats.json and manifest.json of a sharded index in `out` (parts: folder -> checksum)."""
    fmt.dump_json({"df_histogram": fmt.histogram_to_json(hist)}, out / fmt.STATS)
    files = fmt.file_table(out, (fmt.STATS,))
    manifest = {
        "format": SHARDED_FORMAT,
        "format_version": fmt.FORMAT_VERSION,
        "layout": "sharded",
        "shard_hash": SHARD_HASH,
        "n_shards": n_shards,
        "shards": [shard_dir(i) for i in range(n_shards)],
        "documents": DOCS_DIR,
        "settings": settings,
        "counts": counts,
        "parts": parts,
        "files": files,
    }
    manifest["checksum"] = manifest_checksum(manifest)
    manifest["meta_sha256"] = fmt.meta_checksum(manifest)
    fmt.dump_json(manifest, out / fmt.MANIFEST)
    return manifest


def manifest_checksum(manifest: Dict[str, Any]) -> str:
    """The content checksum of a sharded index: settings, shard count and hash, parts, stats."""
    import hashlib
    import json

    payload = json.dumps({"format_version": manifest["format_version"], "settings": manifest["settings"],
                          "n_shards": manifest["n_shards"], "shard_hash": manifest["shard_hash"],
                          "parts": manifest["parts"],
                          "files": {k: v["sha256"] for k, v in sorted(manifest["files"].items())}}, sort_keys=True)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()
