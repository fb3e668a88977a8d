"""Extract the rewritten sentence from a model reply: a pure function.

The reply is meant to be `{"sentence": "..."}`; the last such object is
taken (`rewrite.parser.parse_reply`). Without one, the reply is read as the
sentence alone, as a model that ignores the format writes it: small models add a label
("Rewritten sentence:"), wrap the sentence in quotes or code fences, or
explain themselves on further lines: we take the first line that holds
text once labels, fences and a pair of surrounding quotes are removed.
"""
import re
from typing import Any, Iterable, List, Optional

from ..rewrite.parser import parse_reply

REPLY_FIELD = "sentence"  # the key of the rewritten sentence in the reply's JSON object

_THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```[a-zA-Z]*")
_LABEL_RE = re.compile(r"^\s*(?:\*\*)?(?:answer|output|rewritten(?: sentence)?|new sentence|sentence)(?:\*\*)?\s*:\s*",
                       re.IGNORECASE)
_QUOTES = {'"': '"', "\u201c": "\u201d", "'": "'", "\u2018": "\u2019"}


def parse_sentence(reply: Any) -> Optional[str]:
    """The rewritten sentence in `reply`, or None when it holds no text.

    reply (Any): The model's reply (non-strings give None).
    RETURNS (Optional[str]): The `sentence` of the last JSON object that has
        one; else the first non-empty line, without a leading label and
        without one pair of surrounding quotes.
    """
    if not isinstance(reply, str):
        return None
    found = parse_reply(reply, REPLY_FIELD)
    if found is not None:
        return found or None
    text = _FENCE_RE.sub("", _THINK_RE.sub("", reply))
    for line in text.splitlines():
        line = _LABEL_RE.sub("", line.strip()).strip()
        if len(line) >= 2 and _QUOTES.get(line[0]) == line[-1]:
            line = line[1:-1].strip()
        if line:
            return line
    return None


def parse_responses_sentences_v1(task: Any, shards: Iterable[Iterable[Any]],
                                 responses: Iterable[Iterable[Any]]) -> Iterable[List[Optional[str]]]:
    """spacy-llm's response parser for linkguard.RewriteSentences.v1:
    `parse_sentence` on every reply, per document."""
    for replies in responses:
        yield [parse_sentence(r) for r in replies]
