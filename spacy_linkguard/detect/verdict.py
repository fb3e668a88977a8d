"""Which verdict a document is detected under, and with which sources (SPEC.md "Threat model").

`--verdict` / the components' `verdict` setting takes one of VERDICT_OPTIONS:
"source" (a search links only when its result set holds one of the document's
source documents), "any" (every search with 1..k-1 results links) or "auto"
(the default): source when the sources are known, else any. A document's
sources are its corpus line's `"sources"` (or `doc._.linkguard_sources`);
without them, its own id when the index holds a document of that id.
"""
from typing import Callable, List, Optional, Sequence

from ..errors import Errors, LinkguardError
from .types import ANY, SOURCE

AUTO = "auto"
VERDICT_OPTIONS = (AUTO, SOURCE, ANY)


def check_verdict(value: object) -> str:
    """RAISES: LinkguardError E107 unless `value` is one of VERDICT_OPTIONS."""
    if not isinstance(value, str) or value not in VERDICT_OPTIONS:
        raise LinkguardError(Errors.E107.format(allowed=", ".join(VERDICT_OPTIONS), value=value))
    return value


def resolve_sources(verdict: str, sources: Optional[Sequence[str]], doc_id: Optional[str],
                    has_document: Callable[[str], bool], what: str = "the document") -> Optional[List[str]]:
    """The sources to detect with (None: the any verdict).

    verdict (str): "auto", "source" or "any" (`check_verdict`).
    sources (Sequence[str]): the document's given sources, or None.
    doc_id (str): its id (a corpus line's), or None (a Doc typed on a pipeline).
    has_document (Callable[[str], bool]): whether the index holds a document of that id.
    what (str): names the document in E108.
    RETURNS (Optional[List[str]]): the sources under "source" (given ones
        first, else [doc_id] when the index holds it); None under "any".
    RAISES: LinkguardError E107 (verdict), E108 ("source" without known sources).
    """
    check_verdict(verdict)
    if verdict == ANY:
        return None
    if sources is not None:
        return list(sources)
    if doc_id is not None and has_document(doc_id):
        return [doc_id]
    if verdict == SOURCE:
        detail = (f"its id {doc_id!r} is not a document of the index and it has no \"sources\""
                  if doc_id is not None else "no sources were given")
        raise LinkguardError(Errors.E108.format(what=what, detail=detail))
    return None
