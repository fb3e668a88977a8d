"""What the hitting set's span_cost changes: which phrases the COMBO spans flag.

    python benchmarks/hitting_costs.py --index indexes/echr --queries assets/echr/queries.jsonl \
        > benchmarks/results/hitting_costs.json

Detects every query (k = 2, max arity 3, the source verdict: each query's id
is its source) once per setting of `Detector(span_cost=...)`: "uniform" (the
default: the phrase in most minimal linkable combinations first) and
"weighted" (most per unit of cost, cost = occurrences in the text x
log1p(df)). With `--linear` a third row, "weighted_linear", weighs by
occurrences x df / documents, the alternative `detector.candidate_costs`
explains it did not take (patched in here; not a setting). Per setting, means a document: COMBO phrases chosen,
COMBO occurrences flagged, characters they cover (and with the NGRAM spans),
the share of flagged COMBO occurrences whose phrase has df >= 20, the median
df of the flagged occurrences, seconds; and the most chosen phrases (documents
choosing each, occurrences flagged), ranked by documents and by
occurrences, and the occurrences flagged of a few phrases named in WATCHED. The minimal linkable combinations must
be the same under every setting (asserted): only the picks differ.

`--sample N --seed S` detects a seeded sample of N queries instead of all.
Prints ONE JSON object on stdout; progress goes to stderr.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

COMMON_DF = 20
# The most chosen phrases of the issue that asked for this (uniform, by occurrences).
WATCHED = ("the applicants", "she", "her", "however", "respectively", "were represented by their agent",
           "the protection of human rights and fundamental freedoms")


def covered(spans: List[Any]) -> int:
    """Characters inside at least one of the spans."""
    n = end = 0
    for s in sorted(spans, key=lambda s: (s.start_char, s.end_char)):
        if s.end_char > end:
            n += s.end_char - max(s.start_char, end)
            end = s.end_char
    return n


def measure(detector: Any, rows: List[Dict[str, Any]], name: str) -> Dict[str, Any]:
    """Per-document means and the most chosen phrases of one setting."""
    per_doc: List[Dict[str, float]] = []
    chosen_docs: Counter = Counter()
    chosen_occ: Counter = Counter()
    dfs: List[int] = []
    minimal = []
    t0 = time.process_time()
    for i, row in enumerate(rows):
        res = detector.detect(row["text"], [row["id"]])
        combo = [s for s in res.spans if s.label == "COMBO"]
        keys = {s.key for s in combo}
        chosen_docs.update(keys)
        chosen_occ.update(s.key for s in combo)
        dfs.extend(s.df for s in combo)
        minimal.append(res.report["minimal_linkable"])
        per_doc.append({"combo_phrases": len(keys), "combo_occurrences": len(combo), "combo_chars": covered(combo),
                        "all_spans": len(res.spans), "all_chars": covered(res.spans),
                        "common_occurrences": sum(s.df >= COMMON_DF for s in combo),
                        "streamed": int(not res.report["counts_exact"])})
        print(f"\r{name}: {i + 1}/{len(rows)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    seconds = time.process_time() - t0
    n = max(1, len(rows))
    mean = {f: round(sum(d[f] for d in per_doc) / n, 2) for f in per_doc[0]}
    n_occ = sum(d["combo_occurrences"] for d in per_doc)
    return {
        "per_document": mean,
        "share_of_combo_occurrences_with_df_ge_20": round(sum(d["common_occurrences"] for d in per_doc)
                                                          / max(1, n_occ), 4),
        "median_df_of_combo_occurrences": statistics.median(dfs) if dfs else None,
        "top15": [{"key": k, "documents": c, "occurrences": chosen_occ[k]} for k, c in chosen_docs.most_common(15)],
        "watched_occurrences": {k: chosen_occ[k] for k in WATCHED},
        "top15_by_occurrences": [{"key": k, "documents": chosen_docs[k], "occurrences": c}
                                 for k, c in chosen_occ.most_common(15)],
        "cpu_seconds_per_document": round(seconds / n, 3),
        "_minimal": minimal,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--max-arity", type=int, default=3)
    ap.add_argument("--sample", type=int, default=0, help="a seeded sample of this many queries (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--linear", action="store_true", help="also weigh by occurrences x df / documents")
    args = ap.parse_args()

    from spacy_linkguard.detect import Detector
    from spacy_linkguard.detect import detector as detector_module
    from spacy_linkguard.index import open_index

    rows = [json.loads(line) for line in args.queries.open(encoding="utf-8") if line.strip()]
    if args.sample:
        rows = random.Random(args.seed).sample(rows, args.sample)
    index = open_index(args.index)
    load = [round(x, 2) for x in os.getloadavg()]
    out: Dict[str, Any] = {"queries": str(args.queries), "n_documents": len(rows),
                           "sample": {"n": args.sample, "seed": args.seed} if args.sample else None,
                           "k": args.k, "max_arity": args.max_arity, "verdict": "source",
                           "n_collection_documents": len(index.doc_ids), "settings": {}}
    variants = ["uniform", "weighted"] + (["weighted_linear"] if args.linear else [])
    shipped = detector_module.candidate_costs
    n_docs = len(index.doc_ids)
    for name in variants:
        if name == "weighted_linear":
            detector_module.candidate_costs = lambda occ, df: (np.asarray(occ, dtype=np.float64)
                                                               * np.asarray(df, dtype=np.float64) / n_docs)
        det = Detector(index, k=args.k, max_arity=args.max_arity, span_cost="uniform" if name == "uniform" else "weighted")
        out["settings"][name] = measure(det, rows, name)
        detector_module.candidate_costs = shipped
    minimal = [out["settings"][name].pop("_minimal") for name in variants]
    assert all(m == minimal[0] for m in minimal), "the minimal linkable combinations differ between settings"
    out["load_average"] = {"start": load, "end": [round(x, 2) for x in os.getloadavg()]}
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
