"""The development sample: the same seeded documents for every variant of the rewrite.

24 ECHR documents of the 127 test queries and 24 biographies of the first 144
of the Wikipedia queries (those the committed whole-sentence rows hold), drawn
with `random.Random(seed)`; written as query files, and the committed rows'
outputs of the same documents beside them (the "before" of an A/B):

    python benchmarks/dev_sample.py --seed 45 --out benchmarks/data/dev
"""
import argparse
import gzip
import json
import random
from pathlib import Path

ROWS = {
    "echr": ("assets/echr/queries.jsonl", 127, {
        "a3": "reports/echr-qwen25-gpu/outputs/out_llm_a3.jsonl",
        "a1": "reports/echr-qwen25-gpu/outputs/out_llm_a1.jsonl",
    }),
    "wiki": ("assets/wiki/queries.jsonl", 144, {
        "a3": "benchmarks/results/gpu_graphs/wiki_a3_first144.jsonl.gz",
        "a1": "benchmarks/results/gpu_graphs/wiki_a1_first120.jsonl.gz",
    }),
}


def read_jsonl(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--out", default="benchmarks/data/dev")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"seed": args.seed, "n": args.n}
    for name, (queries, first, rows) in ROWS.items():
        recs = read_jsonl(queries)
        a3_ids = [r["id"] for r in read_jsonl(rows["a3"])][:first]
        pool = [r for r in recs if r["id"] in set(a3_ids)]
        picked = sorted(random.Random(args.seed).sample(range(len(pool)), args.n))
        sample = [pool[i] for i in picked]
        ids = {r["id"] for r in sample}
        with (out / f"{name}_queries.jsonl").open("w", encoding="utf-8") as f:
            for r in sample:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        summary[name] = [r["id"] for r in sample]
        for row, path in rows.items():
            before = [r for r in read_jsonl(path) if r["id"] in ids]
            with (out / f"{name}_{row}_before.jsonl").open("w", encoding="utf-8") as f:
                for r in before:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            summary[f"{name}_{row}_before"] = len(before)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
