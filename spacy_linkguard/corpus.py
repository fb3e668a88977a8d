"""Reading and writing corpora: JSONL, one `{"id", "text", "meta"?, "sources"?}` object a line.

`sources` (optional): the collection ids of the documents a released text was
made from (SPEC.md, the source verdict); without it a line's `id` is its
source when the index holds a document of that id.
"""
import json
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from .errors import Errors, LinkguardError


@dataclass
class Record:
    """One document of a corpus."""

    id: str
    text: str
    meta: Dict[str, Any] = field(default_factory=dict)
    line: int = 0  # 1-based line number in the file it came from (0: not from a file)
    sources: Optional[List[str]] = None  # collection ids it was made from (None: not given)


def require_file(path: Union[str, Path], *, hint: str = "") -> Path:
    """`path` as a Path, checked before any slow setup that would precede reading it.

    RAISES: LinkguardError E010 when it is not a file.
    """
    path = Path(path)
    if not path.is_file():
        raise LinkguardError(Errors.E010.format(path=path, hint=hint))
    return path


def iter_json_lines(path: Union[str, Path], *, hint: str = "") -> Iterator[Tuple[int, Any]]:
    """Stream the decoded JSON value of every non-blank line of a JSONL file.

    path (str / Path): The JSONL file.
    hint (str): Appended to the E010 message, e.g. " (run the step that writes it)".
    YIELDS (Tuple[int, Any]): (1-based line number, decoded value).
    RAISES: LinkguardError E006 (bad JSON, with line number), E008 (invalid
        UTF-8, with byte offset), E010 (no file).
    """
    path = require_file(path, hint=hint)
    offset = 0
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise LinkguardError(Errors.E008.format(path=path, line=lineno, offset=offset + e.start)) from None
            offset += len(raw)
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as e:
                raise LinkguardError(Errors.E006.format(path=path, line=lineno, detail=json_error(e))) from None


def json_error(e: json.JSONDecodeError) -> str:
    """What is wrong with a JSON line and where: "Invalid control character at
    column 21" (the bare message ends in "at")."""
    return f"{e.msg} column {e.colno}" if e.msg.endswith(" at") else f"{e.msg} at column {e.colno}"


def check_records(path: Union[str, Path], limit: Optional[int] = None) -> int:
    """Read a whole corpus once, as `iter_records` does, keeping nothing: a
    command whose output goes out line by line (to stdout) calls it first, so a
    bad line fails before the first output line instead of after half of them.

    limit (Optional[int]): Only the first `limit` records (a command's --limit).
    RETURNS (int): The number of records (at most `limit`).
    RAISES: LinkguardError, as `iter_records`.
    """
    return sum(1 for _ in islice(iter_records(path), limit))


def iter_records(path: Union[str, Path], *, check_unique: bool = True) -> Iterator[Record]:
    """Stream the records of a JSONL corpus, validating each line.

    path (str / Path): The JSONL file.
    check_unique (bool): Raise E009 on a repeated id.
    YIELDS (Record): Records in file order; blank lines are skipped.
    RAISES: LinkguardError E006 (bad JSON, with line number), E007 (missing
        or mistyped field), E008 (invalid UTF-8), E009 (repeated id), E010 (no file).
    """
    seen: Dict[str, int] = {}
    for lineno, obj in iter_json_lines(path):
        record = record_from_obj(obj, path=path, line=lineno)
        if check_unique:
            if record.id in seen:
                raise LinkguardError(
                    Errors.E009.format(doc_id=record.id, path=path, first=seen[record.id], line=lineno)
                )
            seen[record.id] = lineno
        yield record


def record_from_obj(obj: Any, *, path: Union[str, Path] = "<records>", line: int = 0) -> Record:
    """Validate one decoded JSON object as a Record (ids may be str or int)."""
    if not isinstance(obj, dict):
        raise LinkguardError(Errors.E007.format(path=path, line=line, field="id", kind="str"))
    doc_id = obj.get("id")
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if not isinstance(doc_id, str) or not doc_id:
        raise LinkguardError(Errors.E007.format(path=path, line=line, field="id", kind="non-empty str"))
    text = obj.get("text")
    if not isinstance(text, str):
        raise LinkguardError(Errors.E007.format(path=path, line=line, field="text", kind="str"))
    meta = obj.get("meta") or {}
    if not isinstance(meta, dict):
        raise LinkguardError(Errors.E007.format(path=path, line=line, field="meta", kind="object"))
    sources = obj.get("sources")
    if sources is not None:
        if not isinstance(sources, list) or not sources or not all(
                isinstance(s, (str, int)) and not isinstance(s, bool) and s != "" for s in sources):
            raise LinkguardError(Errors.E007.format(path=path, line=line, field="sources",
                                                    kind="non-empty list of ids (str or int)"))
        sources = [str(s) for s in sources]
    return Record(id=doc_id, text=text, meta=meta, line=line, sources=sources)


def write_records(records: Iterable[Union[Record, Dict[str, Any]]], path: Union[str, Path]) -> int:
    """Write records (Record objects or dicts) as JSONL, atomically. Returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for rec in records:
            obj = rec if isinstance(rec, dict) else _record_to_obj(rec)
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def _record_to_obj(rec: Record) -> Dict[str, Any]:
    obj: Dict[str, Any] = {"id": rec.id, "text": rec.text}
    if rec.meta:
        obj["meta"] = rec.meta
    if rec.sources is not None:
        obj["sources"] = rec.sources
    return obj


def count_lines(path: Union[str, Path]) -> Optional[int]:
    """Number of non-blank lines (for progress-bar totals); None when unreadable."""
    try:
        with Path(path).open("rb") as f:
            return sum(1 for raw in f if raw.strip())
    except OSError:
        return None
