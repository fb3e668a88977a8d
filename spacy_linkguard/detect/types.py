"""What a detection returns: flagged spans with their evidence, and the verdict."""
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List

NGRAM = "NGRAM"  # a minimal rare N-gram (arity 1)
COMBO = "COMBO"  # a candidate chosen to break linkable combinations (arity 2..m)
LABELS = (NGRAM, COMBO)
SOURCE = "source"  # a search links only when its result set holds a source document
ANY = "any"  # a search links whenever it returns 1..k-1 documents (SPEC.md)
VERDICTS = (SOURCE, ANY)


@dataclass
class FlaggedSpan:
    """One span of the text to rephrase, with the evidence for it.

    start_char, end_char: offsets into the text given to `Detector.detect`.
    label: "NGRAM" or "COMBO".
    key: the N-gram key (case-folded tokens joined by one space).
    df: number of documents of the collection that contain the N-gram.
    linked_ids: ids of those documents when df < k (the documents it singles out).
    n_broken: for COMBO, how many minimal linkable combinations contain this
        candidate (all of them are broken when it is rephrased); 0 for NGRAM.
    examples: for COMBO, a few of those combinations, each
        {"partners": [{"key", "start_char", "end_char"}], "size": |intersection|,
        "linked_ids": [...]}.
    verdict: the verdict the span links under: "source" (its search finds
        one of the text's source documents) or "any" (SPEC.md).
    """

    start_char: int
    end_char: int
    label: str
    key: str
    df: int
    linked_ids: List[str] = field(default_factory=list)
    n_broken: int = 0
    examples: List[Dict[str, Any]] = field(default_factory=list)
    verdict: str = ANY

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class Detection:
    """The result of `Detector.detect(text)`.

    spans: flagged spans sorted by (start_char, end_char, label).
    safe: True when no N-gram and no combination of arity <= max_arity links
        the text under the verdict (SPEC.md, "A document is safe").
    report: the verdict and sources, counts (tokens, rare N-grams,
        candidates, minimal linkable combinations by arity, spans chosen)
        and seconds.
    """

    spans: List[FlaggedSpan]
    safe: bool
    report: Dict[str, Any]

    def to_dict(self) -> Dict[str, Any]:
        # `sources` at the top, beside the verdict it goes with (docs/detection.md); the
        # report keeps its copy for readers of older lines.
        return {"safe": self.safe, "verdict": self.verdict, "sources": self.report.get("sources"),
                "spans": [s.to_dict() for s in self.spans], "report": self.report}

    @property
    def verdict(self) -> str:
        return str(self.report.get("verdict", ANY))
