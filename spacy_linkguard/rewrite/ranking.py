"""Which surviving candidate sentence to keep: the closest in meaning, the most fluent.

A sentence's candidates reach the ranking only once they passed every filter
(guards, fact guard, the index, the vocabulary). Among them,

    score = w_meaning * cos(original, candidate)       (sentence embeddings)
          + w_kept    * kept(original, candidate)      (difflib ratio of the word sequences)
          - w_loss    * max(0, loss(candidate) - loss(original))

where loss is the rewriting model's own mean negative log-likelihood per token
of the sentence as the answer to the prompt (`HFChatModel.loss`): how much less
natural the candidate is to the model than the sentence it replaces. Only a
rise counts: a candidate more fluent than a clumsy original gains nothing over
a faithful one. The evaluation's perplexity judge (Gemma) is deliberately not
used here.

The weights (1.0, 0.5, 0.5 by default): a candidate that drops a qualifier
("partly", "alleged") loses about 0.02-0.05 of cosine and about 0.05 of kept
words, so it loses to one that keeps it unless it is clearly more fluent; a
garbled candidate's loss rises by a nat or more per token, which outweighs
any closeness. `tests/rewrite/test_ranking.py` shows the weighing on such
examples. With `max_loss_rise`, a candidate whose loss rises by more than
that is no candidate at all (`filters/f9_fluency.py`, ``ungrammatical``):
its score is None. A term whose model is missing (no embedder; a backend without
`loss`, such as llama.cpp or an OpenAI-compatible server) is left out.
"""
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, List, Optional, Sequence, Tuple

from .. import profiling
from ..errors import Errors, LinkguardError
from ..filters.f1_reply import words
from ..filters.f9_fluency import check_fluency, check_max_loss_rise


@dataclass(frozen=True)
class RankWeights:
    """The weights of the three terms of a candidate's score (see the module)."""

    meaning: float = 1.0
    kept: float = 0.5
    loss: float = 0.5

    def __post_init__(self) -> None:
        for name in ("meaning", "kept", "loss"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise LinkguardError(Errors.E207.format(name=f"rank weight {name}", expected="a number >= 0",
                                                        value=value))


class SentenceEmbedder:
    """A sentence-transformers model for short texts (one sentence each).

    name (str): An installed model package or a Hugging Face cache name
        (`llm/local_models.locate_sentence_model`), e.g. "all-MiniLM-L6-v2".
    device (str): "cpu", "cuda", ...
    RAISES: LinkguardError E250 when the model is not on this machine.
    """

    def __init__(self, name: str, *, device: str = "cpu", batch_size: int = 256) -> None:
        from ..llm.local_models import locate_sentence_model, offline_env

        avail = locate_sentence_model(name)
        if not avail.available:
            raise LinkguardError(Errors.E250.format(name=name, reason=avail.reason))
        offline_env()
        from sentence_transformers import SentenceTransformer

        self.name = name
        self.model = SentenceTransformer(str(avail.path), device=device)
        self.batch_size = batch_size

    def cosines(self, pairs: Sequence[Tuple[str, str]]) -> List[float]:
        """The cosine of each (a, b) pair, all texts embedded in one call."""
        if not pairs:
            return []
        texts = [t for pair in pairs for t in pair]
        vecs = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False)
        return [float(vecs[2 * i] @ vecs[2 * i + 1]) for i in range(len(pairs))]


def kept(original: str, candidate: str) -> float:
    """The difflib ratio of the two word sequences (1: the same words in order)."""
    return SequenceMatcher(None, words(original), words(candidate), autojunk=False).ratio()


class CandidateRanker:
    """Score candidate sentences and keep the best of each sentence (see the module).

    embedder: a `SentenceEmbedder` (anything with `cosines(pairs)`), or None.
    model: the rewriting model (anything with `loss(prompts, completions)`), or None.
    weights (RankWeights): The terms' weights.
    max_loss_rise (Optional[float]): The fluency filter (`filters/f9_fluency.py`);
        None: none. Needs a model with `loss`.
    RAISES: LinkguardError E207 for a bad `max_loss_rise`.
    """

    def __init__(self, embedder: Any = None, model: Any = None, weights: RankWeights = RankWeights(),
                 max_loss_rise: Optional[float] = None) -> None:
        self.embedder = embedder
        self.model = model if hasattr(model, "loss") else None
        self.weights = weights
        self.max_loss_rise = check_max_loss_rise(max_loss_rise)

    def scores(self, items: Sequence[Tuple[str, str, Sequence[str]]]) -> List[List[Optional[float]]]:
        """The score of every candidate, batched over all sentences.

        items: (original sentence, prompt, candidates) per sentence.
        RETURNS (List[List[Optional[float]]]): One score per candidate, per
            sentence; None for a candidate the fluency filter rejects.
        """
        flat = [(orig, prompt, cand) for orig, prompt, cands in items for cand in cands]
        w = self.weights
        with profiling.phase("ranking_kept"):
            total: List[Optional[float]] = [w.kept * kept(orig, cand) for orig, _, cand in flat]
        if self.embedder is not None and w.meaning and flat:
            with profiling.phase("embeddings", sync=True):
                cosines = self.embedder.cosines([(orig, cand) for orig, _, cand in flat])
            for i, cos in enumerate(cosines):
                total[i] += w.meaning * cos
        if self.model is not None and (w.loss or self.max_loss_rise is not None) and flat:
            originals = [(prompt, orig) for orig, prompt, cands in items if cands]
            base = self.model.loss([p for p, _ in originals], [o for _, o in originals])
            base_of = {key: b for key, b in zip(originals, base)}
            losses = self.model.loss([p for _, p, _ in flat], [c for _, _, c in flat])
            for i, ((orig, prompt, _), loss) in enumerate(zip(flat, losses)):
                rise = loss - base_of[(prompt, orig)]
                if check_fluency(rise, self.max_loss_rise) is not None:
                    total[i] = None
                else:
                    total[i] -= w.loss * max(0.0, rise)  # type: ignore[operator]
        out, pos = [], 0
        for _, _, cands in items:
            out.append(total[pos : pos + len(cands)])
            pos += len(cands)
        return out

    def best(self, items: Sequence[Tuple[str, str, Sequence[str]]]) -> List[Optional[Tuple[int, float]]]:
        """The index and score of each sentence's best candidate (the first on
        ties), or None for a sentence without candidates (or none fluent)."""
        return [best_index(scores) for scores in self.scores(items)]


def best_index(scores: Sequence[Optional[float]]) -> Optional[Tuple[int, float]]:
    """The index and score of the highest score (the first on ties; None
    scores skipped), or None when there is none."""
    live = [j for j, s in enumerate(scores) if s is not None]
    if not live:
        return None
    i = max(live, key=lambda j: (scores[j], -j))
    return i, scores[i]  # type: ignore[return-value]
