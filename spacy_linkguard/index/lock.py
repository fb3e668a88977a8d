"""One writer per index: an exclusive lock file next to the index directory.

The lock lives beside the index (`.NAME.lock` in its parent), not inside it,
because a build swaps the whole directory. `flock` locks die with their
process, so a killed writer never leaves a stale lock; the file is removed on
release, and a waiter re-checks that it locked the file still at that name.
While holding the lock, the temporary folders of killed writers
(`.NAME.building-*`, `.NAME.old-*`) are certainly stale and are removed.
"""
import os
import shutil
from pathlib import Path
from typing import Optional

from ..errors import Errors, LinkguardError

try:
    import fcntl
except ImportError:  # pragma: no cover -- not POSIX: no locking
    fcntl = None  # type: ignore[assignment]


def lock_path(path: Path) -> Path:
    return path.parent / f".{path.name}.lock"


class IndexLock:
    """Context manager: hold the write lock of the index at `path`, or raise E068 at once."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.lock = lock_path(self.path)
        self.fd: Optional[int] = None

    def __enter__(self) -> "IndexLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            return self
        while True:
            fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_holder(fd)
                os.close(fd)
                raise LinkguardError(Errors.E068.format(
                    path=self.path, lock=self.lock, holder=f" by process {holder}" if holder else "")) from None
            try:
                same = os.stat(self.lock).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the previous holder removed the file meanwhile: lock the new one
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        remove_stale_folders(self.path)
        return self

    def __exit__(self, *exc) -> bool:
        if self.fd is not None:
            try:
                os.unlink(self.lock)
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None
        return False


def remove_stale_folders(path: Path) -> None:
    """Remove the temporary folders that killed builds of `path` left (call with the lock held)."""
    for prefix in (f".{path.name}.building-", f".{path.name}.old-"):
        for stale in path.parent.glob(prefix + "*"):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)


def _read_holder(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
