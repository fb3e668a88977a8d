"""De-identification metrics against gold mentions (pure functions).

Definitions (TAB-style, see benchmarks/bench_deid.py):
- a gold mention is *masked* when every non-space character of it is masked;
- a mention's tokens are its whitespace-separated words; a token is masked
  when every character of it is masked;
- precision is the share of masked non-space characters that lie inside a
  gold mention that should be masked (identifier_type DIRECT or QUASI).
All offsets are character offsets into the original text.
"""
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Sequence, Tuple

from .spans import covered_chars

_WORD = re.compile(r"\S+")
MASKED_TYPES = ("DIRECT", "QUASI")


@dataclass(frozen=True)
class GoldMention:
    start: int
    end: int
    entity_type: str
    identifier_type: str = "QUASI"


def mention_masked(text: str, mask: bytearray, start: int, end: int) -> bool:
    """True when every non-space character of `text[start:end]` is masked.

    A mention made only of spaces has nothing to hide and counts as masked.
    """
    return all(mask[i] for i in range(start, end) if not text[i].isspace())


def mention_tokens(text: str, start: int, end: int) -> List[Tuple[int, int]]:
    """The whitespace-separated words of a mention, as absolute (start, end)."""
    return [(start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]


@dataclass
class DocCounts:
    """Additive counts of one document (sum them over a set, then `metrics`)."""

    mentions: Dict[str, List[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    tokens: Dict[str, List[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    by_entity: Dict[str, List[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    masked_chars: int = 0
    masked_in_gold: int = 0

    def add(self, other: "DocCounts") -> "DocCounts":
        for mine, theirs in ((self.mentions, other.mentions), (self.tokens, other.tokens), (self.by_entity, other.by_entity)):
            for k, (hit, total) in theirs.items():
                mine[k][0] += hit
                mine[k][1] += total
        self.masked_chars += other.masked_chars
        self.masked_in_gold += other.masked_in_gold
        return self


def count_doc(text: str, masked: Sequence[Tuple[int, int]], gold: Iterable[GoldMention]) -> DocCounts:
    """Compare one document's masked ranges with its gold mentions.

    text (str): The original text.
    masked (Sequence[Tuple[int, int]]): Masked character ranges (may overlap).
    gold (Iterable[GoldMention]): Gold mentions of any identifier type.
    RETURNS (DocCounts): Hits/totals of mentions and tokens per identifier
        type, of DIRECT+QUASI mentions per entity type, and the character
        counts behind precision.
    """
    mask = covered_chars(masked, len(text))
    counts = DocCounts()
    should = bytearray(len(text))
    for g in gold:
        hit = mention_masked(text, mask, g.start, g.end)
        counts.mentions[g.identifier_type][0] += hit
        counts.mentions[g.identifier_type][1] += 1
        for ts, te in mention_tokens(text, g.start, g.end):
            counts.tokens[g.identifier_type][0] += all(mask[ts:te])
            counts.tokens[g.identifier_type][1] += 1
        if g.identifier_type in MASKED_TYPES:
            counts.by_entity[g.entity_type][0] += hit
            counts.by_entity[g.entity_type][1] += 1
            should[g.start : g.end] = b"\x01" * (g.end - g.start)
    for i, m in enumerate(mask):
        if m and not text[i].isspace():
            counts.masked_chars += 1
            counts.masked_in_gold += should[i]
    return counts


def _ratio(hit: int, total: int) -> float:
    return round(hit / total, 4) if total else float("nan")


def metrics(counts: DocCounts) -> Dict[str, object]:
    """Recall and precision figures from summed counts (micro-averaged).

    RETURNS (dict): mention_recall and token_recall per identifier type and
        for DIRECT+QUASI together ("MASKED"), recall per entity type, precision,
        and the totals behind each figure.
    """
    out: Dict[str, object] = {}
    for name, table in (("mention_recall", counts.mentions), ("token_recall", counts.tokens)):
        per = {k: _ratio(*table[k]) for k in sorted(table) if k in MASKED_TYPES}
        hit = sum(table[k][0] for k in MASKED_TYPES if k in table)
        total = sum(table[k][1] for k in MASKED_TYPES if k in table)
        per["MASKED"] = _ratio(hit, total)
        out[name] = per
    out["recall_by_entity_type"] = {k: _ratio(*v) for k, v in sorted(counts.by_entity.items())}
    out["precision"] = _ratio(counts.masked_in_gold, counts.masked_chars)
    out["n_mentions"] = {k: v[1] for k, v in sorted(counts.mentions.items())}
    out["n_by_entity_type"] = {k: v[1] for k, v in sorted(counts.by_entity.items())}
    return out


def span_recall(text: str, masked: Sequence[Tuple[int, int]], gold: Sequence[Tuple[int, int]]) -> Tuple[int, int, int, int]:
    """Mention- and character-level hits against plain gold ranges (e.g. TAE's spans).

    RETURNS (Tuple[int, int, int, int]): (mentions masked, mentions, non-space
        gold characters masked, non-space gold characters).
    """
    mask = covered_chars(masked, len(text))
    m_hit = c_hit = c_total = 0
    for start, end in gold:
        m_hit += mention_masked(text, mask, start, end)
        for i in range(start, end):
            if not text[i].isspace():
                c_total += 1
                c_hit += mask[i]
    return m_hit, len(gold), c_hit, c_total
