"""Extract the edited chunk from a model reply: a pure function.

The reply is free reasoning followed by a JSON object `{"text": "..."}`.
Models wrap it in code fences, add text after it, forget to escape a line
break, or stop before closing it. We take the LAST complete object that has
a string under the field, because the reasoning may quote the input object.
"""
import json
import re
from typing import Any, Iterable, List, Optional

REPLY_FIELD = "text"  # the key of the edited chunk in the reply's JSON object
_THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```[a-zA-Z]*")
_DECODER = json.JSONDecoder(strict=False)  # strict=False: raw line breaks inside strings


def parse_reply(reply: Any, field: str = REPLY_FIELD) -> Optional[str]:
    """Return the string under `field` of the last JSON object in `reply`.

    reply (Any): The model's reply (non-strings give None).
    field (str): The key that holds the edited chunk.
    RETURNS (Optional[str]): The value, stripped of surrounding whitespace, or
        None when the reply holds no complete JSON object with a string `field`.
    """
    if not isinstance(reply, str) or "{" not in reply:
        return None
    text = _FENCE_RE.sub("", _THINK_RE.sub("", reply))
    # Scan every "{" from the right; raw_decode ignores what follows the object.
    pos = text.rfind("{")
    while pos >= 0:
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get(field), str):
            return obj[field].strip()
        pos = text.rfind("{", 0, pos)
    return _parse_loose(text, field)


# `{"text": '...'}` or `{"text": "...", }` are common slips of small models: take
# the double-quoted string after the key when the object itself won't decode.
_LOOSE_RE_TEMPLATE = r'"{field}"\s*:\s*"((?:[^"\\]|\\.)*)"\s*[,}}]'


def _parse_loose(text: str, field: str) -> Optional[str]:
    matches = list(re.finditer(_LOOSE_RE_TEMPLATE.format(field=re.escape(field)), text, re.DOTALL))
    if not matches:
        return None
    raw = matches[-1].group(1)
    try:
        return json.loads('"' + raw + '"', strict=False).strip()
    except ValueError:
        return None


def parse_responses_v1(task: Any, shards: Iterable[Iterable[Any]], responses: Iterable[Iterable[Any]]) -> Iterable[List[Optional[str]]]:
    """spacy-llm's response parser for linkguard.Rewrite.v1: `parse_reply` on
    every reply, per document. RETURNS: one list (edited chunk or None per reply) per doc."""
    for replies in responses:
        yield [parse_reply(r, REPLY_FIELD) for r in replies]
