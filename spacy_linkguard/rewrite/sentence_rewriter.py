"""`SentenceRewriter`: whole sentences under banned phrases, filtered, ranked.

The backend of the sentence task (`linkguard.RewriteSentences.v1`). For each
flagged sentence it samples `n_candidates` replies in one batched call, the
sentence's flagged phrases banned while decoding where the model can
(`HFChatModel`; other backends are checked after generation), and, beside
them, the truthful edits that need no model (`model_free.py`: a flagged
detail dropped or generalized). Every candidate passes the filters of
`filters/`, top to bottom (`filters/chain.py`): the reply's form, its facts,
its opposites, the words kept (words form), its words grounded in the input,
the banned phrases, the index, the vocabulary; the first that rejects names
the reason counted in the pass record. A sentence's banned phrases are its
flagged spans and every minimal linking N-gram (arity 1) of the flagged
sentences of its document, reported or not: writing one of those would link
again.

The survivors of every sentence are ranked together (`ranking.py`: close in
meaning, words kept, the model's own loss, a candidate far less fluent than
its input rejected) against the sentence as the last pass left it, or with
`rank_against="input"` against the input's sentence (`Chunk.original`). A
sentence none of whose candidates survives is asked again (`max_retries`),
and then once more for a more general sentence (`generalize`) before the
loop leaves it to the next pass or, after the last, to guarantee mode.
"""
import inspect
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import profiling
from ..errors import Errors, LinkguardError
from ..filters.chain import CandidateFilters
from ..filters.f5_grounded import GroundedGuard
from ..filters.reasons import UNGRAMMATICAL
from ..llm.chunking import Chunk
from ..llm.models.base import Generation
from ..ngrams import NgramSettings
from .backends import LLMRewriter
from .ranking import CandidateRanker, best_index
from .records import MODEL_FREE_REPLY, ChunkOutcome

# What a later pass ranks a rewritten sentence's candidates against.
RANK_AGAINST = ("input", "sentence")


