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
import json
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, List

import numpy as np

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
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


def read_manifest(path: Path) -> Dict[str, Any]:
    """Parse and check `path/manifest.json` (schema, both checksums, stats.json).

    RAISES: E059 (none), E060 (unreadable), E061 (newer format), E069 (edited), E070/E063 (stats.json).
    """
    from .integrity import HEX64

    mpath = path / fmt.MANIFEST
    if not mpath.is_file():
        raise LinkguardError(Errors.E059.format(path=path))
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
        if not isinstance(m, dict) or m.get("format") != SHARDED_FORMAT:
            raise ValueError(f"'format' is not {SHARDED_FORMAT!r}")
        if isinstance(m["format_version"], bool) or not isinstance(m["format_version"], int):
            raise TypeError("format_version must be an integer")
        if m["format_version"] > fmt.FORMAT_VERSION:
            raise LinkguardError(Errors.E061.format(path=path, version=m["format_version"], supported=fmt.FORMAT_VERSION))
        n = m["n_shards"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1 or m["shard_hash"] != SHARD_HASH:
            raise ValueError(f"n_shards {n!r} / shard_hash {m['shard_hash']!r}")
        if len(m["shards"]) != n or any(not isinstance(d, str) or "/" in d or d.startswith(".") for d in m["shards"]):
            raise ValueError("'shards' must name n_shards folders")
        if not isinstance(m["parts"], dict) or set(m["parts"]) != {*m["shards"], m["documents"]}:
            raise ValueError("'parts' must give the checksum of every shard and of the documents")
        NgramSettings.from_dict(m["settings"])
        info = m["files"][fmt.STATS]
        if not (isinstance(info, dict) and isinstance(info.get("sha256"), str) and HEX64.match(info["sha256"])):
            raise TypeError("files['stats.json'] is malformed")
    except LinkguardError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise LinkguardError(Errors.E060.format(path=mpath, detail=f"{type(e).__name__}: {e}")) from None
    if fmt.meta_checksum(m) != m.get("meta_sha256"):
        raise LinkguardError(Errors.E069.format(path=mpath, which="meta_sha256"))
    if manifest_checksum(m) != m.get("checksum"):
        raise LinkguardError(Errors.E069.format(path=mpath, which="checksum"))
    stats = path / fmt.STATS
    if not stats.is_file():
        raise LinkguardError(Errors.E062.format(path=path, name=fmt.STATS))
    if stats.stat().st_size != info["bytes"] or fmt.crc32_file(stats) != info["crc32"]:
        raise LinkguardError(Errors.E070.format(path=stats))
    return m
