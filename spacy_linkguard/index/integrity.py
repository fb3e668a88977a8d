"""Integrity checks of an index directory: cheap ones on every load, all of them with verify.

A damaged index must give a coded error, never a crash or a wrong answer:
marisa-trie memory-maps `vocab.marisa` without validating it (flipped bytes can
segfault the process), and a zeroed `df.npy` of the right size makes every
phrase look frequent, i.e. every text look safe.

On every load (`NgramIndex.load`):
- meta.json: its schema, its own checksum (`meta_sha256`, covering settings,
  counts and file sums) and the content checksum recomputed from the settings
  and file sums, so an edited setting (max_n 8 -> 4) is refused (E060/E069);
- every file: present (E062) and of the recorded size (E063);
- CRC-32 of the whole of `vocab.marisa` and of the small JSON files, always;
  of the arrays as long as they add up to at most QUICK_BYTES (E070). On the
  ECHR index (39 MB) that is every byte, in about 11 ms (measured: README);
- the arrays' dtypes and lengths, and the values of SAMPLE_ROWS evenly spread
  rows (df in 1..n_docs, N in 1..max_n, ref in range, offsets increasing),
  which catches zeroed or overwritten arrays beyond the CRC budget (E063).

With verify=True: SHA-256 of every file (E064) and the value checks on all rows.
"""
import re
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
from . import format as fmt

QUICK_BYTES = 64 * 2**20  # array bytes CRC-checked on every load (the trie always is)
SAMPLE_ROWS = 4096
ALWAYS_CRC = (fmt.VOCAB, fmt.DOC_IDS, fmt.STATS)  # the trie: a bad one can crash marisa
ARRAY_ORDER = (fmt.DF, fmt.NGRAM_N, fmt.REF, fmt.OFFSETS, fmt.POSTINGS)  # most valuable first
DTYPES = {fmt.DF: np.uint32, fmt.REF: np.uint32, fmt.NGRAM_N: np.uint8, fmt.OFFSETS: np.uint64,
          fmt.POSTINGS: np.uint8, fmt.TOKEN_KEYS: np.uint32, fmt.DOC_TOKENS: np.uint8, fmt.DOC_OFFSETS: np.uint64,
          fmt.MULTI_RANK: np.uint32}
FORMAT_NAME = "spacy-linkguard N-gram index"
HEX64 = re.compile(r"^[0-9a-f]{64}$")  # a SHA-256 in hex
_HEX8 = re.compile(r"^[0-9a-f]{8}$")


def read_meta(path: Path) -> Dict[str, Any]:
    """Parse and check `path/meta.json` (schema and both checksums).

    RAISES: E059 (no meta.json), E060 (unreadable or incomplete), E061 (newer
        format), E072 (older format, other normalization: rebuild), E069 (edited: the checksums disagree with the fields).
    """
    meta_path = path / fmt.META
    if not meta_path.is_file():
        raise LinkguardError(Errors.E059.format(path=path))
    try:
        meta = _json(meta_path)
        if not isinstance(meta, dict):
            raise TypeError(f"expected a JSON object, got {type(meta).__name__}")
        version = meta["format_version"]
        if isinstance(version, bool) or not isinstance(version, int):
            raise TypeError(f"format_version must be an integer, got {version!r}")
    except (ValueError, KeyError, TypeError) as e:
        raise LinkguardError(Errors.E060.format(path=meta_path, detail=f"{type(e).__name__}: {e}")) from None
    if version > fmt.FORMAT_VERSION:
        raise LinkguardError(Errors.E061.format(path=path, version=version, supported=fmt.FORMAT_VERSION))
    if version < fmt.OLDEST_READABLE:
        settings = meta.get("settings")
        normalization = settings.get("normalization") if isinstance(settings, dict) else None
        raise LinkguardError(Errors.E072.format(
            path=path, version=version, supported=fmt.FORMAT_VERSION, normalization=normalization))
    try:
        _check_schema(meta)
        NgramSettings.from_dict(meta["settings"])
    except LinkguardError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise LinkguardError(Errors.E060.format(path=meta_path, detail=f"{type(e).__name__}: {e}")) from None
    if "meta_sha256" in meta and fmt.meta_checksum(meta) != meta["meta_sha256"]:
        raise LinkguardError(Errors.E069.format(path=meta_path, which="meta_sha256"))
    expected = fmt.content_checksum(meta["settings"], meta["files"], version=version)
    if expected != meta["checksum"]:
        raise LinkguardError(Errors.E069.format(path=meta_path, which="checksum"))
    return meta


