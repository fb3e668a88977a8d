"""`--checkpoint` for long runs: finished lines kept as they come, a later run goes on after them.

The output file itself is still written whole or not at all (`output.py`).
Beside it, `OUTPUT.partial` gets every finished line at once, in input order
(the lines come back in input order, so the file is always the first N lines
of the output). When a run stops -- Ctrl-C, a lost GPU machine, a worker
killed -- the same command with `--checkpoint` reads those N lines, checks
that they belong to this input and this rewriter, skips the first N
documents and rewrites only the rest. The finished output replaces the
checkpoint.
"""
import json
from pathlib import Path
from typing import IO, Dict, Iterable, Iterator, List, Optional

from ..errors import Errors, LinkguardError

SUFFIX = ".partial"
CHECKED_TAGS = ("system", "model", "k", "max_arity")  # a line from another rewriter is not reused


def checkpoint_path(output: Optional[Path]) -> Path:
    """OUTPUT.partial, beside the output.

    RAISES: LinkguardError E018 when there is no output file (stdout).
    """
    if output is None:
        raise LinkguardError(Errors.E018)
    output = Path(output)
    return output.with_name(output.name + SUFFIX)


def read_checkpoint(path: Path) -> List[str]:
    """The complete lines of a checkpoint (a last line cut off by a kill is dropped)."""
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines.pop()
    kept = []
    for line in lines:
        try:
            json.loads(line)
        except json.JSONDecodeError:
            break  # written half when the run stopped: everything after it is redone
        kept.append(line)
    return kept


def check_checkpoint(path: Path, lines: List[str], ids: List[str], tags: Dict) -> None:
    """ids: those of the input's first len(lines) documents (fewer when it has fewer).

    RAISES: LinkguardError E019 when the lines are not the first documents of
    this input (ids in order) or were written by another rewriter (`tags`)."""
    if len(lines) > len(ids):
        raise LinkguardError(Errors.E019.format(path=path, detail=f"it has {len(lines)} lines and this run "
                                                f"only {len(ids)} documents"))
    for i, (line, doc_id) in enumerate(zip(lines, ids), start=1):
        obj = json.loads(line)
        if obj.get("id") != doc_id:
            raise LinkguardError(Errors.E019.format(path=path, detail=f"its line {i} is document "
                                                    f"{obj.get('id')!r}, the input's is {doc_id!r}"))
        for key in CHECKED_TAGS:
            if key in tags and obj.get(key) != tags[key]:
                raise LinkguardError(Errors.E019.format(path=path, detail=f"its line {i} has {key} "
                                                        f"{obj.get(key)!r}, this run {tags[key]!r}"))


class Checkpoint:
    """The checkpoint of one run: `done` lines to reuse, and `keep(line)` for each new one.
    Check `done` against the input (`check_checkpoint`) before entering it.

    RAISES: LinkguardError E018 when there is no output file (stdout).
    """

    def __init__(self, output: Optional[Path]):
        self.path = checkpoint_path(output)
        self.done = read_checkpoint(self.path)
        self.n_lines = len(self.done)  # lines in the file, kept ones included
        self.stream: Optional[IO[str]] = None

    def __enter__(self) -> "Checkpoint":
        try:
            # Rewritten from its complete lines, so a cut-off last line is gone.
            self.stream = self.path.open("w", encoding="utf-8")
            self.stream.writelines(self.done)
            self.stream.flush()
        except OSError as e:
            raise LinkguardError(Errors.E013.format(path=self.path, detail=f"{type(e).__name__}: {e}")) from None
        return self

    def keep(self, line: str) -> None:
        assert self.stream is not None
        self.stream.write(line)
        self.stream.flush()
        self.n_lines += 1

    def lines(self, new: Iterable[str]) -> Iterator[str]:
        """The reused lines, then each new one (kept as it passes)."""
        yield from self.done
        for line in new:
            self.keep(line)
            yield line

    def __exit__(self, exc_type, exc, tb) -> bool:
        if self.stream is not None:
            self.stream.close()
        if exc_type is None or self.n_lines == 0:
            self.path.unlink(missing_ok=True)  # the output has every line now, or there is nothing to keep
        else:
            import sys

            print(f"{self.n_lines} finished document(s) kept in {self.path}: the same command with --checkpoint "
                  f"goes on after them.", file=sys.stderr)
        return False
