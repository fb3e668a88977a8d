"""Count court wording that a rewrite brought into documents whose input has none; prints ONE JSON object.

The sentence task's few-shot examples set the register the model writes in:
with sentences of judgments as examples it wrote "the applicant" or "the
court decided" into biographies. A word counts in a rewritten document when
it occurs there as a whole word (case-folded) and nowhere in the input.

    python benchmarks/court_wording.py QUERIES.jsonl OUT.jsonl [OUT2.jsonl ...] [--ids-from OUT.jsonl]

QUERIES: the inputs {"id", "text"}; each OUT: a rewrite output {"id", "text"}
(.jsonl or .jsonl.gz). --ids-from: count only the documents of that file, so
that outputs of different lengths compare on the same documents.
"""
import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, Optional, Set

WORDS = ("applicant", "applicants", "defendant", "defendants", "plaintiff", "tribunal", "court", "courts",
         "the government", "claimant", "judgment", "convention")


def read_jsonl(path: Path) -> Iterable[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def found(word: str, text: str) -> int:
    return len(re.findall(r"\b" + re.escape(word) + r"\b", text.casefold()))


def count(inputs: Dict[str, str], outputs: Dict[str, str], ids: Optional[Set[str]] = None) -> dict:
    """RETURNS {docs, docs_with, occurrences, by_word} over the outputs' documents (or `ids`)."""
    by_word: Counter = Counter()
    docs = docs_with = 0
    for doc_id, text in outputs.items():
        if ids is not None and doc_id not in ids:
            continue
        docs += 1
        new = {w: found(w, text) for w in WORDS if not found(w, inputs[doc_id])}
        new = {w: n for w, n in new.items() if n}
        docs_with += bool(new)
        by_word.update(new)
    return {"docs": docs, "docs_with": docs_with, "occurrences": sum(by_word.values()),
            "by_word": dict(by_word.most_common())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("queries", type=Path)
    ap.add_argument("outputs", type=Path, nargs="+")
    ap.add_argument("--ids-from", type=Path, default=None)
    args = ap.parse_args()
    inputs = {r["id"]: r["text"] for r in read_jsonl(args.queries)}
    ids = {r["id"] for r in read_jsonl(args.ids_from)} if args.ids_from else None
    result = {"words": list(WORDS), "ids_from": args.ids_from.name if args.ids_from else None, "outputs": {}}
    for path in args.outputs:
        result["outputs"][path.name] = count(inputs, {r["id"]: r["text"] for r in read_jsonl(path)}, ids)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
