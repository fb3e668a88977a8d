"""The lexical paraphraser as the rewriting backend of the detect -> rewrite loop.

`spacy_linkguard.rewrite.RewriteLoop` detects, cuts each document into chunks
of sentences, has the flagged chunks rewritten, writes the edits back,
re-detects, and (guarantee mode) redacts what is left. Its rewriting step,
`rewrite_chunks`, is the one thing that differs for a backend without an LLM:
here each flagged chunk goes to `LexicalParaphraser.paraphrase_spans` with the
chunk's span offsets -- no prompt, no reply to review, no LLM call. Everything
else (passes, records, guarantee mode) is the loop's own.
"""
import time
import zlib
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..llm.chunking import Chunk, ChunkSettings, make_chunks
from ..rewrite import ChunkOutcome, RewriteLoop, RewriteResult
from .paraphraser import LexicalParaphraser

NO_CANDIDATE = "no_candidate"  # rejection reason: WordNet had nothing for any span of the chunk


class LexicalChunker:
    """The part of a rewrite task the loop uses besides prompting: the placeholder
    and the chunking of a document around its flagged spans."""

    def __init__(self, placeholder: str, chunking: ChunkSettings = ChunkSettings()) -> None:
        self._placeholder = placeholder
        self.chunking = chunking

    @property
    def placeholder(self) -> str:
        return self._placeholder

    def chunks(self, text: str, spans: Iterable[Tuple[int, int]], doc_index: int = 0) -> List[Chunk]:
        return make_chunks(text, spans, self.chunking, doc_index=doc_index)


class LexicalRewriteLoop(RewriteLoop):
    """`RewriteLoop` with `linkguard.Lexical.v1` as the rewriting backend.

    detector: a `Detector` (its settings' placeholder must be the paraphraser's).
    paraphraser (LexicalParaphraser): e.g. `registry.misc.get("linkguard.Lexical.v1")()`.
    max_passes (int), guarantee (bool): as for `RewriteLoop`.
    seed (int): with the pass and chunk numbers, seeds each chunk's paraphrase.
    chunking (ChunkSettings): how documents are cut (the context the POS tagger sees).
    After `run`, `stats[i]` sums the paraphrase counts (`ParaphraseResult.stats`)
    of document i over all passes.
    RAISES: LinkguardError E207 (bad numbers), E210 (placeholder mismatch).
    """

    def __init__(self, detector: Any, paraphraser: LexicalParaphraser, *, max_passes: int = 3,
                 guarantee: bool = True, seed: int = 0, chunking: ChunkSettings = ChunkSettings()) -> None:
        task = LexicalChunker(paraphraser.settings.placeholder, chunking)
        super().__init__(detector, task, paraphraser, max_passes=max_passes, guarantee=guarantee, max_retries=0)
        self.seed = seed
        self.stats: Dict[int, Dict[str, int]] = {}
        self._pass = 0
        self._seconds: Dict[Tuple[int, int], float] = {}  # (pass, document) -> paraphrasing time

    def run(self, texts: Sequence[str], *, ids: Optional[Sequence[str]] = None) -> List[RewriteResult]:
        self.stats = {i: _empty_stats() for i in range(len(texts))}
        self._pass = 0
        self._seconds = {}
        results = super().run(texts, ids=ids)
        # The loop shares rewriting time by LLM calls, and this backend makes none:
        # add each document's paraphrasing time to its pass records and total.
        for i, res in enumerate(results):
            for record in res.passes:
                extra = self._seconds.get((record.index, i), 0.0)
                record.seconds = round(record.seconds + extra, 4)
                res.seconds += extra
        return results

    def rewrite_chunks(self, chunks: Sequence[Chunk]) -> List[ChunkOutcome]:
        """Paraphrase the flagged spans of each chunk (the loop calls this once a pass)."""
        self._pass += 1
        out = []
        for chunk in chunks:
            t0 = time.perf_counter()
            seed = zlib.crc32(f"{self.seed}:{self._pass}:{chunk.doc_index}:{chunk.index}".encode())
            res = self.model.paraphrase_spans(chunk.text, chunk.span_offsets, seed=seed)
            stats = self.stats.setdefault(chunk.doc_index, _empty_stats())
            for key, value in res.stats().items():
                stats[key] += value
            outcome = ChunkOutcome(chunk)
            if res.edits:
                outcome.edited = res.text
            else:
                outcome.rejected[NO_CANDIDATE] = 1
            out.append(outcome)
            key = (self._pass, chunk.doc_index)
            self._seconds[key] = self._seconds.get(key, 0.0) + time.perf_counter() - t0
        return out


def _empty_stats() -> Dict[str, int]:
    return {"n_phrases": 0, "n_edited": 0, "n_unchanged": 0, "n_synonyms": 0, "n_dropped": 0}
