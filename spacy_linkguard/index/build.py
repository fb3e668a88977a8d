"""Build an index, or add documents to one, atomically.

Everything is written into a temporary directory next to the target (same file
system, so the final rename is atomic); the target name only ever points at a
complete index. Any failure, a full disk included, removes the temporary
directory and leaves the target as it was.
"""
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

from ..corpus import Record
from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
from . import format as fmt
from .budget import check_pruned_budget, parse_memory_budget
from .lock import IndexLock
from .runs import build_rows
from .tokens import tokenize_records
from .writer import Source, write_rows

Records = Iterable[Union[Record, Dict[str, Any]]]


def build_index(records: Records, path: Union[str, Path], settings: NgramSettings, *,
                memory_budget: Union[str, int] = "4GB", progress: bool = True,
                n_process: Optional[int] = None, layout: str = fmt.PRUNED, shards: Optional[int] = None) -> Path:
    """Build an index of `records` at `path` (replacing an index already there).

    layout: "pruned" (default: frequent N-grams and the documents' tokens,
        spacy_linkguard/index/prune.py) or "full" (every N-gram's row).
    shards: write a sharded index of this many shards (pruned layout only;
        spacy_linkguard/index/shards.py) instead of one folder.
    RAISES: E050 (no document), E051-E054 (bad records), E055/E056 (budget),
        E057 (path is something else than an index), E058 (disk full / write error),
        E073 (unknown layout), E075 (bad number of shards).
    """
    _check_layout(layout, shards)
    budget = parse_memory_budget(memory_budget)
    path = Path(path)
    _check_target(path)
    total = (len(records) or None) if hasattr(records, "__len__") else None  # type: ignore[arg-type]
    with _locked(path), _staging(path) as tmp:
        _check_target(path)  # again under the lock
        work = tmp / "_work"
        work.mkdir()
        stream = tokenize_records(records, work / "tokens.u32", settings, progress=progress, total=total,
                                  n_process=n_process)
        if stream.n_docs == 0:
            raise LinkguardError(Errors.E050.format(skipped=stream.n_skipped_empty))
        extra = {"n_tokens": stream.n_tokens, "n_skipped_empty": stream.n_skipped_empty}
        if layout == fmt.PRUNED:
            check_pruned_budget(stream.n_tokens, budget)
        if shards:
            _write_sharded(stream, work, tmp, settings, progress, shards, extra)
            shutil.rmtree(work)
            return path
        if layout == fmt.PRUNED:
            counts = _write_pruned(stream, work, tmp, settings, progress)
        else:
            rows = build_rows(stream, work, max_n=settings.max_n, budget=budget, progress=progress)
            counts = write_rows([rows], tmp, max_n=settings.max_n, progress=progress)
            del rows
        shutil.rmtree(work)
        _finish(tmp, settings, stream.doc_ids, counts, extra, layout)
    return path


def _check_layout(layout: str, shards: Optional[int] = None) -> None:
    if layout not in (fmt.FULL, fmt.PRUNED):
        raise LinkguardError(Errors.E073.format(layout=repr(layout)))
    if shards is not None and (isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= 4096
                               or layout != fmt.PRUNED):
        raise LinkguardError(Errors.E075.format(shards=repr(shards), layout=layout))


def _write_sharded(stream, work: Path, tmp: Path, settings: NgramSettings, progress: bool, n_shards: int,
                   extra: Dict[str, int]) -> Dict[str, Any]:
    """A sharded index of `stream` into `tmp` (spacy_linkguard/index/shards.py)."""
    from .prune import build_pruned_rows

    rows = build_pruned_rows(stream, work, max_n=settings.max_n, progress=progress)
    return write_sharded_rows(rows, stream.vocab, stream.doc_ids, work, tmp, settings, n_shards, extra, progress)


