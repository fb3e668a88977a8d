"""Output files of the commands: never the input, written whole or not at all.

`detect Q --out Q` used to truncate Q before reading it. Every command that
reads a corpus and writes a file refuses an output that is one of its inputs
(E012, also through links), and `atomic_output` writes into a temporary file
beside the target that replaces it only when the command succeeded, so an
error half-way leaves the old file (or none) instead of a partial one.
"""
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Optional, Union

from ..errors import Errors, LinkguardError

PathLike = Union[str, Path]


def refuse_same_file(out: Optional[PathLike], *inputs: Optional[PathLike]) -> None:
    """RAISES: LinkguardError E012 when `out` is the same file as one of `inputs`."""
    if out is None:
        return
    out = Path(out)
    for inp in inputs:
        if inp is None:
            continue
        inp = Path(inp)
        try:
            same = os.path.samefile(out, inp)
        except OSError:  # one of them does not exist (yet)
            same = out.resolve() == inp.resolve()
        if same:
            raise LinkguardError(Errors.E012.format(path=out, input=inp))


class atomic_output:
    """Context manager: a text stream for `path` (None: stdout), committed on success.

    RAISES: LinkguardError E012 (output is an input), E013 (cannot write there).
    """

    def __init__(self, path: Optional[PathLike], *inputs: Optional[PathLike]):
        refuse_same_file(path, *inputs)
        self.path = Path(path) if path is not None else None
        self.tmp: Optional[Path] = None
        self.stream: Optional[IO[str]] = None

    def __enter__(self) -> IO[str]:
        if self.path is None:
            return sys.stdout
        if self.path.is_dir():
            raise LinkguardError(Errors.E013.format(path=self.path, detail="it is a directory"))
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        except OSError as e:
            raise LinkguardError(Errors.E013.format(path=self.path, detail=f"{type(e).__name__}: {e.strerror or e}")) from None
        self.tmp = Path(tmp)
        self.stream = os.fdopen(fd, "w", encoding="utf-8")
        return self.stream

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self.path is None:
            return False
        assert self.stream is not None and self.tmp is not None
        try:
            self.stream.close()
            if exc_type is None:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(self.tmp, 0o666 & ~umask)  # mkstemp makes it private
                os.replace(self.tmp, self.path)
                return False
        except OSError as e:
            self.tmp.unlink(missing_ok=True)
            raise LinkguardError(Errors.E013.format(path=self.path, detail=f"{type(e).__name__}: {e}")) from None
        self.tmp.unlink(missing_ok=True)
        return False


def chosen_output(output: Optional[PathLike], old: Optional[PathLike], old_name: str) -> Optional[Path]:
    """The output of a command: `--output/-o`, or the deprecated spelling it
    replaces (`--out`), which still works with a warning (a positional OUT is
    E300: `app.LinkguardCommand`).

    RAISES: LinkguardError E015 when both are given and differ.
    WARNS: W002 when the old spelling is used.
    """
    import warnings

    from ..errors import LinkguardWarning, Warnings

    if old is None:
        return Path(output) if output is not None else None
    if output is not None and Path(output) != Path(old):
        raise LinkguardError(Errors.E015.format(output=output, old=old_name, value=old))
    warnings.warn(Warnings.W002.format(old=old_name), LinkguardWarning)
    return Path(old)


def write_text_atomic(path: Optional[PathLike], text: str, *inputs: Optional[PathLike]) -> None:
    """Write `text` to `path` (None: stdout) through `atomic_output` (E012/E013)."""
    with atomic_output(path, *inputs) as f:
        f.write(text)
