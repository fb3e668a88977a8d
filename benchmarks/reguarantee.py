"""Guarantee mode run again on a rewrite's output, with another unit or hitting-set weighing.

    python benchmarks/reguarantee.py OUT.jsonl NEW.jsonl --index indexes/echr --max-arity 3 \
        --unit token --span-cost weighted

Each output line of `rewrite` keeps `text_before_guarantee` (what the LLM
passes left) and its `sources`. This runs guarantee mode again on that text,
under the line's verdict, and writes the line with the new `text` and
`forced_redactions`, so that `evaluate` and `read_sample.py` read the variant
as they read a row: what guarantee mode's settings change in the released
text, without the model. Prints ONE JSON object (means per document).
"""
import argparse
import gzip
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import open_index
    from spacy_linkguard.rewrite.guarantee import redact_until_safe

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--max-arity", type=int, required=True)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--unit", default="span", choices=["span", "token"])
    ap.add_argument("--span-cost", default="uniform", choices=["uniform", "weighted"])
    args = ap.parse_args()
    index = open_index(args.index)
    detector = Detector(index, k=args.k, max_arity=args.max_arity, span_cost=args.span_cost)
    opener = gzip.open if args.output.suffix == ".gz" else open
    n = forced = 0
    with opener(args.output, "rt", encoding="utf-8") as f, args.new.open("w", encoding="utf-8") as out:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            sources = rec.get("sources") if rec.get("verdict") == "source" else None
            text, made, _, _ = redact_until_safe(rec["text_before_guarantee"], detector, index.settings.placeholder,
                                                 sources=sources, unit=args.unit)
            rec.update(text=text, forced_redactions=made)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
            forced += made
            print(f"{n} {rec['id']} {made}", file=sys.stderr)
    print(json.dumps({"file": str(args.output), "unit": args.unit, "span_cost": args.span_cost, "docs": n,
                      "forced_redactions": forced / max(1, n)}))


if __name__ == "__main__":
    main()
