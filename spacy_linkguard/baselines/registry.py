"""Registration of `linkguard.Lexical.v1` (entry point group `spacy_misc`).

Kept apart from the classes: resolving a config imports this module only, and
the heavy resources (spaCy pipeline, sentence-transformers) load on first use.
"""
from typing import Optional

from .paraphrase import LexicalSettings
from .paraphraser import DEFAULT_SPACY_MODEL, LexicalParaphraser
from .scoring import DEFAULT_SENTENCE_MODEL


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
