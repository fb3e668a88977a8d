"""The lexical paraphraser as a rewriting backend of `RewriteLoop`.

The loop detects, cuts each document into chunks of sentences, hands the
flagged chunks to its backend, writes the edits back, re-detects, and
(guarantee mode) redacts what is left. Here each flagged chunk goes to
`LexicalParaphraser.paraphrase_spans` with the chunk's span offsets -- no
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
        """Paraphrase the flagged spans of each chunk (the loop calls this once a pass)."""
        out = []
        for chunk in chunks:
            t0 = time.perf_counter()
            seed = zlib.crc32(f"{self.seed}:{pass_index}:{chunk.doc_index}:{chunk.index}".encode())
            res = self.model.paraphrase_spans(chunk.text, chunk.span_offsets, seed=seed)
            stats = self.stats.setdefault(chunk.doc_index, _empty_stats())
            for key, value in res.stats().items():
                stats[key] += value
            outcome = ChunkOutcome(chunk)
            if res.edits:
                outcome.edited = res.text
            else:
                outcome.rejected[NO_CANDIDATE] = 1
            outcome.seconds = time.perf_counter() - t0
            out.append(outcome)
        return out


def _empty_stats() -> Dict[str, int]:
    return {"n_phrases": 0, "n_edited": 0, "n_unchanged": 0, "n_synonyms": 0, "n_dropped": 0}
