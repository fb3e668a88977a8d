"""Generated corpora with a tiny vocabulary, so that frequent N-grams and
linkable combinations are plentiful."""
import random
from typing import List, Tuple

VOCAB = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
BOUNDARIES = [",", ".", "\n", "[REDACTED]"]


def random_text(rng: random.Random, n_tokens: int, vocab=VOCAB, p_boundary: float = 0.12) -> str:
    out: List[str] = []
    for _ in range(n_tokens):
        if out and rng.random() < p_boundary:
            out.append(rng.choice(BOUNDARIES))
        out.append(rng.choice(vocab).capitalize() if rng.random() < 0.1 else rng.choice(vocab))
    return " ".join(out)


def random_corpus(seed: int, n_docs: int = 24, lo: int = 12, hi: int = 40) -> List[Tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"d{i}", random_text(rng, rng.randint(lo, hi))) for i in range(n_docs)]


def mask(rng: random.Random, text: str, p: float = 0.15, placeholder: str = "[REDACTED]") -> str:
    """Replace some words by the placeholder (a de-identified copy)."""
    return " ".join(placeholder if rng.random() < p else w for w in text.split(" "))