def _json(path: Path) -> Any:
    import json

    return json.loads(path.read_text(encoding="utf-8"))


def _check_schema(meta: Dict[str, Any]) -> None:
    if meta.get("format") != FORMAT_NAME:
        raise ValueError(f"'format' is {meta.get('format')!r}, not {FORMAT_NAME!r}")
    if not isinstance(meta.get("settings"), dict):
        raise TypeError("'settings' must be an object")
    layouts = (fmt.FULL, fmt.PRUNED, fmt.SHARD, fmt.DOCUMENTS)
    if meta["format_version"] >= 3 and meta.get("layout") not in layouts:
        raise ValueError(f"'layout' is {meta.get('layout')!r}, not one of {', '.join(map(repr, layouts))}")
    if meta["format_version"] < 3 and "layout" in meta:
        raise ValueError("a version 2 index has no 'layout'")
    files, counts = meta["files"], meta["counts"]
    if not isinstance(files, dict) or not isinstance(counts, dict):
        raise TypeError("'files' and 'counts' must be objects")
    for name in fmt.data_files(fmt.layout_of(meta)):
        info = files.get(name)
        if not isinstance(info, dict):
            raise KeyError(f"'files' has no entry for {name}")
        size, sha, crc = info.get("bytes"), info.get("sha256"), info.get("crc32", "00000000")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise TypeError(f"files[{name!r}].bytes must be a byte count, got {size!r}")
        if not (isinstance(sha, str) and HEX64.match(sha)) or not (isinstance(crc, str) and _HEX8.match(crc)):
            raise TypeError(f"files[{name!r}] has a malformed sha256 or crc32")
    for key in ("n_docs", "n_ngrams", "n_multi") + (("n_rows",) if meta["format_version"] >= 3 else ()):
        value = counts.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"counts.{key} must be a non-negative integer, got {value!r}")
    if not isinstance(meta.get("checksum"), str):
        raise TypeError("'checksum' must be a string")


def check_files(path: Path, meta: Dict[str, Any], *, verify: bool = False) -> None:
    """Presence, sizes and checksums of the data files (see the module docstring).

    RAISES: E062 (missing), E063 (wrong size), E070 (CRC-32), E064 (SHA-256, verify).
    """
    files = meta["files"]
    names = fmt.data_files(fmt.layout_of(meta))
    for name in names:
        fp = path / name
        if not fp.is_file():
            raise LinkguardError(Errors.E062.format(path=path, name=name))
        size = fp.stat().st_size
        if size != files[name]["bytes"]:
            raise LinkguardError(Errors.E063.format(path=fp, detail=f"{size} bytes, meta.json says {files[name]['bytes']}"))
    if verify:
        for name in names:
            if fmt.sha256_file(path / name) != files[name]["sha256"]:
                raise LinkguardError(Errors.E064.format(path=path / name))
        return
    budget = QUICK_BYTES
    quick: List[str] = [n for n in ALWAYS_CRC + (fmt.WORDS,) if n in names]
    extra = [n for n in (fmt.MULTI_RANK, fmt.TOKEN_KEYS, fmt.DOC_OFFSETS, fmt.DOC_TOKENS) if n in names]
    for name in [n for n in ARRAY_ORDER if n in names] + extra:
        if files[name]["bytes"] <= budget:
            quick.append(name)
            budget -= files[name]["bytes"]
    for name in quick:
        crc = files[name].get("crc32")
        if crc is not None:
            ok = fmt.crc32_file(path / name) == crc
        elif name in ALWAYS_CRC + (fmt.WORDS,):  # an index built before CRC-32 sums: the slower SHA-256
            ok = fmt.sha256_file(path / name) == files[name]["sha256"]
        else:
            continue
        if not ok:
            raise LinkguardError(Errors.E070.format(path=path / name))


