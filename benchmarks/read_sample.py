"""Changed paragraphs of a rewrite output, drawn at random, to be read by hand; prints them as text.

    python benchmarks/read_sample.py corpus/echr/queries.jsonl OUTPUT.jsonl --n 20 --seed 32 > read.txt

A changed paragraph is an aligned (input, output) pair of the paragraph
similarity metric (`experiments.metrics.similarity_pairs`: input paragraphs
of 8+ words) whose texts differ. The pairs of every document of OUTPUT (in
its order) are pooled and `random.Random(seed).sample(pairs, n)` draws them;
each is printed with its document id as `IN :` and `OUT:`. The first line
gives how many changed paragraphs there are. What a reader then judges:
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
    args = ap.parse_args()
    pairs = changed_pairs(args.queries, args.output)
    drawn = random.Random(args.seed).sample(pairs, min(args.n, len(pairs)))
    print(f"changed paragraphs {len(pairs)}; drawn {len(drawn)} with random.Random({args.seed}).sample")
    for k, (doc, a, b) in enumerate(drawn, 1):
        print(f"\n### {k} {doc}\nIN : {a}\nOUT: {b}")


if __name__ == "__main__":
    main()
