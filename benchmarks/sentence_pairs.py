"""How close in meaning each rewritten sentence stays to its input sentence; prints ONE JSON object.

The sentence task rewrites a flagged sentence as one sentence, so a changed
paragraph whose input and output split into the same number of sentences
(`llm.chunking.sentence_bounds`) pairs them by position. For every changed
sentence pair: the cosine of the ranking's sentence embedder (the
`rewrite.ranking.SentenceEmbedder`, all-MiniLM-L6-v2), the quantity a meaning
floor in the ranking would test. Prints the pairs counted, the quantiles of
the cosine and the share below each threshold; with `--read N --band LO HI`
also writes N pairs with LO <= cosine < HI (drawn with `random.Random(seed)`)
to `--read-out` as text, to be judged by hand.

    python benchmarks/sentence_pairs.py corpus/wiki/queries.jsonl OUTPUT.jsonl --read 20 --band 0 0.5 --seed 32 --read-out pairs.txt
"""
import argparse
import json
import random
import sys
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)


def sentence_pairs(queries: Path, output: Path) -> Tuple[List[Tuple[str, str, str]], int, int]:
    """(document id, input sentence, output sentence) of every changed sentence
    pair of the changed paragraphs whose sentence counts agree; and the numbers
    of changed paragraphs and of those paired."""
    from read_sample import changed_pairs

    from spacy_linkguard.llm.chunking import sentence_bounds

    pairs, paragraphs, paired = [], 0, 0
    for doc_id, before, after in changed_pairs(queries, output):
        paragraphs += 1
        a = [before[s:e] for s, e in sentence_bounds(before)]
        b = [after[s:e] for s, e in sentence_bounds(after)]
        if len(a) != len(b):
            continue
        paired += 1
        pairs.extend((doc_id, x, y) for x, y in zip(a, b) if x != y)
    return pairs, paragraphs, paired


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("queries", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--read", type=int, default=0, help="pairs to write out for reading")
    ap.add_argument("--band", type=float, nargs=2, default=(0.0, 0.5), metavar=("LO", "HI"))
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--read-out", type=Path, default=None)
    args = ap.parse_args()

    from spacy_linkguard.rewrite.ranking import SentenceEmbedder

    pairs, paragraphs, paired = sentence_pairs(args.queries, args.output)
    cos = SentenceEmbedder(args.model).cosines([(x, y) for _, x, y in pairs]) if pairs else []
    ranked = sorted(cos)

    def quantile(q: float) -> float:
        return round(ranked[min(len(ranked) - 1, int(q * len(ranked)))], 3) if ranked else float("nan")

    result = {"output": args.output.name, "changed_paragraphs": paragraphs, "paired_paragraphs": paired,
              "changed_sentence_pairs": len(pairs),
              "cosine_quantiles": {str(q): quantile(q) for q in (0.05, 0.1, 0.25, 0.5)},
              "share_below": {str(t): round(sum(c < t for c in cos) / len(cos), 3) if cos else None
                              for t in THRESHOLDS}}
    if args.read:
        lo, hi = args.band
        band = [(p, c) for p, c in zip(pairs, cos) if lo <= c < hi]
        drawn = random.Random(args.seed).sample(band, min(args.read, len(band)))
        lines = [f"sentence pairs with {lo} <= cosine < {hi}: {len(band)}; drawn {len(drawn)} with "
                 f"random.Random({args.seed}).sample", ""]
        for i, ((doc_id, x, y), c) in enumerate(drawn, 1):
            lines += [f"### {i} {doc_id} cosine {c:.3f}", f"IN : {x}", f"OUT: {y}", ""]
        text = "\n".join(lines)
        if args.read_out:
            args.read_out.write_text(text, encoding="utf-8")
        else:
            print(text, file=sys.stderr)
        result["band"] = {"lo": lo, "hi": hi, "pairs": len(band), "drawn": len(drawn), "seed": args.seed}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
