"""TAB's official metrics (Pilán et al. 2022, "The Text Anonymization Benchmark"), pure functions.

Written from the definitions of the TAB paper and of the benchmark's
`evaluation.py` (NorskRegnesentral/text-anonymization-benchmark), so that our
figures can be compared with published ones:

- An *entity* groups the mentions that share an `entity_id` (per annotator).
  It needs masking when any of its mentions is DIRECT or QUASI; it is a
  direct identifier when its first mention is DIRECT.
- A *mention is masked* when each of its characters is masked, or is a
  space or punctuation character (`,.-;:/&()[]–'" ’“”`), or belongs to one of
  a few function words and titles (`IGNORED_WORDS`, whole words, any case).
- An *entity is masked* when each of its mentions that needs masking is.
- ER_di / ER_qi: the share of direct / quasi entities that are masked.
- Token precision (uniform weights): the system's masked spans are cut into
  `\\w+` tokens; a token is a true positive for every annotator who masked a
  mention covering it entirely; precision = true positives / (tokens x
  annotators of the document).

This differs from `evaluation.py` in this package (mentions, not entities;
all non-space characters, nothing ignored; character precision), which is
stricter. bench_deid.py reports both.
"""
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Sequence, Tuple

IGNORED_WORDS = ("mr", "mrs", "ms", "and", "or", "from", "until", "to", "about", "after", "as", "at",
                 "before", "between", "by", "during", "for", "in", "into", "of", "on", "over", "since",
                 "with", "the", "a", "an", "no", "nr", "’s", "'s")
IGNORED_CHARS = ",.-;:/&()[]–'\" ’“”"
_SKIP = re.compile("(?:" + "|".join([rf"\b{re.escape(w)}\b" for w in IGNORED_WORDS]
                                    + [re.escape(c) for c in IGNORED_CHARS]) + ")", re.IGNORECASE)
_TOKEN = re.compile(r"\w+")


@dataclass
class Entity:
    """One annotator's entity: its mentions and which of them need masking."""

    annotator: str
    entity_id: str
    entity_type: str
    is_direct: bool
    mentions: List[Tuple[int, int]] = field(default_factory=list)
    mask_mention: List[bool] = field(default_factory=list)

    @property
    def needs_masking(self) -> bool:
        return any(self.mask_mention)


def entities(annotations: Dict[str, Any]) -> List[Entity]:
    """The entities of a TAB record's `annotations` ({annotator: {"entity_mentions": [...]}})."""
    out: Dict[Tuple[str, str], Entity] = {}
    for annotator, ann in (annotations or {}).items():
        for m in ann.get("entity_mentions", []):
            key = (annotator, m["entity_id"])
            needs = m["identifier_type"] in ("DIRECT", "QUASI")
            if key not in out:
                out[key] = Entity(annotator, m["entity_id"], m["entity_type"], m["identifier_type"] == "DIRECT")
            out[key].mentions.append((m["start_offset"], m["end_offset"]))
            out[key].mask_mention.append(needs)
    return list(out.values())


def masked_offsets(spans: Iterable[Tuple[int, int]]) -> set:
    return {i for start, end in spans for i in range(start, end)}


def mention_masked(text: str, masked: set, start: int, end: int) -> bool:
    """True when text[start:end] is masked but for spaces, punctuation and IGNORED_WORDS."""
    left = set(range(start, end)) - masked
    if left:
        for m in _SKIP.finditer(text[start:end].lower()):
            left -= set(range(start + m.start(), start + m.end()))
    return not left


def entity_masked(text: str, masked: set, entity: Entity) -> bool:
    return all(mention_masked(text, masked, s, e) or not need
               for (s, e), need in zip(entity.mentions, entity.mask_mention))


@dataclass
class TabCounts:
    """Additive counts (sum over documents, then `tab_metrics`)."""

    direct: List[int] = field(default_factory=lambda: [0, 0])  # masked, total
    quasi: List[int] = field(default_factory=lambda: [0, 0])
    true_positives: float = 0.0
    system_tokens: float = 0.0  # tokens x annotators

    def add(self, other: "TabCounts") -> "TabCounts":
        for mine, theirs in ((self.direct, other.direct), (self.quasi, other.quasi)):
            mine[0] += theirs[0]
            mine[1] += theirs[1]
        self.true_positives += other.true_positives
        self.system_tokens += other.system_tokens
        return self


def count_tab(text: str, annotations: Dict[str, Any], spans: Sequence[Tuple[int, int]]) -> TabCounts:
    """TAB's counts for one document and the system's masked character spans."""
    ents = entities(annotations)
    masked = masked_offsets(spans)
    counts = TabCounts()
    for ent in ents:
        if not ent.needs_masking:
            continue
        bucket = counts.direct if ent.is_direct else counts.quasi
        bucket[0] += entity_masked(text, masked, ent)
        bucket[1] += 1
    gold = [(s, e, ent.annotator) for ent in ents if ent.needs_masking
            for (s, e), need in zip(ent.mentions, ent.mask_mention) if need]
    n_annotators = len({ent.annotator for ent in ents})
    for start, end in spans:
        for m in _TOKEN.finditer(text[start:end]):
            ts, te = start + m.start(), start + m.end()
            counts.true_positives += len({a for s, e, a in gold if s <= ts and e >= te})
            counts.system_tokens += n_annotators
    return counts


def tab_metrics(counts: TabCounts) -> Dict[str, Any]:
    """ER_di, ER_qi and uniform token precision (rounded to 4 digits) with their totals."""

    def ratio(a: float, b: float) -> Any:
        return round(a / b, 4) if b else None

    return {
        "ER_di": ratio(*counts.direct),
        "ER_qi": ratio(*counts.quasi),
        "token_precision": ratio(counts.true_positives, counts.system_tokens),
        "n_direct_entities": counts.direct[1],
        "n_quasi_entities": counts.quasi[1],
    }
