"""The sources a corpus line is detected with (SPEC.md's verdicts), for every job."""
from typing import Any, Iterable, Iterator, Optional


def line_sources(detector: Any, verdict: str, rec: Any) -> Optional[list]:
    """The sources a corpus line is detected with under `verdict` (None: any).

    RAISES: LinkguardError E107 (verdict), E108 (source, but none known).
    """
    from ..detect import resolve_sources

    return resolve_sources(verdict, rec.sources, rec.id, detector.has_document,
                           what=f"line {rec.line} (id {rec.id!r})")


def sourced_docs(nlp: Any, detector: Any, verdict: str, records: Iterable[Any]) -> Iterator[Any]:
    """Docs of corpus records, each with its id (`doc.user_data["id"]`) and the
    sources it is detected with (`doc._.linkguard_sources`, SPEC.md's verdicts)."""
    for rec in records:
        doc = nlp.make_doc(rec.text)
        doc.user_data["id"] = rec.id
        doc._.linkguard_sources = line_sources(detector, verdict, rec)
        yield doc
