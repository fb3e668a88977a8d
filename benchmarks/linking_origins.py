"""Where the linking phrases of rewritten paragraphs come from (no LLM).

    python benchmarks/linking_origins.py --index indexes/echr --queries corpus/echr/queries.jsonl \
        reports/echr-qwen25-gpu/outputs/out_llm_nospans.jsonl

For each changed paragraph of a rewrite output (before guarantee mode; the
paragraphs aligned one to one, as `evaluate` aligns them), every minimal rare
N-gram of the output paragraph that links under the line's verdict (its
"sources", else its id when the index holds it, as `--verdict auto`; arity 1,
k = 2) is counted as:
- "kept_reported" / "kept_unreported": it links in the same input paragraph
  too, where detection reported it (a flagged span) / did not (it overlaps a
  reported one: the detector reports non-overlapping spans, SPEC.md);
- "borrowed": it links in another paragraph of the input document (what the
  sentence rewriter now bans in every sentence of the document);
- "new": it links in no paragraph of the input: a phrase of the source
  document that the de-identified input does not hold (the collection's
  judgment is longer than the released part), or a new rare phrase.

Also counted over the input paragraphs: every minimal linking N-gram
occurrence ("input_minimal_linking") and those reported ("input_reported").

Prints ONE JSON object: the counts per file and the documents read.
"""
import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Optional, Set, Tuple


def linking_keys(detector: Any, text: str, sources: Optional[list]) -> Tuple[Set[str], Set[str]]:
    """(keys of every minimal linking N-gram, keys of those detection reports)."""
    res = detector.analyze(text, sources)
    return {o[2] for o in res.linking_rare}, {o[2] for o in res.chosen_rare}


def origins(rows, queries: Dict[str, str], detector: Any) -> Dict[str, int]:
    counts: Counter = Counter()
    for row in rows:
        sources = row.get("sources") or ([row["id"]] if detector.has_document(row["id"]) else None)
        counts["source_verdict" if sources else "any_verdict"] += 1
        before = queries[row["id"]].split("\n\n")
        after = (row.get("text_before_guarantee") or row["text"]).split("\n\n")
        if len(before) != len(after):
            counts["documents_unaligned"] += 1
            continue
        counts["documents"] += 1
        own = []
        for p in before:
            res = detector.analyze(p, sources)
            counts["input_minimal_linking"] += len(res.linking_rare)
            counts["input_reported"] += len(res.chosen_rare)
            own.append(({o[2] for o in res.linking_rare}, {o[2] for o in res.chosen_rare}))
        anywhere = set().union(*(keys for keys, _ in own)) if own else set()
        for old, new, (keys, reported) in zip(before, after, own):
            if old == new:
                continue
            counts["changed_paragraphs"] += 1
            for key in linking_keys(detector, new, sources)[0]:
                if key in keys:
                    counts["kept_reported" if key in reported else "kept_unreported"] += 1
                else:
                    counts["borrowed" if key in anywhere else "new"] += 1
    return dict(counts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outputs", nargs="+", type=Path)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--k", type=int, default=2)
    args = ap.parse_args()
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import open_index

    detector = Detector(open_index(args.index), k=args.k, max_arity=1)
    queries = {}
    with args.queries.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                queries[r["id"]] = r["text"]
    result: Dict[str, Any] = {"index": args.index.name, "k": args.k, "files": {}}
    for path in args.outputs:
        with path.open(encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        result["files"][path.name] = origins(rows, queries, detector)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
