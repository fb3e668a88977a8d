"""`detect` and `show`: the index and detection options they share, and what each writes per document."""
import json
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, Optional, Tuple

from ..attack.ranks import DEFAULT_RANK_MODEL
from .base import Stateful


@dataclass
class DetectionJob(Stateful):
    """The options `detect` and `show` share: the index and the detection settings."""

    index: str
    k: int = 2
    max_arity: int = 3
    verdict: str = "auto"
    verify: bool = False
    max_n: Optional[int] = None
    placeholder: Optional[str] = None
    span_cost: str = "uniform"

    def __getstate__(self) -> Dict[str, Any]:
        d = super().__getstate__()
        d["verify"] = False  # the parent checked every byte already; a worker need not again
        return d


@dataclass
class DetectJob(DetectionJob):
    """`detect`: result (JSON line, safe, verdict) per record; with `rank`, the
    line's "rank" holds its sources' best BM25 and embedding ranks (`attack/`)."""

    rank: bool = False
    rank_model: Optional[str] = DEFAULT_RANK_MODEL

    # detection_preload first: it sets the threads before NumPy and spaCy load.
    preload = ("spacy_linkguard.parallel.detection_preload", "spacy_linkguard.detect", "spacy_linkguard.index",
               "spacy_linkguard.pipeline.linkguard", "spacy_linkguard.jobs.sources")

    def setup(self):
        """RETURNS (Detector). RAISES: the coded errors of open_index and Detector."""
        if self._state is None:
            from ..detect import Detector
            from ..index import open_index
            from ..pipeline.linkguard import requested_settings

            idx = open_index(self.index, verify=self.verify)
            settings = requested_settings(idx.settings, max_n=self.max_n, placeholder=self.placeholder)
            self._state = Detector(idx, k=self.k, max_arity=self.max_arity, settings=settings,
                                   span_cost=self.span_cost)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Tuple[str, bool, str]]:
        from .sources import line_sources

        detector = self.setup()
        rankers = self.rankers() if self.rank else None
        for rec in records:
            res = detector.detect(rec.text, line_sources(detector, self.verdict, rec))
            line = {"id": rec.id, **res.to_dict()}
            if rankers is not None:
                line["rank"] = record_ranks(rankers, detector, rec)
            yield json.dumps(line, ensure_ascii=False) + "\n", res.safe, res.verdict

    def __getstate__(self) -> Dict[str, Any]:
        d = super().__getstate__()
        d.pop("_rankers", None)  # built again by each worker
        return d

    def rankers(self) -> Dict[str, Any]:
        """The ranking attackers over the index, built once per process ("embedding" None without its model)."""
        if getattr(self, "_rankers", None) is None:
            from ..attack.ranks import index_rankers, rank_model_name

            idx = self.setup().index
            emb = None
            model = rank_model_name(self.rank_model)
            if model is not None:
                from ..attack.embedding import index_embedding_attacker

                emb = index_embedding_attacker(idx, model)
            self._rankers = index_rankers(idx, emb)
        return self._rankers


def record_ranks(rankers: Dict[str, Any], detector: Any, rec: Any) -> Dict[str, Any]:
    """{"bm25": rank, "embedding": rank, "sources": [...]}: the best 1-based rank of the
    record's sources ("sources", else its id when the index holds it; ranks None when unknown)."""
    from ..attack.ranks import rank_fields
    from ..detect import resolve_sources

    sources = resolve_sources("auto", rec.sources, rec.id, detector.has_document, what=f"line {rec.line}")
    if sources is None:
        return {"bm25": None, "embedding": None, "sources": None}
    return rank_fields(rankers, rec.text, sources, detector.source_numbers(sources))


@dataclass
class ShowJob(DetectionJob):
    """`show`: the page's item (`display.report_item`) per record; with `rank`, the
    document's header gives its sources' best BM25 and embedding ranks (as `detect --rank`)."""

    rank: bool = False
    rank_model: Optional[str] = DEFAULT_RANK_MODEL

    preload = DetectJob.preload + ("spacy_linkguard.display",)

    def setup(self):
        """RETURNS (Language): spacy.blank("en") + linkguard, initialized."""
        if self._state is None:
            import spacy
            from spacy.symbols import ORTH

            from ..index import open_index
            from ..pipeline import factories  # noqa: F401 -- registers "linkguard" even without entry points

            with _plugin_factories_unloaded():
                nlp = spacy.blank("en")
            from ..attack.ranks import rank_model_name

            linkguard = nlp.add_pipe("linkguard", config={
                "k": self.k, "max_arity": self.max_arity, "max_n": self.max_n, "placeholder": self.placeholder,
                "verify": self.verify, "verdict": self.verdict, "rank": self.rank,
                "rank_model": rank_model_name(self.rank_model), "span_cost": self.span_cost})
            linkguard.initialize(nlp=nlp, index=open_index(self.index, verify=self.verify))
            # Keep the placeholder one token on the page, as the detector does.
            ph = linkguard.settings.placeholder  # the index's
            nlp.tokenizer.add_special_case(ph, [{ORTH: ph}])
            self._state = nlp
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Dict[str, Any]]:
        from .sources import line_sources
        from ..display import report_item

        nlp = self.setup()
        detector = nlp.get_pipe("linkguard").detector
        for rec in records:
            # The page only tokenizes: spaCy's max_length (a memory guard for
            # parsers) need not refuse a long document here.
            nlp.max_length = max(nlp.max_length, len(rec.text) + 1)
            doc = nlp.make_doc(rec.text)
            doc.user_data["id"] = rec.id
            sources = line_sources(detector, self.verdict, rec)  # E108 names the line
            if self.rank and self.verdict == "any":
                # Ranked by its known sources, as `detect --rank`; the component's
                # verdict "any" leaves them out of detection.
                sources = line_sources(detector, "auto", rec)
            doc._.linkguard_sources = sources
            for _, proc in nlp.pipeline:
                doc = proc(doc)
            yield report_item(doc, ranked=self.rank)


@contextmanager
def _plugin_factories_unloaded() -> Iterator[None]:
    """Within the block, a new `Language` does not import every installed
    package's spaCy factories (spaCy's `Language.__init__` loads all the
    `spacy_factories` entry points: Presidio's and spacy-llm's import
    transformers and torch, seconds of start-up the page never uses). The
    `linkguard` factory is registered by importing `pipeline.factories`."""
    from spacy import util

    entry_points = util.registry._entry_point_factories
    entry_points.get_all = dict  # type: ignore[method-assign]  # nothing to import
    try:
        yield
    finally:
        del entry_points.get_all  # the class's method again
