"""A synthetic corpus from a word-level Markov model trained on the bundled ECHR texts.

Paper-scale index benchmarks need ~13,759 documents of ~750 words; the bundled
collection has 1,635. A Markov chain over words and punctuation keeps the word
frequencies Zipfian and the text locally plausible. With order 1 (default)
most 8-grams occur in one document only, as in the paper's index (58.3M
distinct N-grams, mean posting list 1.27); order 2 is more fluent but, trained
on 1,635 documents, copies long stretches of them (mean posting list ~3).
Only sentence-ending punctuation is kept by default: segments (which end at
punctuation) are then long enough for the paper's count of N-grams.
Reusable:

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
_SENTENCE_END = {".", "?", "!", ";", ":"}
_NO_SPACE_BEFORE = set(",.;:)]}%!?’”»")
_NO_SPACE_AFTER = set("([{“«")


class MarkovModel:
    """Word Markov chain of order 1 or 2: P(next | previous tokens) = relative counts."""

    def __init__(self, texts: List[str], order_k: int = 1, sentence_punct_only: bool = True):
        if order_k not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order_k}")
        vocab: dict = {}
        seq: List[int] = []
        for text in texts:
            for tok in _TOKEN.findall(text):
                if tok.startswith("\n"):
                    tok = "\n\n" if len(tok) > 1 else "\n"
                elif sentence_punct_only and not tok[0].isalnum() and tok not in _SENTENCE_END:
                    continue
                seq.append(vocab.setdefault(tok, len(vocab)))
        self.words = np.array(list(vocab), dtype=object)
        s = np.array(seq, dtype=np.int64)
        v = np.int64(len(vocab))
        self.order = order_k
        if order_k == 1:
            keys, nexts = s[:-1], s[1:]
        else:
            keys, nexts = s[:-2] * v + s[1:-1], s[2:]
        order = np.lexsort((nexts, keys))
        self.keys = keys[order]
        self.nexts = nexts[order]
        self.state_keys, self.state_start = np.unique(self.keys, return_index=True)
        self.state_end = np.append(self.state_start[1:], len(self.keys))
        self.seq, self.v = s, v
        is_word = np.array([w[0].isalnum() for w in vocab], dtype=bool)
        self.word_share = float(is_word[s].mean())

    def walk(self, n_docs: int, n_words: int, rng: np.random.Generator) -> np.ndarray:
        """Token ids, shape (n_docs, n_words); all documents step together."""
        out = np.empty((n_docs, n_words), dtype=np.int64)
        j = rng.integers(0, len(self.seq) - 2, n_docs)
        a, b = self.seq[j], self.seq[j + 1]
        for t in range(n_words):
            key = b if self.order == 1 else a * self.v + b
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

    def detokenize(self, ids: np.ndarray, n_words: Optional[int] = None) -> str:
        """Text of the tokens, cut after `n_words` words (tokens with a letter or digit)."""
        parts: List[str] = []
        prev = "\n"
        count = 0
        for w in self.words[ids]:
            if n_words is not None and w[0].isalnum():
                count += 1
                if count > n_words:
                    break
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
                    order: int = 1, all_punct: bool = False, batch: int = 2048) -> Iterator[dict]:
    """Yield {"id": "synth-<i>", "text"} documents of about `n_words` words each."""
    model = MarkovModel(read_texts(train), order, sentence_punct_only=not all_punct)
    rng = np.random.default_rng(seed)
    # walk enough tokens for n_words words (punctuation and line breaks are not words)
    steps = int(n_words / model.word_share * 1.15) + 10
    for a in range(0, n_docs, batch):
        ids = model.walk(min(batch, n_docs - a), steps, rng)
        for i, row in enumerate(ids):
            yield {"id": f"synth-{a + i:06d}", "text": model.detokenize(row, n_words)}


def write_corpus(path: Path, n_docs: int, n_words: int, *, seed: int = 0, train: Path = DEFAULT_TRAIN,
                 order: int = 1, all_punct: bool = False) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for doc in generate_corpus(n_docs, n_words, seed=seed, train=train, order=order, all_punct=all_punct):
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return path


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--docs", type=int, default=13759)
    p.add_argument("--words", type=int, default=750)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    p.add_argument("--order", type=int, default=1, choices=[1, 2],
                   help="1 (default): most 8-grams in one document, as in the paper's index; "
                        "2: more fluent, but copies long stretches of the training text")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--all-punct", action="store_true",
                   help="keep commas, brackets, quotes... (default: only sentence ends, so segments are "
                        "long and the N-gram count reaches the paper's 58M at 13,759 x 750)")
    args = p.parse_args(argv)
    write_corpus(args.out, args.docs, args.words, seed=args.seed, train=args.train, order=args.order,
                 all_punct=args.all_punct)
    print(json.dumps({"out": str(args.out), "docs": args.docs, "words": args.words}), file=sys.stderr)


if __name__ == "__main__":
    main()