def write_sharded_rows(rows, vocab: List[str], doc_ids: List[str], work: Path, tmp: Path, settings: NgramSettings,
                       n_shards: int, extra: Dict[str, int], progress: bool = False) -> Dict[str, Any]:
    """Shard folders, the documents folder and the manifest of pruned `rows` into `tmp`."""
    from .doc_tokens import write_token_files
    from .shards import DOCS_DIR, shard_dir, split_source, total_histogram, write_manifest

    parts: Dict[str, str] = {}
    totals = {"n_rows": 0, "n_multi": 0, "n_postings": 0}
    for i, src in enumerate(split_source(rows.source, n_shards, work / "split")):
        d = tmp / shard_dir(i)
        d.mkdir()
        counts = write_rows([src], d, max_n=settings.max_n, progress=progress, compact=True)
        parts[shard_dir(i)] = _finish(d, settings, doc_ids, counts, extra, fmt.SHARD)["checksum"]
        for k in totals:
            totals[k] += counts[k]
    d = tmp / DOCS_DIR
    d.mkdir()
    write_token_files(d, rows.rank_order, vocab, rows.doc_bytes, rows.doc_offsets, words=True)
    none = {"n_ngrams": 0, "n_rows": 0, "n_multi": 0, "n_pruned": 0, "n_postings": 0}
    parts[DOCS_DIR] = _finish(d, settings, doc_ids, none, extra, fmt.DOCUMENTS)["checksum"]
    n_pruned = sum(rows.pruned_by_n.values())
    counts = {"n_docs": len(doc_ids), "n_ngrams": totals["n_rows"] + n_pruned, "n_pruned": n_pruned,
              "n_rows": totals["n_rows"], "n_multi": totals["n_multi"],
              "n_postings": totals["n_postings"] + n_pruned, **extra}
    hist = total_histogram(rows.source, rows.pruned_by_n, settings.max_n)
    return write_manifest(tmp, settings.to_dict(), n_shards, counts, parts, hist)


def _write_pruned(stream, work: Path, tmp: Path, settings: NgramSettings, progress: bool) -> Dict[str, int]:
    """The pruned layout's files of `stream` into `tmp`; returns the counts."""
    from .doc_tokens import write_token_files
    from .prune import build_pruned_rows

    rows = build_pruned_rows(stream, work, max_n=settings.max_n, progress=progress)
    counts = write_rows([rows.source], tmp, max_n=settings.max_n, progress=progress,
                        pruned_by_n=rows.pruned_by_n, compact=True)
    write_token_files(tmp, rows.rank_order, stream.vocab, rows.doc_bytes, rows.doc_offsets)
    return counts


def add_to_index(index, records: Records, *, memory_budget: Union[str, int] = "4GB",
                 progress: bool = True, n_process: Optional[int] = None) -> Path:
    """Add `records` to the index loaded as `index`; the result equals a full rebuild.

    New documents get the numbers n_docs, n_docs + 1, ... in record order.
    RAISES: E052 (an id already in the index), E068 (another writer holds the
        index), E071 (the index changed on disk since `index` was loaded), and
        as `build_index`.
    """
    from .integrity import read_meta

    budget = parse_memory_budget(memory_budget)
    path = Path(index.path)
    settings = index.settings
    known = {doc_id: i for i, doc_id in enumerate(index.doc_ids)}
    total = (len(records) or None) if hasattr(records, "__len__") else None  # type: ignore[arg-type]
    with _locked(path), _staging(path) as tmp:
        if index.layout == "sharded":
            from .shards import read_manifest

            on_disk = read_manifest(path)["checksum"]
        else:
            on_disk = read_meta(path)["checksum"]
        if on_disk != index.checksum:
            raise LinkguardError(Errors.E071.format(path=path, found=on_disk, expected=index.checksum))
        work = tmp / "_work"
        work.mkdir()
        stream = tokenize_records(records, work / "tokens.u32", settings, known_ids=known,
                                  progress=progress, total=total, n_process=n_process)
        old_counts = index.meta.get("counts", {})
        extra = {"n_tokens": old_counts.get("n_tokens", 0) + stream.n_tokens,
                 "n_skipped_empty": old_counts.get("n_skipped_empty", 0) + stream.n_skipped_empty}
        doc_ids = list(index.doc_ids) + stream.doc_ids
        if index.layout in (fmt.PRUNED, "sharded"):
            # rebuilt from the stored tokens of the old documents and the new
            # ones: the bytes of a full rebuild, without tokenizing old text again
            from .doc_tokens import index_token_stream
            from .tokens import concat_streams

            old = index_token_stream(index, work / "old.u32")
            both = concat_streams(old, stream, work / "all.u32")
            check_pruned_budget(both.n_tokens, budget)
            if index.layout == fmt.PRUNED:
                counts = _write_pruned(both, work, tmp, settings, progress)
                _finish(tmp, settings, doc_ids, counts, extra, fmt.PRUNED)
            else:
                _write_sharded(both, work, tmp, settings, progress, index.n_shards, extra)
            del old, both
            shutil.rmtree(work)
            return path
        if stream.n_docs == 0:
            sources: List[Source] = [index.as_source()]
        else:
            rows = build_rows(stream, work, max_n=settings.max_n, budget=budget,
                              doc_offset=index.n_docs, progress=progress)
            sources = [index.as_source(), rows]
        counts = write_rows(sources, tmp, max_n=settings.max_n, progress=progress)
        del sources
        shutil.rmtree(work)
        _finish(tmp, settings, doc_ids, counts, extra, fmt.FULL)
    return path


