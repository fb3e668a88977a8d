"""Rewriting backends: what `RewriteLoop` calls once a pass on the flagged chunks.

A backend (a "rewriter") has:
- `system` (str): the name its outputs carry ("llm", "lexical", "llm_nospans");
- `placeholder` (str): what names become (the index's placeholder);
- `chunks(text, spans, doc_index)`: the document cut into chunks, flagged or not;
- `rewrite_chunks(chunks, pass_index)`: one `ChunkOutcome` per chunk, in order
  (a backend with `n_candidates` > 1 also takes `judge=`: the loop's
  `judge.EditJudge`, to keep the best of several accepted replies);
- `cfg` (dict) and `configure(cfg)`: its settings, saved with a component;
- `start(n_docs)`: called once before each run of the loop;
- `describe()`: the model it uses, in words (recorded with the outputs).

`LLMRewriter` (here) prompts a chat model through a rewrite task;
`LexicalRewriter` (`baselines/rewriter.py`) paraphrases with WordNet. The
no-span-list baseline is `LLMRewriter` with the `linkguard.RewriteNoSpans.v1`
task. Registrations: `rewrite/registry.py` (`linkguard.LLMRewriter.v1`) and
`baselines/registry.py` (`linkguard.LexicalRewriter.v1`).
"""
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..llm.chunking import Chunk
from ..llm.models.base import Generation
from .judge import best_of
from .records import ChunkOutcome


def check_n_candidates(value: Any) -> int:
    """RAISES: LinkguardError E207 unless an integer >= 1 (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LinkguardError(Errors.E207.format(name="n_candidates", expected="an integer >= 1", value=value))
    return value


@runtime_checkable
class Rewriter(Protocol):
    """The interface `RewriteLoop` calls (see the module docstring)."""

    system: str

    @property
    def placeholder(self) -> str:
        ...

    def chunks(self, text: str, spans: Iterable[Tuple[int, int]], doc_index: int = 0) -> List[Chunk]:
        ...

    def rewrite_chunks(self, chunks: Sequence[Chunk], pass_index: int = 1) -> List[ChunkOutcome]:
        ...


class LLMRewriter:
    """Prompt a chat model with a rewrite task, review replies, retry rejected ones.

    task: `linkguard.Rewrite.v1`, `linkguard.RewriteSpans.v1` or
        `linkguard.RewriteNoSpans.v1` (chunks, prompts, reply review).
    model: a `ChatModel` (llm/models/base.py: `generate(prompts) -> [Generation]`);
        plain spacy-llm models (`model([[prompt], ...])`) work too.
    max_retries (int): Extra attempts for a chunk whose reply was rejected
        within one pass; after that the chunk waits for the next pass.
    count_words (bool): With a plain spacy-llm model (no token counts), count
        whitespace-separated words of prompt and reply instead of reporting 0.
    n_candidates (int): Replies sampled per chunk in each attempt (one
        batched call; the model must sample, temperature > 0). With a judge,
        the accepted reply of lowest cost is kept (`judge.py`); 1: the first
        accepted reply, as before.
    RAISES: LinkguardError E207 (n_candidates not an integer >= 1).
    """

    def __init__(self, task: Any, model: Any, *, max_retries: int = 2, count_words: bool = False,
                 n_candidates: int = 1) -> None:
        check_n_candidates(n_candidates)
        self.task = task
        self.model = model
        self.max_retries = max_retries
        self.count_words = count_words
        self.n_candidates = n_candidates
        self.system = getattr(task, "system", "llm")

    @property
    def placeholder(self) -> str:
        return self.task.placeholder

    @property
    def cfg(self) -> Dict[str, Any]:
        return {"max_retries": self.max_retries, "n_candidates": self.n_candidates}

    def configure(self, cfg: Dict[str, Any]) -> None:
        self.max_retries = cfg.get("max_retries", self.max_retries)
        self.n_candidates = check_n_candidates(cfg.get("n_candidates", self.n_candidates))

    def start(self, n_docs: int) -> None:
        pass

    def describe(self) -> str:
        """The model's name (`ChatModel.name`), or its class for other models."""
        return str(getattr(self.model, "name", None) or type(self.model).__name__)

    def chunks(self, text: str, spans: Iterable[Tuple[int, int]], doc_index: int = 0) -> List[Chunk]:
        return self.task.chunks(text, spans, doc_index=doc_index)

    def rewrite_chunks(self, chunks: Sequence[Chunk], pass_index: int = 1,
                       judge: Optional[Callable[[Chunk, str], Any]] = None) -> List[ChunkOutcome]:
        """Send chunks to the model, review replies, retry rejected ones.

        judge: the cost of an accepted edit (`judge.EditJudge`); with
            `n_candidates` > 1 the accepted reply of lowest cost is kept.
            None: the first accepted reply (one reply a chunk an attempt).
        RETURNS (List[ChunkOutcome]): One per chunk, in order; `edited` is
            None when every attempt was rejected.
        """
        prompts = [self.task.render(c) for c in chunks]
        outcomes = [ChunkOutcome(c, prompt=p) for c, p in zip(chunks, prompts)]
        n = self.n_candidates if judge is not None else 1
        pending = list(range(len(chunks)))
        for _attempt in range(self.max_retries + 1):
            if not pending:
                break
            asked = [j for j in pending for _ in range(n)]
            gens = self.complete([prompts[j] for j in asked])
            accepted: Dict[int, List[Tuple[Any, Tuple[Any, str, str]]]] = {}
            for j, gen in zip(asked, gens):
                o = outcomes[j]
                o.calls += 1
                o.tokens.append([gen.prompt_tokens, gen.completion_tokens])
                edited, reason = self.task.review(o.chunk, prompts[j], gen.text)
                if edited is None:
                    o.rejected[reason] = o.rejected.get(reason, 0) + 1
                else:
                    cost = judge(o.chunk, edited) if n > 1 else None
                    accepted.setdefault(j, []).append((0 if cost is None else cost, (cost, edited, gen.text)))
            for j, candidates in accepted.items():
                outcomes[j].cost, outcomes[j].edited, outcomes[j].reply = best_of(candidates)
            pending = [j for j in pending if j not in accepted]
        return outcomes

    def complete(self, prompts: List[str]) -> List[Generation]:
        """One Generation per prompt (W201 and empty replies when the model returns too few)."""
        if not prompts:
            return []
        if hasattr(self.model, "generate"):
            gens = list(self.model.generate(prompts))
        else:  # a spacy-llm model: Iterable[Iterable[prompt]] -> Iterable[Iterable[reply]]
            replies = [str(list(r)[0]) for r in self.model([[p] for p in prompts])]
            gens = [Generation(r, *self._counts(p, r)) for p, r in zip(prompts, replies)]
        if len(gens) != len(prompts):
            warnings.warn(Warnings.W201.format(got=len(gens), expected=len(prompts)), LinkguardWarning)
            gens = (gens + [Generation("", 0, 0)] * len(prompts))[: len(prompts)]
        return gens

    def _counts(self, prompt: str, reply: str) -> Tuple[int, int]:
        return (len(prompt.split()), len(reply.split())) if self.count_words else (0, 0)
