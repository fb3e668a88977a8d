"""Changed paragraphs of a rewrite output, drawn at random, to be read by hand; prints them as text.

    python benchmarks/read_sample.py corpus/echr/queries.jsonl OUTPUT.jsonl --n 20 --seed 32 > read.txt

A changed paragraph is an aligned (input, output) pair of the paragraph
similarity metric (`experiments.metrics.similarity_pairs`: input paragraphs
of 8+ words) whose texts differ. The pairs of every document of OUTPUT (in
its order) are pooled and `random.Random(seed).sample(pairs, n)` draws them;
each is printed with its document id as `IN :` and `OUT:`. The first line
gives how many changed paragraphs there are.

With `--against OTHER [OTHER ...]` (rows of the same documents) the draw is
paired: among the input paragraphs changed in every row, each drawn paragraph
is printed once with every row's output, labelled A, B, ... in an order
shuffled per paragraph (same seed), and the key (which label is which row)
comes last, so that the rows can be judged side by side without knowing
which is which. What a reader then judges:
is the output grammatical English, and does it state nothing the input does
not (a placeholder where a phrase was is allowed; a changed fact is not)?
"""
import argparse
import random
import sys
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def changed_pairs(queries: Path, output: Path) -> List[Tuple[str, str, str]]:
    """(document id, input paragraph, output paragraph) for every changed aligned pair, in OUTPUT's order."""
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.experiments.metrics import similarity_pairs

    inputs = {rec.id: rec.text for rec in iter_records(queries)}
    return [(rec.id, a, b) for rec in iter_records(output)
            for a, b in similarity_pairs(inputs[rec.id], rec.text) if a != b]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("queries", type=Path, help="The inputs (JSONL with id and text).")
    ap.add_argument("output", type=Path, help="A rewrite output (JSONL with id and text).")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--against", type=Path, nargs="+", default=[],
                    help="Other rows of the same documents: a paired, shuffled draw (see above).")
    args = ap.parse_args()
    if args.against:
        paired(args.queries, [args.output] + list(args.against), args.n, args.seed)
        return
    pairs = changed_pairs(args.queries, args.output)
    drawn = random.Random(args.seed).sample(pairs, min(args.n, len(pairs)))
    print(f"changed paragraphs {len(pairs)}; drawn {len(drawn)} with random.Random({args.seed}).sample")
    for k, (doc, a, b) in enumerate(drawn, 1):
        print(f"\n### {k} {doc}\nIN : {a}\nOUT: {b}")


def paired(queries: Path, outputs: List[Path], n: int, seed: int) -> None:
    """Print n input paragraphs changed in every row, each row's output under a shuffled label."""
    rows = []
    for out in outputs:
        by_input = {}
        for doc, a, b in changed_pairs(queries, out):
            by_input.setdefault((doc, a), b)
        rows.append(by_input)
    common = [key for key in rows[0] if all(key in r for r in rows[1:])]
    rng = random.Random(seed)
    drawn = rng.sample(common, min(n, len(common)))
    print(f"paragraphs changed in all {len(outputs)} rows {len(common)}; drawn {len(drawn)} with "
          f"random.Random({seed}).sample, labels shuffled with the same generator")
    keys = []
    for k, (doc, a) in enumerate(drawn, 1):
        order = list(range(len(outputs)))
        rng.shuffle(order)
        print(f"\n### {k} {doc}\nIN : {a}")
        for label, i in zip("ABCDEFGH", order):
            print(f"{label}: {rows[i][(doc, a)]}")
        keys.append(" ".join(f"{label}={outputs[i].name}" for label, i in zip("ABCDEFGH", order)))
    print("\n### key")
    for k, key in enumerate(keys, 1):
        print(f"{k}: {key}")


if __name__ == "__main__":
    main()
