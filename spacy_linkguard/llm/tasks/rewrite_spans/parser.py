"""Read the replacements out of a model reply, and apply them: pure functions.

The reply should be `{"replacements": [{"span": ..., "replacement": ...}, ...]}`,
one item per listed span, often after a sentence of preamble. Small models
also drop the wrapper (a bare list), give bare strings in span order, wrap
the answer in code fences, or are cut off by `max_new_tokens` in the middle of
the list; the complete items of a cut-off reply are still used.
"""
import json
import re
from typing import Any, Iterable, List, Optional, Sequence, Tuple

REPLY_FIELD = "replacements"  # the answer object's only key (also `stop_at_json`)
SPAN_KEY = "span"
REPLACEMENT_KEY = "replacement"
_THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_FENCE_RE = re.compile(r"```[a-zA-Z]*")
_DECODER = json.JSONDecoder(strict=False)  # raw line breaks inside strings
_WS_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"\w+")
_MAX_OVERLAP = 6  # words a replacement may repeat of its neighbours before we trim them

# One parsed item: (the span it names, or None for a bare string given in span order; the replacement).
Replacement = Tuple[Optional[str], str]


def parse_replacements(reply: Any, field: str = REPLY_FIELD) -> Optional[List[Replacement]]:
    """The replacements in `reply`.

    reply (Any): The model's reply (non-strings give None).
    field (str): The key of the answer object.
    RETURNS (Optional[List[Replacement]]): The items in order, or None when
        the reply holds no usable item (an empty list in the answer is [],
        "nothing to replace", which the guards then reject as no change).
    """
    if not isinstance(reply, str):
        return None
    text = _FENCE_RE.sub("", _THINK_RE.sub("", reply))
    # The last complete answer (object with the field, or a bare list) wins:
    # the preamble may quote the input.
    for pos in _starts(text, "{["):
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            continue
        items = obj.get(field) if isinstance(obj, dict) else obj
        if isinstance(items, list) and (isinstance(obj, dict) or _items(items)):
            return _items(items)
    # Cut off mid-list: take the complete item objects, left to right.
    salvaged = []
    for pos in reversed(list(_starts(text, "{"))):
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            continue
        salvaged.extend(_items([obj]))
    return salvaged or None


def _starts(text: str, chars: str) -> Iterable[int]:
    """Positions of `chars` in `text`, right to left."""
    return (i for i in range(len(text) - 1, -1, -1) if text[i] in chars)


def _items(raw: Sequence[Any]) -> List[Replacement]:
    out: List[Replacement] = []
    for item in raw:
        if isinstance(item, dict):
            span, new = item.get(SPAN_KEY), item.get(REPLACEMENT_KEY)
            if isinstance(span, str) and isinstance(new, str):
                out.append((span, new.strip()))
        elif isinstance(item, str):
            out.append((None, item.strip()))
    return out


def apply_replacements(
    text: str,
    span_offsets: Sequence[Tuple[int, int]],
    replacements: Sequence[Replacement],
    refuse: str = "",
) -> Tuple[str, int]:
    """Put each replacement in place of the flagged span it names.

    text (str): The chunk.
    span_offsets: The flagged spans, (start, end) in `text`.
    replacements: Parsed items. An item names a span by its text (compared
        case- and space-insensitively) and then replaces every flagged
        occurrence of it; a bare string replaces the i-th distinct span when
        the reply holds exactly one per span. An item that names no flagged
        span but occurs in `text` around a flagged span (the model widened it)
        replaces that occurrence. Other items are ignored.
    refuse (str): when given (the placeholder), a replacement that contains
        it and whose span does not is not applied: that span is redacted, not
        rephrased, and stays flagged for the next pass.
    RETURNS (Tuple[str, int]): The edited chunk and the number of items applied.
    """
    distinct: List[str] = []
    for s, e in span_offsets:
        if text[s:e] not in distinct:
            distinct.append(text[s:e])
    bare = [new for span, new in replacements if span is None]
    named = [(span, new) for span, new in replacements if span is not None]
    if bare and len(bare) == len(distinct) and not named:
        named = list(zip(distinct, bare))
    edits: List[Tuple[int, int, str]] = []
    applied = 0
    for span, new in named:
        key = _key(span)
        if not key or (refuse and refuse in new and refuse not in span):
            continue
        hits = [(s, e) for s, e in span_offsets if _key(text[s:e]) == key]
        if not hits:  # a widened span: its occurrences that cover a flagged one
            hits = [
                (m.start(), m.end())
                for m in re.finditer(re.escape(span.strip()), text, re.IGNORECASE)
                if any(m.start() <= s and e <= m.end() for s, e in span_offsets)
            ]
        if hits:
            applied += 1
            edits.extend((s, e, trim_overlap(text[:s], new, text[e:])) for s, e in hits)
    # Overlapping edits: the first in text order wins (the widest on ties).
    edits.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    kept: List[Tuple[int, int, str]] = []
    for s, e, new in edits:
        if not kept or s >= kept[-1][1]:
            kept.append((s, e, new))
    for s, e, new in reversed(kept):
        text = text[:s] + new + text[e:]
    return text, applied


def merge_spans(text: str, span_offsets: Sequence[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """Flagged spans joined where they overlap or only whitespace parts them.

    The detector's spans overlap (combinations share words), and two
    replacements for overlapping spans cannot both be applied; a merged region
    gets one replacement that covers all of its spans.
    RETURNS (List[Tuple[int, int]]): Disjoint regions, in text order.
    """
    regions: List[List[int]] = []
    for s, e in sorted(span_offsets):
        if regions and (s <= regions[-1][1] or not text[regions[-1][1]:s].strip()):
            regions[-1][1] = max(regions[-1][1], e)
        else:
            regions.append([s, e])
    return [(s, e) for s, e in regions]


def trim_overlap(before: str, new: str, after: str) -> str:
    """`new` without the words it repeats of the text around its span.

    Small models run a replacement past its span: "had deprived her of her home
    and" -> "had taken away her home and properties" before " properties."
    would leave "properties properties". Trailing words of `new` equal to the
    words that follow the span (and leading words equal to those before it,
    compared case-insensitively, up to 6) are dropped, unless nothing would be left.
    """
    words = list(_WORD_RE.finditer(new))
    following = [w.casefold() for w in _WORD_RE.findall(after)[:_MAX_OVERLAP]]
    preceding = [w.casefold() for w in _WORD_RE.findall(before)[-_MAX_OVERLAP:]]
    end = len(new)
    for k in range(min(len(words) - 1, len(following)), 0, -1):
        if [w.group().casefold() for w in words[-k:]] == following[:k]:
            end = words[-k].start()
            words = words[:-k]
            break
    start = 0
    for k in range(min(len(words) - 1, len(preceding)), 0, -1):
        if [w.group().casefold() for w in words[:k]] == preceding[-k:]:
            start = words[k].start()
            break
    if start == 0 and end == len(new):
        return new
    trimmed = new[start:end]
    # keep the outer spacing the span had: the text around it supplies its own
    return trimmed.strip() if trimmed.strip() else new


def _key(s: str) -> str:
    return _WS_RE.sub(" ", s.strip()).casefold()


def parse_responses_spans_v1(
    task: Any, shards: Iterable[Iterable[Any]], responses: Iterable[Iterable[Any]]
) -> Iterable[List[Optional[List[Replacement]]]]:
    """spacy-llm's response parser for linkguard.RewriteSpans.v1:
    `parse_replacements` on every reply, per document."""
    for replies in responses:
        yield [parse_replacements(r, REPLY_FIELD) for r in replies]
