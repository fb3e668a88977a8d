"""De-identifying whole texts with a pipeline that ends in `linkguard_deid`.

Texts longer than `nlp.max_length` are cut into pieces (`pieces.split_pieces`),
each piece goes through the pipeline, and the spans are shifted back to
offsets of the whole text before the text is rendered once.
"""
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from . import DEFAULT_MODEL
from .offsets import OffsetMap
from .pieces import split_pieces
from .spans import PiiSpan, merge_overlaps

COMPONENT = "linkguard_deid"


@dataclass
class DeidResult:
    """The de-identification of one text; offsets refer to `text`."""

    text: str
    deidentified_text: str
    spans: List[PiiSpan]
    offsets: OffsetMap
    report: Dict[str, Any] = field(default_factory=dict)


def load_pipeline(model: str = DEFAULT_MODEL, *, config: Optional[Dict[str, Any]] = None):
    """Load an installed spaCy pipeline and add `linkguard_deid` after its NER.

    model (str): Package name or path of an installed pipeline (never downloaded).
    config (Optional[dict]): Settings of the component (see pipeline/deid.py).
    RETURNS (Language): The pipeline.
    RAISES: LinkguardError E151 when the model is not installed.
    """
    import spacy

    if not (spacy.util.is_package(model) or Path(model).exists()):
        raise LinkguardError(Errors.E151.format(model=model))
    nlp = spacy.load(model)
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, config={"model": model, **(config or {})})
    return nlp


def _doc_spans(doc, key: str) -> List[PiiSpan]:
    return [
        PiiSpan(s.start_char, s.end_char, s.label_, float(s._.pii_score if s._.pii_score is not None else 1.0))
        for s in doc.spans.get(key, [])
    ]


def deidentified_record(record: Any, result: DeidResult) -> Dict[str, Any]:
    """The output line of `deidentify` for one record: its id, the de-identified
    text, and its meta with `deid` = {"spans": [[start, end, label, score], ...]
    (offsets in the original text), "offsets": the offset map, "report"}.

    record (Record): The input record (`corpus.Record`).
    result (DeidResult): Its de-identification (`deidentify_texts`).
    """
    meta = dict(record.meta)
    meta["deid"] = {
        "spans": [[s.start, s.end, s.label, round(s.score, 4)] for s in result.spans],
        "offsets": result.offsets.to_list(),
        "report": result.report,
    }
    return {"id": record.id, "text": result.deidentified_text, "meta": meta}


def deidentify_texts(
    nlp, texts: Iterable[str], *, batch_size: int = 8, ids: Optional[Iterable[str]] = None
) -> Iterator[DeidResult]:
    """De-identify texts in order, cutting those over `nlp.max_length` into pieces.

    nlp (Language): A pipeline containing `linkguard_deid` (see `load_pipeline`).
    texts (Iterable[str]): The texts.
    batch_size (int): Passed to `nlp.pipe`.
    ids (Optional[Iterable[str]]): Names used in warnings (default: position).
    YIELDS (DeidResult): One per text, in order.
    """
    comp = nlp.get_pipe(COMPONENT)
    key = comp.spans_key
    max_length = nlp.max_length
    id_iter = iter(ids) if ids is not None else None
    texts_by_index: Dict[int, str] = {}

    def stream() -> Iterator[Tuple[str, Tuple[int, int, int]]]:
        for i, text in enumerate(texts):
            doc_id = next(id_iter) if id_iter is not None else str(i)
            texts_by_index[i] = text
            pieces = split_pieces(text, max_length) if len(text) > max_length else [(0, len(text))]
            if len(pieces) > 1:
                warnings.warn(
                    Warnings.W151.format(doc_id=doc_id, n=len(text), max_length=max_length, pieces=len(pieces)),
                    LinkguardWarning,
                )
            for start, end in pieces:
                yield text[start:end], (i, start, len(pieces))

    pending: List[Tuple[int, Any]] = []
    for doc, (i, start, n_pieces) in nlp.pipe(stream(), as_tuples=True, batch_size=batch_size):
        if n_pieces == 1:
            text = texts_by_index.pop(i)
            yield DeidResult(
                text, doc._.deidentified_text, _doc_spans(doc, key), doc._.deid_offset_map, dict(doc._.deid_report)
            )
            continue
        pending.append((start, doc))
        if len(pending) < n_pieces:
            continue
        text = texts_by_index.pop(i)
        spans: List[PiiSpan] = []
        seconds = 0.0
        for piece_start, piece_doc in pending:
            spans.extend(s.shifted(piece_start) for s in _doc_spans(piece_doc, key))
            seconds += piece_doc._.deid_report["seconds"]
        pending = []
        spans = merge_overlaps(spans)
        new_text, offsets = comp.render(text, spans)
        yield DeidResult(text, new_text, spans, offsets, comp.report(text, spans, seconds, n_pieces))