def _finish(tmp: Path, settings: NgramSettings, doc_ids: List[str], counts: Dict[str, int],
            extra: Dict[str, int], layout: str) -> Dict[str, Any]:
    fmt.dump_json(doc_ids, tmp / fmt.DOC_IDS)
    files = fmt.file_table(tmp, fmt.data_files(layout))
    settings_d = settings.to_dict()
    meta = {
        "format": "spacy-linkguard N-gram index",
        "format_version": fmt.FORMAT_VERSION,
        "layout": layout,
        "settings": settings_d,
        "counts": {"n_docs": len(doc_ids), **counts, **extra},
        "files": files,
        "checksum": fmt.content_checksum(settings_d, files),
    }
    meta["meta_sha256"] = fmt.meta_checksum(meta)
    fmt.dump_json(meta, tmp / fmt.META)
    return meta


def _check_target(path: Path) -> None:
    """Refuse (E057) to replace anything but an empty folder or an index of ours.

    An index of ours has a meta.json naming our format and no file besides the
    index files: a spaCy model folder also has a meta.json, and must survive.
    """
    if not (path.exists() or path.is_symlink()):
        return
    why = None
    if path.is_symlink() or not path.is_dir():
        why = "not a directory"
    elif (path / fmt.MANIFEST).is_file():
        from .shards import SHARDED_FORMAT

        try:
            manifest = json.loads((path / fmt.MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = None
        if not isinstance(manifest, dict) or manifest.get("format") != SHARDED_FORMAT:
            why = "its manifest.json is not one of a sharded index"
        else:
            known = {fmt.MANIFEST, fmt.STATS, *manifest.get("shards", []), manifest.get("documents")}
            others = sorted(p.name for p in path.iterdir() if p.name not in known)
            if others:
                why = "it holds other files: " + ", ".join(others[:5])
    elif any(path.iterdir()):
        from .integrity import FORMAT_NAME

        meta = None
        try:
            meta = json.loads((path / fmt.META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        others = sorted(p.name for p in path.iterdir() if p.name not in (fmt.META, *fmt.ALL_FILES) or not p.is_file())
        if not (path / fmt.META).is_file():
            why = "no meta.json"
        elif not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            why = "its meta.json is not one of an index"
        elif others:
            why = "it holds other files: " + ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
    if why:
        raise LinkguardError(Errors.E057.format(path=path, why=why))


class _locked(IndexLock):
    """The index write lock; a failure to create it (e.g. no such parent) is E058."""

    def __enter__(self):
        try:
            return super().__enter__()
        except OSError as e:
            raise _os_error(e, self.path) from None


class _staging:
    """Context manager: a temp dir next to `path`, renamed onto `path` on success."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> Path:
        parent = self.path.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.building-", dir=parent))
            # mkdtemp makes it private (0700); give the index the usual permissions.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.tmp, 0o777 & ~umask)
        except OSError as e:
            raise _os_error(e, parent) from None
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            try:
                _replace_dir(self.tmp, self.path)
                return False
            except OSError as e:
                shutil.rmtree(self.tmp, ignore_errors=True)
                raise _os_error(e, self.path) from None
        # judge the disk before the cleanup frees it
        error = _os_error(exc, self.path) if isinstance(exc, OSError) else None
        shutil.rmtree(self.tmp, ignore_errors=True)
        if error is not None:
            raise error from None
        return False


def _replace_dir(tmp: Path, path: Path) -> None:
    """Move `tmp` onto `path`; an old index there is swapped out, then deleted."""
    if not path.exists():
        os.rename(tmp, path)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old-", dir=path.parent))
    os.rmdir(old)
    os.rename(path, old)
    try:
        os.rename(tmp, path)
    except OSError:
        os.rename(old, path)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _os_error(e: OSError, path: Path) -> LinkguardError:
    try:  # numpy reports a short write without an errno: look at the disk
        free = shutil.disk_usage(path.parent if path.parent.exists() else Path.cwd()).free
    except OSError:
        free = None
    if e.errno in (errno.ENOSPC, errno.EDQUOT) or (free is not None and free < 2**24):
        detail = "no space left on device" + (f", {free:,} bytes free" if free is not None else "")
        return LinkguardError(Errors.E058.format(path=path, detail=detail))
    return LinkguardError(Errors.E058.format(path=path, detail=f"{type(e).__name__}: {e}"))
