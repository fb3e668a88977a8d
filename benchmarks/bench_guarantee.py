"""Guarantee mode's two units on real rewrite outputs: placeholders and words lost.

    python benchmarks/bench_guarantee.py --index indexes/echr --max-arity 3 \
        reports/echr-qwen25-gpu/outputs/out_llm_a3.jsonl

Each output line of `rewrite` keeps `text_before_guarantee` (what the LLM
passes left) and its `sources`. This runs guarantee mode again on that text,
under the line's verdict, once per unit: "span" (each flagged span replaced
whole) and "token" (only its rarest token, then detect again), and counts per
document: placeholders guarantee mode added, words it removed (the words of
the text before that are not in the text after, by a word-level diff),
rounds, seconds. Every result is checked safe by the detector. The
placeholders it writes next to each other are joined in both units (as the
shipped code does).

Prints ONE JSON object on stdout: per input file and unit, the means per
document; progress goes to stderr.
"""
import argparse
import difflib
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List


def read_lines(path: Path) -> Iterator[Dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def words_removed(before: str, after: str, placeholder: str) -> int:
    """Words of `before` (whitespace-split, placeholders aside) that a word-level
    diff does not find in `after`."""
    a = [w for w in before.split() if w != placeholder]
    b = after.split()
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(i2 - i1 for op, i1, i2, _, _ in ops if op in ("replace", "delete"))


def measure(rows: List[Dict[str, Any]], detector: Any, placeholder: str, unit: str) -> Dict[str, Any]:
    from spacy_linkguard.rewrite.guarantee import redact_until_safe

    added = removed = rounds = unsafe = 0
    t0 = time.perf_counter()
    for row in rows:
        before, sources = row["text_before_guarantee"], row.get("sources")
        text, _, n_rounds, _ = redact_until_safe(before, detector, placeholder, sources=sources, unit=unit)
        unsafe += not detector.is_safe(text, sources)
        added += text.count(placeholder) - before.count(placeholder)
        removed += words_removed(before, text, placeholder)
        rounds += n_rounds
    n = max(1, len(rows))
    return {"placeholders_added": round(added / n, 2), "words_removed": round(removed / n, 2),
            "rounds": round(rounds / n, 2), "seconds": round((time.perf_counter() - t0) / n, 3), "unsafe": unsafe}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outputs", nargs="+", type=Path, help="rewrite output JSONL files (.gz too)")
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--max-arity", type=int, required=True, help="the arity the outputs were rewritten at")
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="the first N lines of each file")
    args = ap.parse_args()
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import open_index

    index = open_index(args.index)
    detector = Detector(index, k=args.k, max_arity=args.max_arity)
    placeholder = index.settings.placeholder
    result: Dict[str, Any] = {"index": args.index.name, "k": args.k, "max_arity": args.max_arity, "files": {}}
    for path in args.outputs:
        rows = [r for r in read_lines(path) if r.get("text_before_guarantee") is not None][: args.limit]
        print(f"[bench_guarantee] {path.name}: {len(rows)} documents", file=sys.stderr, flush=True)
        result["files"][path.name] = {"docs": len(rows),
                                      **{unit: measure(rows, detector, placeholder, unit) for unit in ("span", "token")}}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
