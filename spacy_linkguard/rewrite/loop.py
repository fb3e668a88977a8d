"""The detect -> rewrite -> re-detect loop, on plain texts (no spaCy Doc needed).

Each pass detects every unfinished document, cuts it into chunks, sends only
the chunks with flagged spans to the model -- all documents' chunks in one
batch -- reviews each reply with the guards, retries rejected chunks, and
writes accepted edits back. Documents that are safe leave the loop. With
`guarantee`, whatever is still linkable after the last pass is redacted.
"""
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..llm.chunking import Chunk, apply_chunk_edits
from ..llm.models.base import Generation
from ..ngrams import NgramSettings, text_segments
from .guarantee import redact_until_safe
from .records import PassRecord, RewriteResult


@dataclass
class ChunkOutcome:
    """What `rewrite_chunks` returns for one flagged chunk: the edited chunk text
    or None, model calls (0 for a backend without an LLM), rejections by reason,
    and the completion tokens of every call."""

    chunk: Chunk
    edited: Optional[str] = None
    calls: int = 0
    rejected: Dict[str, int] = field(default_factory=dict)
    tokens: List[List[int]] = field(default_factory=list)


class RewriteLoop:
    """Rewrite documents until no span links them to the collection.

    detector: `Detector` (or anything with `detect(text)` and `settings`).
    task: `RewriteTask` (chunks, prompts, reply review).
    model: a `ChatModel` (llm/models/base.py: `generate(prompts) -> [Generation]`);
        plain spacy-llm models (`model([[prompt], ...])`) work without token counts.
    max_passes (int): LLM passes at most (default 5).
    guarantee (bool): Redact what is still linkable after the last pass.
    max_retries (int): Extra attempts for a chunk whose reply was rejected
        within one pass; after that the chunk waits for the next pass.
    RAISES: LinkguardError E207 (bad numbers), E210 (placeholder mismatch).
    """

    def __init__(
        self,
        detector: Any,
        task: Any,
        model: Any,
        *,
        max_passes: int = 5,
        guarantee: bool = True,
        max_retries: int = 2,
    ):
        for name, value, low in (("max_passes", max_passes, 0), ("max_retries", max_retries, 0)):
            if not isinstance(value, int) or value < low:
                raise LinkguardError(Errors.E207.format(name=name, expected=f"an integer >= {low}", value=value))
        theirs = getattr(getattr(detector, "settings", None), "placeholder", None)
        if theirs is not None and theirs != task.placeholder:
            raise LinkguardError(Errors.E210.format(ours=task.placeholder, theirs=theirs))
        self.detector = detector
        self.task = task
        self.model = model
        self.max_passes = max_passes
        self.guarantee = guarantee
        self.max_retries = max_retries
        self.settings: NgramSettings = getattr(detector, "settings", None) or NgramSettings(
            placeholder=task.placeholder
        )

    def run(self, texts: Sequence[str], *, ids: Optional[Sequence[str]] = None) -> List[RewriteResult]:
        """Rewrite a batch of texts together.

        texts (Sequence[str]): Released (de-identified) texts.
        ids (Optional[Sequence[str]]): Names for warnings; default positions.
        RETURNS (List[RewriteResult]): One per text, in order.
        """
        current = list(texts)
        results = [RewriteResult(text=t, safe=False) for t in texts]
        active = list(range(len(texts)))
        for p in range(1, self.max_passes + 1):
            detections = {}
            det_seconds: Dict[int, float] = {}
            for i in active:
                t0 = time.perf_counter()
                detections[i] = self.detector.detect(current[i])
                det_seconds[i] = time.perf_counter() - t0
            for i in [i for i in active if detections[i].safe]:
                results[i].safe = True
            active = [i for i in active if not detections[i].safe]
            if not active:
                break
            chunks: Dict[int, List[Chunk]] = {}
            for i in active:
                offsets = [(s.start_char, s.end_char) for s in detections[i].spans]
                chunks[i] = self.task.chunks(current[i], offsets, doc_index=i)
            sent = [c for i in active for c in chunks[i] if c.flagged]
            llm_start = time.perf_counter()
            outcomes = self.rewrite_chunks(sent)
            llm_seconds = time.perf_counter() - llm_start
            total_calls = sum(o.calls for o in outcomes) or 1
            by_doc: Dict[int, List[ChunkOutcome]] = {i: [] for i in active}
            for o in outcomes:
                by_doc[o.chunk.doc_index].append(o)
            for i in active:
                record = self._record(p, chunks[i], by_doc[i])
                edits = [(o.chunk.start, o.chunk.end, o.edited) for o in by_doc[i] if o.edited is not None]
                current[i] = apply_chunk_edits(current[i], edits)
                record.seconds = round(det_seconds[i] + llm_seconds * record.llm_calls / total_calls, 4)
                results[i].passes.append(record)
        # Texts changed in the last pass are not detected yet.
        unsafe = []
        for i, res in enumerate(results):
            t0 = time.perf_counter()
            res.text_before_guarantee = current[i]
            if res.safe:
                res.text = current[i]
            elif self.guarantee:
                res.text, res.forced_redactions, res.redaction_rounds, _ = redact_until_safe(
                    current[i], self.detector, self.task.placeholder
                )
                res.safe = True
            else:
                res.text = current[i]
                res.safe = bool(self.detector.detect(current[i]).safe)
                if not res.safe:
                    unsafe.append(i)
            res.seconds = sum(r.seconds for r in res.passes) + (time.perf_counter() - t0)
        if unsafe:
            first = ids[unsafe[0]] if ids is not None else unsafe[0]
            warnings.warn(
                Warnings.W200.format(n=len(unsafe), passes=self.max_passes, doc_id=first), LinkguardWarning
            )
        return results

    def rewrite_chunks(self, chunks: Sequence[Chunk]) -> List[ChunkOutcome]:
        """Send chunks to the model, review replies, retry rejected ones.

        RETURNS (List[ChunkOutcome]): One per chunk, in order; `edited` is
            None when every attempt was rejected.
        """
        outcomes = [ChunkOutcome(c) for c in chunks]
        prompts = [self.task.render(c) for c in chunks]
        pending = list(range(len(chunks)))
        for _attempt in range(self.max_retries + 1):
            if not pending:
                break
            gens = self._complete([prompts[j] for j in pending])
            still = []
            for j, gen in zip(pending, gens):
                o = outcomes[j]
                o.calls += 1
                o.tokens.append([gen.prompt_tokens, gen.completion_tokens])
                edited, reason = self.task.review(o.chunk, prompts[j], gen.text)
                if edited is None:
                    o.rejected[reason] = o.rejected.get(reason, 0) + 1
                    still.append(j)
                else:
                    o.edited = edited
            pending = still
        return outcomes

    def _complete(self, prompts: List[str]) -> List[Generation]:
        if hasattr(self.model, "generate"):
            gens = list(self.model.generate(prompts))
        else:  # a spacy-llm model: Iterable[Iterable[prompt]] -> Iterable[Iterable[reply]]
            gens = [Generation(str(list(r)[0]), 0, 0) for r in self.model([[p] for p in prompts])]
        if len(gens) != len(prompts):
            warnings.warn(Warnings.W201.format(got=len(gens), expected=len(prompts)), LinkguardWarning)
            gens = (gens + [Generation("", 0, 0)] * len(prompts))[: len(prompts)]
        return gens

    def _record(self, p: int, chunks: List[Chunk], outcomes: List[ChunkOutcome]) -> PassRecord:
        rec = PassRecord(index=p, chunks_total=len(chunks), chunks_sent=len(outcomes))
        for o in outcomes:
            rec.spans_sent += len(o.chunk.span_offsets)
            rec.llm_calls += o.calls
            rec.chunk_tokens.extend(o.tokens)
            rec.prompt_tokens += sum(t[0] for t in o.tokens)
            rec.completion_tokens += sum(t[1] for t in o.tokens)
            for reason, n in o.rejected.items():
                rec.rejected[reason] = rec.rejected.get(reason, 0) + n
            if o.edited is not None:
                rec.chunks_accepted += 1
                rec.spans_removed += sum(
                    not occurs(o.chunk.text[s:e], o.edited, self.settings) for s, e in o.chunk.span_offsets
                )
        return rec


def occurs(phrase: str, text: str, settings: NgramSettings) -> bool:
    """Whether `phrase` occurs in `text` token-wise and case-folded (SPEC.md's
    test for "still occurs"), within one segment."""
    keys = tuple(k for seg in text_segments(phrase, settings) for k in seg.keys)
    if not keys:
        return False
    n = len(keys)
    for seg in text_segments(text, settings):
        seq = seg.keys
        if any(seq[i : i + n] == keys for i in range(len(seq) - n + 1)):
            return True
    return False

