"""Registration of `linkguard.Lexical.v1` and `linkguard.LexicalRewriter.v1`
(entry point group `spacy_misc`).

Kept apart from the classes: resolving a config imports this module only, and
the heavy resources (spaCy pipeline, sentence-transformers) load on first use.
"""
from typing import Optional

from spacy.util import registry

from ..llm.chunking import ChunkSettings
from .paraphrase import LexicalSettings
from .paraphraser import DEFAULT_SPACY_MODEL, LexicalParaphraser
from .rewriter import LexicalRewriter
from .scoring import DEFAULT_SENTENCE_MODEL


@registry.misc("linkguard.Lexical.v1")
def make_lexical(
    spacy_model: str = DEFAULT_SPACY_MODEL,
    sentence_model: str = DEFAULT_SENTENCE_MODEL,
    wordnet_dir: Optional[str] = None,
    rate: float = 0.5,
    seed: int = 0,
    max_senses: int = 3,
    tagged_senses_only: bool = True,
    max_synonyms: int = 5,
    max_candidates: int = 8,
    drop_modifiers: bool = True,
    max_synonym_words: int = 3,
    context_tokens: int = 12,
    placeholder: str = "[REDACTED]",
) -> LexicalParaphraser:
    """linkguard.Lexical.v1: handcrafted WordNet paraphrasing, as a rewriting
    backend (flagged spans only) and as a whole-document baseline.

    spacy_model (str): English pipeline for POS tags, lemmas and sentences.
    sentence_model (str): sentence-transformers model (installed wheel name or
        local folder) whose cosine, with the edit distance, scores candidates.
    wordnet_dir (Optional[str]): WordNet 3.x database; None: $WNSEARCHDIR or
        /usr/share/wordnet (Debian's wordnet-base).
    rate (float): share of content words rewritten in whole-document mode.
    seed (int): seed of the word choice and candidate sampling.
    The other arguments are `LexicalSettings` fields.
    RETURNS (LexicalParaphraser).
    RAISES: LinkguardError E280 (no WordNet database), E283 (bad setting).
    """
    settings = LexicalSettings(
        max_senses=max_senses,
        tagged_senses_only=tagged_senses_only,
        max_synonyms=max_synonyms,
        max_candidates=max_candidates,
        drop_modifiers=drop_modifiers,
        max_synonym_words=max_synonym_words,
        context_tokens=context_tokens,
        placeholder=placeholder,
    )
    return LexicalParaphraser(settings=settings, rate=rate, seed=seed, spacy_model=spacy_model,
                              sentence_model=sentence_model, wordnet_dir=wordnet_dir)


@registry.misc("linkguard.LexicalRewriter.v1")
def make_lexical_rewriter(
    lexical: Optional[LexicalParaphraser] = None,
    seed: int = 0,
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
) -> LexicalRewriter:
    """linkguard.LexicalRewriter.v1: the rewriting backend that paraphrases the
    flagged spans of each chunk with `linkguard.Lexical.v1` (no LLM).

    lexical (Optional[LexicalParaphraser]): the paraphraser; None: `make_lexical()`.
    seed (int): with the pass and chunk numbers, seeds each chunk's paraphrase.
    sentences_per_chunk, max_chunk_chars (int): how documents are cut (the
        context the POS tagger sees).
    RETURNS (LexicalRewriter).
    RAISES: LinkguardError E207 (bad chunk size), E280 (no WordNet database).
    """
    return LexicalRewriter(lexical if lexical is not None else make_lexical(), seed=seed,
                           chunking=ChunkSettings(sentences_per_chunk=sentences_per_chunk,
                                                  max_chunk_chars=max_chunk_chars))
