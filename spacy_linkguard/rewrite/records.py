"""What the rewrite loop reports: one outcome per rewritten chunk, one record
per pass and one result per document."""
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

from ..llm.chunking import Chunk

# The reply recorded for a candidate no model wrote (`model_free.py`): it is
# no training pair for `train-lora`.
MODEL_FREE_REPLY = "(model-free edit)"


@dataclass
class ChunkOutcome:
    """What a rewriter returns for one flagged chunk: the edited chunk text or
    None, model calls (0 for a backend without an LLM), rejections by reason,
    the (prompt, completion) tokens of every call, and the seconds spent on this
    chunk alone (0 when the backend batches chunks; the loop then shares the
    batch's time by calls). An LLM backend also gives the prompt, the reply
    that made `edited`, and that reply's cost by the loop's judge (None
    without a judge): what `verified_pair` reads."""

    chunk: Chunk
    edited: Optional[str] = None
    calls: int = 0
    rejected: Dict[str, int] = field(default_factory=dict)
    tokens: List[List[int]] = field(default_factory=list)
    seconds: float = 0.0
    prompt: Optional[str] = None
    reply: Optional[str] = None
    cost: Any = None


@dataclass
class PassRecord:
    """One detect -> rewrite pass over one document.

    spans_sent: flagged spans in the chunks sent to the model.
    spans_removed: of those, how many no longer occur in the edited chunk
        (case-folded, token-wise).
    chunks_total / chunks_sent: chunks of the document / chunks with spans.
    chunks_accepted: sent chunks whose edit passed the guards.
    llm_calls: replies requested (retries included).
    rejected: rejected replies by reason (see `spacy_linkguard.filters.f1_reply`).
    prompt_tokens / completion_tokens: summed over the calls.
    chunk_tokens: (prompt tokens, completion tokens) of each call.
    seconds: wall time of the pass for this document (its share of batched calls).
    """

    index: int
    spans_sent: int = 0
    spans_removed: int = 0
    chunks_total: int = 0
    chunks_sent: int = 0
    chunks_accepted: int = 0
    llm_calls: int = 0
    rejected: Dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    chunk_tokens: List[List[int]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class RewriteResult:
    """The released text of one document and how it was reached.

    text: the released text.
    safe: whether `text` is safe (always True with guarantee mode).
    passes: one PassRecord per LLM pass.
    text_before_guarantee: the text the LLM passes left, before guarantee
        mode redacted anything (equal to `text` when nothing was forced);
        metrics "before forced redaction" are computed on it.
    forced_redactions: spans replaced by the placeholder in guarantee mode.
    omissions: constituents guarantee mode left out before it wrote any
        placeholder (`omission.py`; a backend with a parser only).
    redaction_rounds: redact -> re-detect rounds that guarantee mode needed.
    seconds: total wall time for this document.
    sources: the source ids it was detected with (the source verdict), or
        None (the any verdict).
    verified: with `RewriteLoop(keep_verified=True)`, the model's verified
        rewrites of this document's chunks, as {"pass", "prompt", "reply"}
        (`verified_pair`): the training pairs of `train-lora`. None: not kept.
    """

    text: str
    safe: bool
    passes: List[PassRecord] = field(default_factory=list)
    text_before_guarantee: str = ""
    forced_redactions: int = 0
    omissions: int = 0
    redaction_rounds: int = 0
    seconds: float = 0.0
    sources: Optional[List[str]] = None
    verified: Optional[List[Dict[str, Any]]] = None

    @property
    def verdict(self) -> str:
        return "any" if self.sources is None else "source"

    def to_dict(self) -> Dict[str, Any]:
        return {
            "text": self.text,
            "safe": self.safe,
            "verdict": self.verdict,
            "sources": self.sources,
            "text_before_guarantee": self.text_before_guarantee,
            "passes": [p.to_dict() for p in self.passes],
            "forced_redactions": self.forced_redactions,
            "omissions": self.omissions,
            "redaction_rounds": self.redaction_rounds,
            "seconds": round(self.seconds, 3),
            **({} if self.verified is None else {"verified": self.verified}),
        }


def verified_pair(outcome: ChunkOutcome, spans_left: int, pass_index: int) -> Optional[Dict[str, Any]]:
    """The training pair of a chunk's outcome when the model's edit is verified:
    accepted by the task's guards, none of the chunk's flagged spans still
    occurs (`spans_left` == 0), and, when a judge scored it, no new linking
    N-gram either (cost 0). None otherwise, without a prompt and reply, or
    for a model-free edit (no model wrote it)."""
    if outcome.edited is None or outcome.prompt is None or outcome.reply in (None, MODEL_FREE_REPLY) or spans_left:
        return None
    if outcome.cost is not None and outcome.cost[0] != 0:
        return None
    return {"pass": pass_index, "prompt": outcome.prompt, "reply": outcome.reply}
