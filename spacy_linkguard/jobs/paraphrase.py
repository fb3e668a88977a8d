"""`paraphrase`: WordNet paraphrasing of one document, and whether its output is safe."""
import zlib
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional

from .base import Stateful
from .sources import line_sources


def doc_seed(seed: int, doc_id: str) -> int:
    """A per-document seed that depends on the run's seed and the id only, so a
    document gets the same rewrite whatever else is in the file."""
    return zlib.crc32(f"{seed}:{doc_id}".encode("utf-8"))


@dataclass
class ParaphraseJob(Stateful):
    """`paraphrase`: the output line (a dict) per record, as `paraphrase_cmd` wrote it."""

    lexical: Dict[str, Any]  # make_lexical's arguments
    seed: int = 0
    spans_only: bool = False
    index: Optional[str] = None
    k: int = 2
    max_arity: int = 3
    passes: int = 3
    verdict: str = "auto"
    guarantee: bool = True
    given_spans: Dict[str, List[Any]] = field(default_factory=dict)

    def setup(self):
        """RETURNS (Tuple[LexicalParaphraser, Optional[RewriteLoop], Optional[Detector], dict]):
        paraphraser, loop (--spans-only --index), detector (whenever --index is given: each
        output line is checked), output tags."""
        if self._state is None:
            from ..baselines.registry import make_lexical
            from .tags import output_tags

            paraphraser = make_lexical(**self.lexical)
            loop = detector = None
            if self.index is not None:
                from ..detect import Detector
                from ..index import open_index

                detector = Detector(open_index(self.index), k=self.k, max_arity=self.max_arity)
            if self.spans_only and detector is not None:
                from ..baselines.rewriter import LexicalRewriter
                from ..rewrite import RewriteLoop

                loop = RewriteLoop(detector, LexicalRewriter(paraphraser), max_passes=self.passes,
                                   guarantee=self.guarantee)
            detected = detector is not None
            tags = output_tags(system="lexical" if self.spans_only else "wordnet", model=paraphraser.describe(),
                               k=self.k if detected else None, max_arity=self.max_arity if detected else None)
            self._state = (paraphraser, loop, detector, tags)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Dict[str, Any]]:
        import time

        from ..errors import Errors, LinkguardError

        paraphraser, loop, detector, tags = self.setup()
        for rec in records:
            t0 = time.perf_counter()
            s = doc_seed(self.seed, rec.id)
            if not self.spans_only:
                res = paraphraser.paraphrase_document(rec.text, seed=s)
                line = paraphrase_line(rec, res.text, res, mode="document")
            elif loop is None:
                if rec.id not in self.given_spans:
                    raise LinkguardError(Errors.E286.format(doc_id=rec.id, line=rec.line))
                res = paraphraser.paraphrase_spans(rec.text, self.given_spans[rec.id], seed=s)
                line = paraphrase_line(rec, res.text, res, mode="spans")
            else:
                line = loop_line(rec, loop, s, self.verdict)
            if loop is None:  # the loop's line says it already; else detect the output (safe: None without --index)
                line.update(checked(detector, self.verdict, rec, line["text"]))
            line["seconds"] = round(time.perf_counter() - t0, 4)
            line.update(tags)
            yield line


def checked(detector: Any, verdict: str, rec: Any, text: str) -> Dict[str, Any]:
    """Whether a released `text` is safe: detected under `verdict` when an
    index was given, else unknown (None)."""
    if detector is None:
        return {"safe": None, "verdict": None}
    sources = line_sources(detector, verdict, rec)
    res = detector.detect(text, sources)
    return {"safe": bool(res.safe), "verdict": res.verdict, "sources": sources if res.verdict == "source" else None,
            "remaining_spans": len(res.spans)}


def loop_line(rec: Any, loop: Any, seed: int, verdict: str) -> Dict[str, Any]:
    """One document through the rewrite loop with the lexical backend, under `verdict`."""
    loop.rewriter.seed = seed
    sources = line_sources(loop.detector, verdict, rec)
    res = loop.run([rec.text], ids=[rec.id], sources=[sources])[0]
    line = paraphrase_line(rec, res.text, None, mode="spans", stats=loop.rewriter.stats[0])
    line.update(res.to_dict())
    # With guarantee mode the result is safe by construction; otherwise say what is left.
    line["remaining_spans"] = 0 if loop.guarantee else len(loop.detector.detect(res.text, sources).spans)
    return line


def paraphrase_line(rec: Any, text: str, res: Any, *, mode: str,
                    stats: Optional[Dict[str, int]] = None) -> Dict[str, Any]:
    """The output line of a paraphrased document (before the safety check and the tags)."""
    line: Dict[str, Any] = {"id": rec.id, "text": text}
    if rec.meta:
        line["meta"] = rec.meta
    line.update({"mode": mode, "llm_calls": 0, "stats": stats if stats is not None else res.stats()})
    if res is not None:
        line["edits"] = [e.to_dict() for e in res.edits]
    return line
