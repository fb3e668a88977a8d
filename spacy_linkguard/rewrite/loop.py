"""The detect -> rewrite -> re-detect loop, on plain texts (no spaCy Doc needed).

Each pass detects every unfinished document, cuts it into chunks, hands the
flagged chunks of all documents to the rewriting backend at once (an LLM
through a rewrite task, or the lexical paraphraser: `rewrite/backends.py`),
and writes accepted edits back. Documents that are safe leave the loop. With
`guarantee`, whatever is still linkable after the last pass is redacted;
a backend with `omit_until_safe` (the sentence rewriter with its parser)
first leaves out the optional constituents that hold it (`omission.py`),
and only what that cannot reach gets the placeholder. Without a detector (the no-span-list baseline) every document runs the fixed
number of passes and the task decides which chunks are sent.
"""
import dataclasses
import time
import warnings
from typing import Any, Dict, List, Optional, Sequence

from .. import profiling
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..llm.chunking import Chunk, apply_chunk_edits
from ..ngrams import NgramSettings
from .backends import LLMRewriter
from .guarantee import check_guarantee_unit, detect_with, redact_until_safe
from .judge import EditJudge
from .occurs import occurs
from .records import ChunkOutcome, PassRecord, RewriteResult, verified_pair


class RewriteLoop:
    """Rewrite documents until no span links them to the collection.

    detector: `Detector` (or anything with `detect(text)` and `settings`), or
        None: no detection, every document runs `max_passes` passes (needs
        `guarantee=False`).
    rewriter: a rewriting backend (`rewrite/backends.py`), or a rewrite task
        when `model` is given: `RewriteLoop(detector, task, model)` is
        `RewriteLoop(detector, LLMRewriter(task, model, max_retries=...))`.
    model: the chat model of an LLM rewriter given as a task; None otherwise.
    max_passes (int): Rewriting passes at most (default 5).
    guarantee (bool): Redact what is still linkable after the last pass
        (after the backend's `omit_until_safe`, where it has one).
    guarantee_unit (str): What guarantee mode replaces by a placeholder:
        "span" (each flagged span whole) or "token" (its rarest token, then
        detect again: fewer words lost, more gaps). See `guarantee.py`.
    max_retries (int): With `model`: extra attempts for a rejected chunk within a pass.
    keep_verified (bool): Keep each document's verified model rewrites
        (`RewriteResult.verified`: prompt and reply of every accepted edit
        that removed all its chunk's flagged spans and, when judged, wrote no
        new linking N-gram): the training pairs of `train-lora`.
    RAISES: LinkguardError E207 (bad numbers), E210 (placeholder mismatch).
    """

    def __init__(
        self,
        detector: Any,
        rewriter: Any,
        model: Any = None,
        *,
        max_passes: int = 5,
        guarantee: bool = True,
        max_retries: int = 2,
        keep_verified: bool = False,
        guarantee_unit: str = "span",
    ):
        for name, value, low in (("max_passes", max_passes, 0), ("max_retries", max_retries, 0)):
            if not isinstance(value, int) or value < low:
                raise LinkguardError(Errors.E207.format(name=name, expected=f"an integer >= {low}", value=value))
        check_guarantee_unit(guarantee_unit)
        if model is not None:
            rewriter = LLMRewriter(rewriter, model, max_retries=max_retries)
        if detector is None and guarantee:
            raise LinkguardError(Errors.E207.format(name="guarantee", expected="False without a detector",
                                                    value=guarantee))
        theirs = getattr(getattr(detector, "settings", None), "placeholder", None)
        if theirs is not None and theirs != rewriter.placeholder:
            raise LinkguardError(Errors.E210.format(ours=rewriter.placeholder, theirs=theirs))
        self.detector = detector
        self.rewriter = rewriter
        self.max_passes = max_passes
        self.guarantee = guarantee
        self.guarantee_unit = guarantee_unit
        self.keep_verified = bool(keep_verified)
        self.settings: NgramSettings = getattr(detector, "settings", None) or NgramSettings(
            placeholder=rewriter.placeholder
        )

    @property
    def task(self) -> Any:
        """The rewrite task of an LLM rewriter (None for other backends)."""
        return getattr(self.rewriter, "task", None)

    @property
    def model(self) -> Any:
        """The model of the rewriter (the chat model, or the lexical paraphraser)."""
        return getattr(self.rewriter, "model", None)

    @property
    def max_retries(self) -> int:
        return getattr(self.rewriter, "max_retries", 0)

    def run(self, texts: Sequence[str], *, ids: Optional[Sequence[str]] = None,
            sources: Optional[Sequence[Optional[Sequence[str]]]] = None) -> List[RewriteResult]:
        """Rewrite a batch of texts together.

        texts (Sequence[str]): Released (de-identified) texts.
        ids (Optional[Sequence[str]]): Names for warnings; default positions.
        sources: for each text, the collection ids it was made from (the
            source verdict, SPEC.md), or None (the any verdict); every pass
            and guarantee mode detect with them. Default: None for all.
        RETURNS (List[RewriteResult]): One per text, in order.
        """
        if hasattr(self.rewriter, "start"):
            self.rewriter.start(len(texts))
        current = list(texts)
        srcs = [None] * len(texts) if sources is None else [None if s is None else list(s) for s in sources]
        detect = self._detect
        results = [RewriteResult(text=t, safe=False, sources=srcs[i], verified=[] if self.keep_verified else None)
                   for i, t in enumerate(texts)]
        active = list(range(len(texts)))
        # per document: each accepted rewrite -> the input's text it came from
        origins: Dict[int, Dict[str, str]] = {i: {} for i in active}
        for p in range(1, self.max_passes + 1):
            offsets: Dict[int, List] = {i: [] for i in active}
            det_seconds: Dict[int, float] = {i: 0.0 for i in active}
            if self.detector is not None:
                detections = {}
                for i in active:
                    t0 = time.perf_counter()
                    with profiling.phase("detection"):
                        detections[i] = detect(current[i], srcs[i])
                    det_seconds[i] = time.perf_counter() - t0
                for i in [i for i in active if detections[i].safe]:
                    results[i].safe = True
                active = [i for i in active if not detections[i].safe]
                offsets = {i: [(s.start_char, s.end_char) for s in detections[i].spans] for i in active}
            if not active:
                break
            chunks: Dict[int, List[Chunk]] = {i: with_origins(self.rewriter.chunks(current[i], offsets[i], doc_index=i),
                                                              origins[i]) for i in active}
            sent = [c for i in active for c in chunks[i] if c.flagged]
            start = time.perf_counter()
            wants_judge = getattr(self.rewriter, "n_candidates", 1) > 1 or getattr(self.rewriter, "filters", False)
            if wants_judge and self.detector is not None:
                # best of n (or a filtering backend's index check), against the index
                judge = EditJudge(self.detector, self.settings, srcs, texts=texts)
                outcomes = self.rewriter.rewrite_chunks(sent, pass_index=p, judge=judge)
            else:
                outcomes = self.rewriter.rewrite_chunks(sent, pass_index=p)
            batch_seconds = time.perf_counter() - start - sum(o.seconds for o in outcomes)
            total_calls = sum(o.calls for o in outcomes) or 1
            by_doc: Dict[int, List[ChunkOutcome]] = {i: [] for i in active}
            for o in outcomes:
                by_doc[o.chunk.doc_index].append(o)
            for i in active:
                record = self._record(p, chunks[i], by_doc[i], results[i].verified)
                edits = [(o.chunk.start, o.chunk.end, o.edited) for o in by_doc[i] if o.edited is not None]
                origins[i].update((o.edited.strip(), o.chunk.original) for o in by_doc[i] if o.edited is not None)
                current[i] = apply_chunk_edits(current[i], edits)
                own = sum(o.seconds for o in by_doc[i])
                record.seconds = round(det_seconds[i] + batch_seconds * record.llm_calls / total_calls + own, 4)
                results[i].passes.append(record)
        # Texts changed in the last pass are not detected yet.
        unsafe = []
        for i, res in enumerate(results):
            t0 = time.perf_counter()
            res.text_before_guarantee = current[i]
            if res.safe or self.detector is None:
                res.text = current[i]
            elif self.guarantee:
                text = current[i]
                omit = getattr(self.rewriter, "omit_until_safe", None)
                with profiling.phase("guarantee"):
                    if omit is not None:
                        text, res.omissions = omit(text, self.detector, srcs[i])
                    res.text, res.forced_redactions, res.redaction_rounds, _ = redact_until_safe(
                        text, self.detector, self.rewriter.placeholder, sources=srcs[i], unit=self.guarantee_unit
                    )
                res.safe = True
            else:
                res.text = current[i]
                res.safe = bool(detect(current[i], srcs[i]).safe)
                if not res.safe:
                    unsafe.append(i)
            res.seconds = sum(r.seconds for r in res.passes) + (time.perf_counter() - t0)
        profiling.count("documents", len(texts))
        profiling.flush()
        if unsafe:
            first = ids[unsafe[0]] if ids is not None else unsafe[0]
            warnings.warn(
                Warnings.W200.format(n=len(unsafe), passes=self.max_passes, doc_id=first), LinkguardWarning
            )
        return results

    def _detect(self, text: str, sources: Optional[List[str]]) -> Any:
        """The detector's Detection of `text` under the source verdict when
        `sources` are given (a detector without sources is called as before)."""
        return detect_with(self.detector, text, sources)

    def rewrite_chunks(self, chunks: Sequence[Chunk], pass_index: int = 1) -> List[ChunkOutcome]:
        """The rewriter's outcomes for `chunks` (one per chunk, in order)."""
        return self.rewriter.rewrite_chunks(chunks, pass_index=pass_index)

    def _record(self, p: int, chunks: List[Chunk], outcomes: List[ChunkOutcome],
                verified: Optional[List[Dict[str, Any]]] = None) -> PassRecord:
        """The pass's record of one document; its verified pairs go to `verified` (when a list)."""
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
                removed = sum(not occurs(o.chunk.text[s:e], o.edited, self.settings) for s, e in o.chunk.span_offsets)
                rec.spans_removed += removed
                pair = verified_pair(o, len(o.chunk.span_offsets) - removed, p) if verified is not None else None
                if pair is not None:
                    verified.append(pair)
        return rec


def with_origins(chunks: List[Chunk], origins: Dict[str, str]) -> List[Chunk]:
    """`chunks`, each whose text is an earlier pass's accepted rewrite given
    the input's text it came from (`Chunk.origin`); the others unchanged."""
    if not origins:
        return chunks
    return [dataclasses.replace(c, origin=origins[c.text]) if c.text in origins else c for c in chunks]
