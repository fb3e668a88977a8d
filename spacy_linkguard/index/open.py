"""`open_index`: the one way the package opens an index, cached per process.

Commands and components call `open_index(path)` instead of `NgramIndex.load`:
an index is memory-mapped once per process and shared by every component and
command that names it. The cache key is the resolved folder and a stamp of its
meta.json (manifest.json for a sharded index) -- inode, modification time and
size -- so an index rebuilt or extended in place (both replace the folder) is
opened again instead of being served stale.
"""
import os
import threading
from pathlib import Path
from typing import Dict, Optional, Tuple, Union

from ..errors import Errors, LinkguardError
from . import format as fmt
from .ngram_index import NgramIndex
from .sharded_index import ShardedIndex

Index = Union[NgramIndex, ShardedIndex]
Stamp = Tuple[str, int, int, int]

# resolved folder -> (stamp, index, verified); one entry per folder, so a
# rebuilt index replaces its stale entry instead of piling up beside it.
_CACHE: Dict[str, Tuple[Stamp, Index, bool]] = {}
_LOCK = threading.Lock()


def open_index(path: Union[str, Path], *, verify: bool = False) -> Index:
    """Open the index at `path` (an `NgramIndex`, or a `ShardedIndex` for a
    sharded folder), once per process and index version.

    path (Union[str, Path]): The index folder.
    verify (bool): Also check every file's SHA-256 and every row (once per
        process and index version; the cheap checks of `NgramIndex.load` run
        on every first open anyway).
    RETURNS (Union[NgramIndex, ShardedIndex]): The open index, shared: do not
        change it (`add_documents` writes a new folder and returns a new object).
    RAISES: The coded errors of `NgramIndex.load` (E059 when there is no index
        at `path`, E060-E076 for a damaged one); E111 when the files cannot be
        read for another reason.
    """
    folder = Path(path).resolve()
    key = str(folder)
    with _LOCK:
        stamp = _stamp(folder)
        cached = _CACHE.get(key)
        if cached is not None and stamp is not None and cached[0] == stamp and (cached[2] or not verify):
            return cached[1]
        index = _load(folder, verify)
        if stamp is not None:
            _CACHE[key] = (stamp, index, verify)
        return index


def clear_index_cache() -> None:
    """Forget every open index (they stay usable; the next `open_index` reads again)."""
    with _LOCK:
        _CACHE.clear()


def _stamp(folder: Path) -> Optional[Stamp]:
    """What changes when the index in `folder` is rebuilt; None when there is none
    (`NgramIndex.load` then raises its coded error)."""
    for name in (fmt.META, fmt.MANIFEST):
        try:
            st = (folder / name).stat()
        except OSError:
            continue
        return (name, st.st_ino, st.st_mtime_ns, st.st_size)
    return None


def _load(folder: Path, verify: bool) -> Index:
    try:
        return NgramIndex.load(folder, verify=verify)
    except LinkguardError:
        raise
    except (OSError, ValueError, KeyError) as e:
        raise LinkguardError(Errors.E111.format(path=folder, detail=f"{type(e).__name__}: {e}")) from None


def _new_lock_after_fork() -> None:
    # A child forked while another thread held the lock would wait forever.
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)
