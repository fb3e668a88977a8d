"""Reading the TAB gold files of assets/tab/ (layout: assets/tab/README or shared data README)."""
import json
from pathlib import Path
from typing import Iterator, List, Tuple, Union

from ..errors import Errors, LinkguardError
from .evaluation import GoldMention


def iter_tab(path: Union[str, Path]) -> Iterator[dict]:
    """Yield the JSON objects of a TAB JSONL file (E158 when unreadable)."""
    path = Path(path)
    if not path.is_file():
        raise LinkguardError(Errors.E158.format(path=path, detail="file not found"))
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise LinkguardError(Errors.E158.format(path=path, detail=f"line {lineno}: {e.msg}")) from None
            if not isinstance(obj, dict) or "text" not in obj or "doc_id" not in obj:
                raise LinkguardError(Errors.E158.format(path=path, detail=f"line {lineno} lacks doc_id/text"))
            yield obj


def gold_mentions(obj: dict) -> List[GoldMention]:
    """Every annotator's mentions of a TAB-native record (empty when `annotations` is null)."""
    out = []
    for ann in (obj.get("annotations") or {}).values():
        for m in ann.get("entity_mentions", []):
            out.append(GoldMention(m["start_offset"], m["end_offset"], m["entity_type"], m["identifier_type"]))
    return out


def tae_spans(obj: dict) -> List[Tuple[int, int]]:
    """TAE's manual spans of a `tab_test.jsonl` record as (start, end)."""
    return [(int(s), int(e)) for s, e, *_ in obj.get("tae_manual_spans") or []]
