"""A synthetic corpus from a word-level Markov model trained on the bundled ECHR texts.

Paper-scale index benchmarks need ~13,759 documents of ~750 words; the bundled
collection has 1,635. An order-2 Markov chain over words and punctuation keeps
the word frequencies Zipfian and the text locally fluent, while most 8-grams
occur in one document only (as in the paper's index). Reusable:

    python benchmarks/synthetic.py --docs 13759 --words 750 --out synth.jsonl
    from benchmarks.synthetic import generate_corpus, write_corpus

All walkers step together with numpy, so 10M words take seconds. The output is
deterministic for a given seed and training corpus.
"""
import argparse
import json
import re
import sys
from pathlib import Path
from typing import Iterator, List, Optional

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TRAIN = REPO / "assets" / "echr" / "collection.jsonl"
_TOKEN = re.compile(r"\n+|\w+(?:[-'’]\w+)*|[^\w\s]")
_NO_SPACE_BEFORE = set(",.;:)]}%!?’”»")
_NO_SPACE_AFTER = set("([{“«")


class MarkovModel:
    """Order-2 word Markov chain: P(next | previous two tokens) = relative counts."""

    def __init__(self, texts: List[str]):
        vocab: dict = {}
        seq: List[int] = []
        for text in texts:
            for tok in _TOKEN.findall(text):
                if tok.startswith("\n"):
                    tok = "\n\n" if len(tok) > 1 else "\n"
                seq.append(vocab.setdefault(tok, len(vocab)))
        self.words = np.array(list(vocab), dtype=object)
        s = np.array(seq, dtype=np.int64)
        v = np.int64(len(vocab))
        keys = s[:-2] * v + s[1:-1]
        order = np.lexsort((s[2:], keys))
        self.keys = keys[order]
        self.nexts = s[2:][order]
        self.state_keys, self.state_start = np.unique(self.keys, return_index=True)
        self.state_end = np.append(self.state_start[1:], len(self.keys))
        self.seq, self.v = s, v

    def walk(self, n_docs: int, n_words: int, rng: np.random.Generator) -> np.ndarray:
        """Token ids, shape (n_docs, n_words); all documents step together."""
        out = np.empty((n_docs, n_words), dtype=np.int64)
        j = rng.integers(0, len(self.seq) - 2, n_docs)
        a, b = self.seq[j], self.seq[j + 1]
        for t in range(n_words):
            key = a * self.v + b
            s = np.searchsorted(self.state_keys, key)
            s = np.minimum(s, len(self.state_keys) - 1)
            found = self.state_keys[s] == key
            start, end = self.state_start[s], self.state_end[s]
            pick = start + (rng.random(n_docs) * (end - start)).astype(np.int64)
            nxt = np.where(found, self.nexts[np.minimum(pick, len(self.nexts) - 1)], 0)
            if not found.all():  # dead end (end of the training text): jump anywhere
                jj = rng.integers(0, len(self.seq) - 2, int((~found).sum()))
                nxt[~found] = self.seq[jj]
            out[:, t] = nxt
            a, b = b, nxt
        return out

    def detokenize(self, ids: np.ndarray) -> str:
        parts: List[str] = []
        prev = "\n"
        for w in self.words[ids]:
            if not (w in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER or prev.startswith("\n") or w.startswith("\n")):
                parts.append(" ")
            parts.append(w)
            prev = w
        return "".join(parts).strip()


def read_texts(path: Path, limit: Optional[int] = None) -> List[str]:
    texts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["text"])
                if limit and len(texts) >= limit:
                    break
    return texts


def generate_corpus(n_docs: int, n_words: int, *, seed: int = 0, train: Path = DEFAULT_TRAIN,
                    batch: int = 2048) -> Iterator[dict]:
    """Yield {"id": "synth-<i>", "text"} documents of `n_words` tokens each."""
    model = MarkovModel(read_texts(train))
    rng = np.random.default_rng(seed)
    for a in range(0, n_docs, batch):
        ids = model.walk(min(batch, n_docs - a), n_words, rng)
        for i, row in enumerate(ids):
            yield {"id": f"synth-{a + i:06d}", "text": model.detokenize(row)}


def write_corpus(path: Path, n_docs: int, n_words: int, *, seed: int = 0, train: Path = DEFAULT_TRAIN) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for doc in generate_corpus(n_docs, n_words, seed=seed, train=train):
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return path


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=13759)
    p.add_argument("--words", type=int, default=750)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    write_corpus(args.out, args.docs, args.words, seed=args.seed, train=args.train)
    print(json.dumps({"out": str(args.out), "docs": args.docs, "words": args.words}), file=sys.stderr)


if __name__ == "__main__":
    main()