def check_arrays(path: Path, meta: Dict[str, Any], arrays: Dict[str, np.ndarray], n_trie: int,
                 doc_ids: Any, *, full: bool = False) -> None:
    """Dtypes, lengths, and the values of sampled rows (all rows when `full`).

    RAISES: E063 naming the first file that is inconsistent.
    """
    counts = meta["counts"]
    n_docs, n_keys, n_multi = counts["n_docs"], counts.get("n_rows", counts["n_ngrams"]), counts["n_multi"]
    max_n = int(meta["settings"]["max_n"])
    by_file = {fmt.DF: arrays["df"], fmt.REF: arrays["ref"], fmt.OFFSETS: arrays["offsets"],
               fmt.POSTINGS: arrays["postings"]}
    layout = fmt.layout_of(meta)
    if layout == fmt.FULL:
        by_file[fmt.NGRAM_N] = arrays["ngram_n"]
    elif layout == fmt.PRUNED:
        by_file.update({fmt.TOKEN_KEYS: arrays["token_keys"], fmt.DOC_TOKENS: arrays["doc_tokens"],
                        fmt.DOC_OFFSETS: arrays["doc_offsets"]})
    pruned = layout in (fmt.PRUNED, fmt.SHARD)  # narrow arrays, no ngram_n.npy
    for name, arr in by_file.items():
        if pruned and arr.ndim == 1 and (name, arr.dtype) in ((fmt.OFFSETS, np.uint32), (fmt.DF, np.uint16),
                                                              (fmt.REF, np.uint16)):
            continue  # the pruned layout's narrow arrays (format.py)
        if arr.dtype != DTYPES[name] or arr.ndim != 1:
            _bad(path / name, f"dtype {arr.dtype}, {arr.ndim} dimension(s); expected a 1-d {np.dtype(DTYPES[name])} array")
    if not (isinstance(doc_ids, list) and len(doc_ids) == n_docs and all(isinstance(d, str) for d in doc_ids)):
        _bad(path / fmt.DOC_IDS, f"expected a list of {n_docs} string ids")
    if n_trie != n_keys:
        _bad(path / fmt.VOCAB, f"{n_trie} keys, meta.json says {n_keys}")
    for name in (fmt.DF, fmt.REF, fmt.NGRAM_N):
        if name in by_file and len(by_file[name]) != n_keys:
            _bad(path / name, f"{len(by_file[name])} rows, meta.json says {n_keys} N-grams")
    offsets, blob = arrays["offsets"], arrays["postings"]
    if len(offsets) != n_multi + 1:
        _bad(path / fmt.OFFSETS, f"{len(offsets)} rows, expected {n_multi + 1}")
    if int(offsets[0]) != 0 or int(offsets[-1]) != len(blob):
        _bad(path / fmt.OFFSETS, f"it must run from 0 to {len(blob)} (the size of {fmt.POSTINGS})")
    rows = _rows(n_keys, full)
    df = np.asarray(arrays["df"][rows], dtype=np.int64)
    if len(df) and (df.min() < 1 or df.max() > n_docs):
        _bad(path / fmt.DF, f"document frequencies must be 1..{n_docs}, found {df.min()}..{df.max()}")
    n = np.asarray(arrays["ngram_n"][rows], dtype=np.int64) if not pruned else np.ones(0, dtype=np.int64)
    if len(n) and (n.min() < 1 or n.max() > max_n):
        _bad(path / fmt.NGRAM_N, f"N-gram lengths must be 1..{max_n}, found {n.min()}..{n.max()}")
    ref = np.asarray(arrays["ref"][rows], dtype=np.int64)
    if np.any(ref[df == 1] >= n_docs) or (not pruned and np.any(ref[df >= 2] >= n_multi)):
        _bad(path / fmt.REF, "a reference points past the documents or the posting lists")
    if pruned:
        _check_rank(path, arrays, n_keys, n_multi, full)
    if full:
        o_rows = np.arange(len(offsets))
        if np.count_nonzero(df >= 2) != n_multi:
            _bad(path / fmt.DF, f"{np.count_nonzero(df >= 2)} N-grams with df >= 2, meta.json says {n_multi}")
    else:
        o_rows = _rows(len(offsets), False)
    if np.any(np.diff(np.asarray(offsets[o_rows], dtype=np.int64)) < 0):
        _bad(path / fmt.OFFSETS, "the offsets decrease")
    if layout == fmt.PRUNED:
        _check_tokens(path, arrays, n_docs, n_keys, full)


