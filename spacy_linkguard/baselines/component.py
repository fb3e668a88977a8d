"""The `linkguard_lexical_rewrite` component: `linkguard_rewrite` with the lexical backend.

Same Doc extensions, detector handling, batching and serialization as
`spacy_linkguard.pipeline.rewrite.LinkguardRewrite`; only the loop differs:
`LexicalRewriteLoop` rewrites flagged chunks with `linkguard.Lexical.v1`
instead of prompting an LLM. Registration: `pipeline/factories.py`.
"""
from typing import Any, Optional

from spacy.language import Language

from ..llm.chunking import ChunkSettings
from ..pipeline.rewrite import LinkguardRewrite
from .loop import LexicalChunker, LexicalRewriteLoop


class LinkguardLexicalRewrite(LinkguardRewrite):
    """Rewrite each Doc with WordNet paraphrases of its flagged spans until safe.

    lexical: a `LexicalParaphraser` (`linkguard.Lexical.v1`).
    seed (int): seeds the paraphrases (with pass and chunk numbers).
    sentences_per_chunk, max_chunk_chars (int): how documents are cut (the
        context the POS tagger sees).
    The other arguments are those of `LinkguardRewrite` (no retries: the
    paraphraser is deterministic for a seed).
    """

    def __init__(self, nlp: Language, name: str = "linkguard_lexical_rewrite", *, lexical: Any,
                 index: Optional[str] = None, k: int = 2, max_arity: int = 3, max_passes: int = 3,
                 guarantee: bool = True, seed: int = 0, sentences_per_chunk: int = 3,
                 max_chunk_chars: int = 1200, detector_component: str = "linkguard", batch_size: int = 8) -> None:
        chunker = LexicalChunker(lexical.settings.placeholder,
                                 ChunkSettings(sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars))
        super().__init__(nlp, name, task=chunker, model=lexical, index=index, k=k, max_arity=max_arity,
                         max_passes=max_passes, guarantee=guarantee, max_retries=0,
                         detector_component=detector_component, batch_size=batch_size)
        self.cfg.update({"seed": seed, "sentences_per_chunk": sentences_per_chunk,
                         "max_chunk_chars": max_chunk_chars})

    @property
    def loop(self) -> LexicalRewriteLoop:
        """The `LexicalRewriteLoop` (built on first use)."""
        if self._loop is None:
            self.task.chunking = ChunkSettings(sentences_per_chunk=self.cfg["sentences_per_chunk"],
                                               max_chunk_chars=self.cfg["max_chunk_chars"])
            self._loop = LexicalRewriteLoop(self.detector, self.model, max_passes=self.cfg["max_passes"],
                                            guarantee=self.cfg["guarantee"], seed=self.cfg["seed"],
                                            chunking=self.task.chunking)
        return self._loop
