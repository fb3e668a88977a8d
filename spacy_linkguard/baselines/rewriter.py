"""The lexical paraphraser as a rewriting backend of `RewriteLoop`.

The loop detects, cuts each document into chunks of sentences, hands the
flagged chunks to its backend, writes the edits back, re-detects, and
(guarantee mode) redacts what is left. Here the flagged chunks of a document go
together to `LexicalParaphraser.paraphrase_spans_batch` with their span offsets -- no
prompt, no reply to review, no LLM call. Registration: `registry.py`
(`linkguard.LexicalRewriter.v1`).
"""
import time
import zlib
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from ..llm.chunking import Chunk, ChunkSettings, make_chunks
from ..rewrite import ChunkOutcome
from .paraphraser import LexicalParaphraser

NO_CANDIDATE = "no_candidate"  # rejection reason: WordNet had nothing for any span of the chunk


class LexicalRewriter:
    """Rewrite the flagged spans of each chunk with WordNet paraphrases.

    paraphraser (LexicalParaphraser): e.g. `registry.misc.get("linkguard.Lexical.v1")()`.
    seed (int): with the pass and chunk numbers, seeds each chunk's paraphrase.
    chunking (ChunkSettings): how documents are cut (the context the POS tagger sees).
    After a run, `stats[i]` sums the paraphrase counts (`ParaphraseResult.stats`)
    of document i over all passes.
    """

    system = "lexical"

    def __init__(self, paraphraser: LexicalParaphraser, *, seed: int = 0,
                 chunking: ChunkSettings = ChunkSettings()) -> None:
        self.model = paraphraser
        self.seed = seed
        self.chunking = chunking
        self.stats: Dict[int, Dict[str, int]] = {}

    @property
    def placeholder(self) -> str:
        return self.model.settings.placeholder

    @property
    def cfg(self) -> Dict[str, Any]:
        return {"seed": self.seed, "sentences_per_chunk": self.chunking.sentences_per_chunk,
                "max_chunk_chars": self.chunking.max_chunk_chars}

    def configure(self, cfg: Dict[str, Any]) -> None:
        self.seed = cfg.get("seed", self.seed)
        self.chunking = ChunkSettings(
            sentences_per_chunk=cfg.get("sentences_per_chunk", self.chunking.sentences_per_chunk),
            max_chunk_chars=cfg.get("max_chunk_chars", self.chunking.max_chunk_chars))

    def start(self, n_docs: int) -> None:
        self.stats = {i: _empty_stats() for i in range(n_docs)}

    def describe(self) -> str:
        return self.model.describe()

    def chunks(self, text: str, spans: Iterable[Tuple[int, int]], doc_index: int = 0) -> List[Chunk]:
        return make_chunks(text, spans, self.chunking, doc_index=doc_index)

    def rewrite_chunks(self, chunks: Sequence[Chunk], pass_index: int = 1) -> List[ChunkOutcome]:
        """Paraphrase the flagged spans of each chunk (the loop calls this once a pass).

        The chunks of one document are paraphrased together: their candidates
        go to the scorer in one call (`LexicalParaphraser.paraphrase_spans_batch`),
        a document's never with another's, so what a document gets does not
        depend on the documents beside it. Each chunk's `seconds` is its share
        of its document's time (the same for every chunk of it)."""
        by_doc: Dict[int, List[int]] = {}
        for n, chunk in enumerate(chunks):
            by_doc.setdefault(chunk.doc_index, []).append(n)
        out: List[ChunkOutcome] = [ChunkOutcome(chunk) for chunk in chunks]
        for doc_index, members in by_doc.items():
            t0 = time.perf_counter()
            group = [chunks[n] for n in members]
            seeds = [zlib.crc32(f"{self.seed}:{pass_index}:{c.doc_index}:{c.index}".encode()) for c in group]
            results = self.model.paraphrase_spans_batch([c.text for c in group], [c.span_offsets for c in group],
                                                        seeds)
            stats = self.stats.setdefault(doc_index, _empty_stats())
            seconds = (time.perf_counter() - t0) / len(group)
            for n, res in zip(members, results):
                for key, value in res.stats().items():
                    stats[key] += value
                if res.edits:
                    out[n].edited = res.text
                else:
                    out[n].rejected[NO_CANDIDATE] = 1
                out[n].seconds = seconds
        return out


def _empty_stats() -> Dict[str, int]:
    return {"n_phrases": 0, "n_edited": 0, "n_unchanged": 0, "n_synonyms": 0, "n_dropped": 0}
