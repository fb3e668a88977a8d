"""De-identifying the query documents that are not de-identified yet (the `deidentify` step).

The bundled `echr` queries are already masked with TAB's gold spans (their
`meta.deidentified` says so); masking them again with Presidio would change
the released documents the paper evaluates. Every other document goes
through the `linkguard_deid` component, as the `deidentify` command runs it.
"""
import sys
from typing import Any, Dict, List, Sequence, Tuple, Union

from ..corpus import Record

DEIDENTIFIED_BY = "linkguard_deid (Presidio)"  # meta.deidentified of the documents masked here


def is_deidentified(meta: dict) -> bool:
    """True when a record's meta says it is de-identified already (e.g. 'gold TAB manual spans -> [REDACTED]')."""
    value = meta.get("deidentified")
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and not value.strip().lower().startswith("no")


def deidentify_queries(
    records: Sequence[Record], *, model: str, placeholder: str = "[REDACTED]", progress: bool = True
) -> Tuple[List[Union[Record, Dict[str, Any]]], int]:
    """Every record de-identified, in input order.

    Records whose meta says they are de-identified are kept as they are; the
    others go through `linkguard_deid` (the pipeline `model` with the
    component's default settings, as the `deidentify` command runs it) and
    come back as `deidentify` writes them, with `meta.deidentified` set.
    RETURNS (Tuple[list, int]): (the records, how many were de-identified here).
    RAISES: LinkguardError E151 (model not installed) and those of the component.
    """
    pending = [r for r in records if not is_deidentified(r.meta)]
    done: Dict[str, Dict[str, Any]] = {}
    if pending:
        from tqdm import tqdm

        from ..deid.runner import deidentified_record, deidentify_texts, load_pipeline

        nlp = load_pipeline(model, config={"placeholder": placeholder})
        results = deidentify_texts(nlp, (r.text for r in pending), ids=(r.id for r in pending))
        bar = tqdm(results, total=len(pending), desc="deidentify", unit="doc", file=sys.stderr, disable=not progress)
        for rec, res in zip(pending, bar):
            obj = deidentified_record(rec, res)
            obj["meta"] = {**rec.meta, **obj["meta"], "deidentified": DEIDENTIFIED_BY}
            done[rec.id] = obj
    return [done.get(r.id, r) for r in records], len(pending)