def _check_rank(path: Path, arrays: Dict[str, np.ndarray], n_keys: int, n_multi: int, full: bool) -> None:
    """multi_rank.npy: one count per block of rows, non-decreasing, at most n_multi (all of it with `full`)."""
    from .writer import RANK_BLOCK

    rank = arrays["multi_rank"]
    if rank.dtype != np.uint32 or rank.ndim != 1 or len(rank) != (n_keys + RANK_BLOCK - 1) // RANK_BLOCK:
        _bad(path / fmt.MULTI_RANK, f"expected {(n_keys + RANK_BLOCK - 1) // RANK_BLOCK} uint32 counts")
    sample = np.asarray(rank[_rows(len(rank), full)], dtype=np.int64)
    if len(sample) and (np.any(np.diff(sample) < 0) or sample[-1] > n_multi or sample[0] != 0):
        _bad(path / fmt.MULTI_RANK, "the counts must start at 0, never decrease and stay within the posting lists")
    if full and n_keys:
        multi = (np.asarray(arrays["df"]) >= 2).astype(np.int64)
        expect = np.concatenate([[0], np.cumsum(multi)])[::RANK_BLOCK][: len(rank)]
        if not np.array_equal(expect, np.asarray(rank, dtype=np.int64)):
            _bad(path / fmt.MULTI_RANK, "the counts disagree with df.npy")


def check_documents(path: Path, meta: Dict[str, Any], arrays: Dict[str, np.ndarray], n_words: int,
                    doc_ids: Any, *, full: bool = False) -> None:
    """The documents part of a sharded index: ids, token files, words trie size.

    RAISES: E063 naming the first file that is inconsistent.
    """
    n_docs = meta["counts"]["n_docs"]
    for name, key in ((fmt.TOKEN_KEYS, "token_keys"), (fmt.DOC_TOKENS, "doc_tokens"), (fmt.DOC_OFFSETS, "doc_offsets")):
        if arrays[key].dtype != DTYPES[name] or arrays[key].ndim != 1:
            _bad(path / name, f"dtype {arrays[key].dtype}; expected a 1-d {np.dtype(DTYPES[name])} array")
    if not (isinstance(doc_ids, list) and len(doc_ids) == n_docs and all(isinstance(d, str) for d in doc_ids)):
        _bad(path / fmt.DOC_IDS, f"expected a list of {n_docs} string ids")
    if n_words != len(arrays["token_keys"]) - 1:
        _bad(path / fmt.WORDS, f"{n_words} words for {len(arrays['token_keys']) - 1} tokens")
    _check_tokens(path, arrays, n_docs, n_words, full)


def _check_tokens(path: Path, arrays: Dict[str, np.ndarray], n_docs: int, n_keys: int, full: bool) -> None:
    """The pruned layout's token files: offsets per document, token keys in range."""
    from .doc_tokens import NO_KEY

    offsets, blob, keys = arrays["doc_offsets"], arrays["doc_tokens"], arrays["token_keys"]
    if len(offsets) != n_docs + 1 or int(offsets[0]) != 0 or int(offsets[-1]) != len(blob):
        _bad(path / fmt.DOC_OFFSETS, f"expected {n_docs + 1} offsets from 0 to {len(blob)} (the size of {fmt.DOC_TOKENS})")
    if np.any(np.diff(np.asarray(offsets[_rows(len(offsets), full)], dtype=np.int64)) < 0):
        _bad(path / fmt.DOC_OFFSETS, "the offsets decrease")
    if len(blob) and int(blob[-1]) >= 0x80:
        _bad(path / fmt.DOC_TOKENS, "the last token is cut off")
    if not len(keys) or int(keys[0]) != NO_KEY:
        _bad(path / fmt.TOKEN_KEYS, "rank 0 (segment end) must have no key")
    sample = np.asarray(keys[1:][_rows(len(keys) - 1, full)], dtype=np.int64)
    if len(sample) and sample.max() >= n_keys:
        _bad(path / fmt.TOKEN_KEYS, f"a token names key {sample.max()} of {n_keys}")
    if full:
        from .doc_tokens import decode_varints

        ranks = decode_varints(blob)
        if len(ranks) and ranks.max() >= len(keys):
            _bad(path / fmt.DOC_TOKENS, f"a token has rank {ranks.max()}, past the {len(keys) - 1} tokens")


def _rows(n: int, full: bool) -> np.ndarray:
    if full or n <= SAMPLE_ROWS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, SAMPLE_ROWS).astype(np.int64))


def _bad(path: Path, detail: str) -> None:
    raise LinkguardError(Errors.E063.format(path=path, detail=detail))