class SentenceRewriter(LLMRewriter):
    """Regenerate flagged sentences; keep the best candidate that passes every filter.

    `filters` tells the loop to hand over its judge even with one candidate.

    task: `linkguard.RewriteSentences.v1` (`render(chunk, generalize=...)`, `banned(chunk)`).
    model: a `ChatModel`; `HFChatModel` enforces banned phrases while decoding
        and scores fluency (`loss`).
    max_retries (int): Further rounds for sentences with no surviving candidate.
    n_candidates (int): Candidates sampled per sentence and round.
    ranker (CandidateRanker): How survivors are ranked; None: words kept and
        the model's loss only (no sentence embeddings).
    generalize (bool): A last round that asks for a more general sentence.
    rank_against (str): "sentence" (default): candidates are ranked against
        the sentence as the last pass left it (`Chunk.text`); "input":
        against the input's sentence (`Chunk.original`), also in later passes.
    grounded (Optional[GroundedGuard]): The grounded-words filter
        (`filters/f5_grounded.py`); None: none.
    model_free (Optional[ModelFreeCandidates]): The model-free candidates
        (`model_free.py`), added in the first round; None: the model's only.
    RAISES: LinkguardError E207 for an unknown `rank_against`.
    """

    def __init__(self, task: Any, model: Any, *, max_retries: int = 1, n_candidates: int = 4,
                 ranker: Optional[CandidateRanker] = None, generalize: bool = True,
                 rank_against: str = "sentence", grounded: Optional[GroundedGuard] = None,
                 model_free: Optional[Any] = None) -> None:
        super().__init__(task, model, max_retries=max_retries, n_candidates=n_candidates)
        self.rank_against = check_rank_against(rank_against)
        self.ranker = ranker if ranker is not None else CandidateRanker(model=model)
        self.generalize = bool(generalize)
        self.system = getattr(task, "system", "llm")
        self.candidate_filters = CandidateFilters(task, grounded)
        self.model_free = model_free
        self.filters = True

    @property
    def cfg(self) -> Dict[str, Any]:
        return {**super().cfg, "generalize": self.generalize, "rank_against": self.rank_against}

    def configure(self, cfg: Dict[str, Any]) -> None:
        super().configure(cfg)
        self.generalize = bool(cfg.get("generalize", self.generalize))
        self.rank_against = check_rank_against(cfg.get("rank_against", self.rank_against))

    def rewrite_chunks(self, chunks: Sequence[Chunk], pass_index: int = 1,
                       judge: Optional[Any] = None) -> List[ChunkOutcome]:
        """One outcome per sentence, in order (`edited` None: nothing survived).

        judge: the loop's `EditJudge` (the index and the vocabulary); None:
            only the task's review and the banned phrases filter.
        """
        settings = getattr(judge, "settings", None) or NgramSettings(placeholder=self.placeholder)
        doc_share = getattr(judge, "doc_share", None)
        changes = [self._words_for(c, doc_share) for c in chunks]
        prompts = [self.task.render(c) if w is None else self.task.render(c, change=w) for c, w in zip(chunks, changes)]
        outcomes = [ChunkOutcome(c, prompt=p) for c, p in zip(chunks, prompts)]
        banned = self._banned(chunks, judge)
        rounds = [False] * (self.max_retries + 1) + ([True] if self.generalize else [])
        pending = list(range(len(chunks)))
        for round_index, generalize in enumerate(rounds):
            if not pending:
                break
            if generalize:
                for j in pending:
                    prompts[j] = self.task.render(chunks[j], generalize=True)
                    changes[j] = None
            asked = [j for j in pending for _ in range(self.n_candidates)]
            gens = self.complete([prompts[j] for j in asked], banned=[banned[j] for j in asked], settings=settings)
            survivors: Dict[int, List[Tuple[str, str]]] = {}
            for j, gen in zip(asked, gens):
                o = outcomes[j]
                o.calls += 1
                o.tokens.append([gen.prompt_tokens, gen.completion_tokens])
                failed = getattr(gen, "failed", None)
                with profiling.phase("filters"):
                    edited, reason = (None, str(failed)) if failed else self.candidate_filters.check(
                        chunks[j], prompts[j], self.task.parse(gen.text), banned[j], settings, judge, changes[j])
                self._keep(o, survivors.setdefault(j, []), edited, reason, gen.text)
            if round_index == 0 and self.model_free is not None:
                for j in pending:
                    with profiling.phase("model_free"):
                        cands = self.model_free.candidates(chunks[j])
                    for cand in cands:
                        with profiling.phase("filters"):
                            edited, reason = self.candidate_filters.check(chunks[j], "", cand, banned[j], settings,
                                                                          judge, changes[j])
                        self._keep(outcomes[j], survivors.setdefault(j, []), edited, reason, MODEL_FREE_REPLY)
            order = [j for j in sorted(survivors) if survivors[j]]
            scores = self.ranker.scores([(self._anchor(chunks[j]), prompts[j], [e for e, _ in survivors[j]])
                                         for j in order])
            for j, sc in zip(order, scores):
                o = outcomes[j]
                unfluent = sum(x is None for x in sc)
                if unfluent:
                    o.rejected[UNGRAMMATICAL] = o.rejected.get(UNGRAMMATICAL, 0) + unfluent
                pick = best_index(sc)
                if pick is not None:
                    i, score = pick
                    o.edited, o.reply = survivors[j][i]
                    o.prompt = prompts[j]
                    o.cost = (0, -score)  # passed the index: no span left, no new linking N-gram
            pending = [j for j in pending if outcomes[j].edited is None]
        return outcomes

    @staticmethod
    def _keep(outcome: ChunkOutcome, kept: List[Tuple[str, str]], edited: Optional[str], reason: Optional[str],
              reply: str) -> None:
        """Count a rejection, or keep a new surviving candidate (with its reply)."""
        if edited is None:
            outcome.rejected[reason] = outcome.rejected.get(reason, 0) + 1  # type: ignore[index]
        elif edited not in [e for e, _ in kept]:
            kept.append((edited, reply))

    def omit_until_safe(self, text: str, detector: Any, sources: Optional[Sequence[str]]) -> Tuple[str, int]:
        """Guarantee mode's first step (`omission.py`): leave out the optional
        constituents that hold what still links, before any placeholder.
        Without model-free candidates (no parser): nothing is left out."""
        if self.model_free is None:
            return text, 0
        from .omission import omit_until_safe

        return omit_until_safe(text, detector, self.model_free.parse, sources)

    def _words_for(self, chunk: Chunk, doc_share: Any) -> Optional[List[str]]:
        """The words the task's words form names for `chunk`, weighed by the
        judge's collection frequencies (`doc_share`) where it has them; None
        in the phrase form."""
        words_for = getattr(self.task, "words_for", None)
        return None if words_for is None else words_for(chunk, doc_share)

    def _anchor(self, chunk: Chunk) -> str:
        """The sentence candidates are ranked against (`rank_against`)."""
        return chunk.original if self.rank_against == "input" else chunk.text

    def _banned(self, chunks: Sequence[Chunk], judge: Optional[Any]) -> List[List[str]]:
        """Each sentence's banned phrases: its own (the task's), then every
        minimal linking N-gram of the flagged sentences of its document (the
        judge's, arity 1), also those overlapping a flagged span, which
        detection does not report. A sentence that wrote one of those would
        link again (`still_linking`): banning them while decoding keeps the
        candidates for what can pass instead of discarding them afterwards."""
        own = [list(self.task.banned(c)) for c in chunks]
        linking = getattr(judge, "linking_phrases", None)
        if linking is None:
            return own
        by_doc: Dict[int, List[str]] = {}
        for c in chunks:
            phrases = by_doc.setdefault(c.doc_index, [])
            phrases.extend(p for p in linking(c) if p not in phrases)
        return [mine + [p for p in by_doc[c.doc_index] if p not in mine] for c, mine in zip(chunks, own)]

    def complete(self, prompts: List[str], banned: Optional[List[List[str]]] = None,
                 settings: Optional[NgramSettings] = None) -> List[Generation]:
        """One Generation per prompt; `banned` phrases (tokenized by `settings`)
        go to a model whose `generate` takes them (enforced while decoding),
        else they are only checked afterwards."""
        if banned is not None and prompts and _takes_banned(self.model):
            gens = list(self.model.generate(prompts, banned=banned, settings=settings))
            if len(gens) == len(prompts):
                return gens
        return super().complete(prompts)


def check_rank_against(value: Any) -> str:
    """RETURNS `value` when it is one of RANK_AGAINST. RAISES: LinkguardError E207 otherwise."""
    if value not in RANK_AGAINST:
        raise LinkguardError(Errors.E207.format(name="rank_against", expected=" or ".join(map(repr, RANK_AGAINST)),
                                                value=value))
    return value


def _takes_banned(model: Any) -> bool:
    generate = getattr(model, "generate", None)
    if generate is None:
        return False
    try:
        return "banned" in inspect.signature(generate).parameters
    except (TypeError, ValueError):
        return False
