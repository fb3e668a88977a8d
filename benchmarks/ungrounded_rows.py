"""Ungrounded words / changed paragraph of committed rewrite rows (SPEC.md "Metrics").

    python benchmarks/ungrounded_rows.py ROW=QUERIES.jsonl:OUTPUT.jsonl [ROW=...] > figures.json

Prints JSON {row: {"ungrounded_per_changed_para", "share_ge3", "n_changed",
"n_docs", "queries", "output"}}: the metric `evaluate` reports
(`experiments.metrics.document_ungrounded`, `summarize_ungrounded`), over the
documents of OUTPUT (each paired with the document of QUERIES with its id;
an OUTPUT may cover some of them only, `n_docs` says how many). One
`Grounder` serves every row, and an input paragraph is read once. A
gzipped OUTPUT (`.jsonl.gz`) is read as it is.
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, Tuple

from court_wording import read_jsonl  # .jsonl or .jsonl.gz, one object a line

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def row_figures(queries: Path, output: Path, grounder, bases: Dict) -> Dict:
    from spacy_linkguard.experiments.metrics import document_ungrounded, summarize_ungrounded

    inputs = {str(o["id"]): o["text"] for o in read_jsonl(queries)}
    counts, n_docs = [], 0
    for obj in read_jsonl(output):
        doc_id = str(obj["id"])
        if doc_id not in inputs:
            raise SystemExit(f"{output}: document {doc_id!r} is not in {queries}")
        counts.extend(document_ungrounded(inputs[doc_id], obj["text"], grounder, bases))
        n_docs += 1
    s = summarize_ungrounded(counts)
    return {"ungrounded_per_changed_para": _round(s["ungrounded_per_changed_para"]),
            "share_ge3": _round(s["share_changed_paras_ungrounded_ge3"]), "n_changed": s["n_changed_paras"],
            "n_docs": n_docs}


def _round(value):
    return None if value is None else round(value, 4)


def parse_spec(spec: str) -> Tuple[str, Path, Path]:
    row, _, paths = spec.partition("=")
    queries, _, output = paths.partition(":")
    if not (row and queries and output):
        raise SystemExit(f"expected ROW=QUERIES.jsonl:OUTPUT.jsonl, got {spec!r}")
    return row, Path(queries), Path(output)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="+", help="ROW=QUERIES.jsonl:OUTPUT.jsonl")
    args = ap.parse_args()
    from spacy_linkguard.grounding import Grounder

    grounder, bases, out = Grounder(), {}, {}
    for spec in args.rows:
        row, queries, output = parse_spec(spec)
        t0 = time.perf_counter()
        out[row] = {**row_figures(queries, output, grounder, bases), "queries": str(queries), "output": str(output)}
        print(f"{row}: {out[row]} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
