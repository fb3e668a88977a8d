"""Best-of-n: which of several accepted candidate edits of a chunk to keep.

A backend that samples `n_candidates` replies per flagged chunk
(`LLMRewriter`) asks the loop's judge for each reply that passed the guards,
and keeps the one of lowest cost:

1. flagged spans of the chunk whose text still occurs in the edit (token-wise,
   case-folded: SPEC.md's "still occurs"), plus
2. rare N-grams of the edit that link under the document's verdict (arity 1,
   detected on the edited chunk against the index) and that the chunk itself
   did not have: what a rewrite wrote that the next pass would flag again;
3. ties: the edit closest to the chunk (difflib ratio of the word sequences),
   so the meaning moves as little as the linkage allows.

Every candidate is checked against the index before it is accepted, so a pass
keeps the edit that leaves the least to the next pass.
"""
from difflib import SequenceMatcher
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..llm.chunking import Chunk
from ..filters.f1_reply import words
from ..ngrams import NgramSettings
from .occurs import occurs


class EditJudge:
    """The cost of a candidate edit of a chunk (lower is better).

    detector: the loop's detector. When it is a `Detector` over an index, new
        linking rare N-grams are counted with an arity-1 detector over the
        same index; otherwise only the flagged spans left count.
    settings (NgramSettings): tokenization of "still occurs".
    sources (Sequence[Optional[List[str]]]): each document's sources (by
        `Chunk.doc_index`; None: the any verdict).
    texts (Optional[Sequence[str]]): each document's input text (before any pass)
        (by `Chunk.doc_index`): with an index, `unknown_words` is available.
    """

    def __init__(self, detector: Any, settings: NgramSettings, sources: Sequence[Optional[List[str]]],
                 texts: Optional[Sequence[str]] = None) -> None:
        self.settings = settings
        self.sources = list(sources)
        self.texts = None if texts is None else list(texts)
        self.index = getattr(detector, "index", None)
        self._known: Dict[int, Any] = {}
        self.single = _arity_one(detector)
        self._before: Dict[Tuple[int, int, str], Tuple[Set[str], List[str]]] = {}

    def __call__(self, chunk: Chunk, edited: str) -> Tuple[int, float]:
        """RETURNS (Tuple[int, float]): (spans left + new linking N-grams, -closeness)."""
        left = sum(occurs(chunk.text[s:e], edited, self.settings) for s, e in chunk.span_offsets)
        new = 0
        if self.single is not None:
            before = self._linking_keys_of(chunk)
            new = len(self._linking_keys(edited, chunk.doc_index) - before)
        closeness = SequenceMatcher(None, words(chunk.text), words(edited), autojunk=False).ratio()
        return left + new, -closeness

    def unknown_words(self, chunk: Chunk, edited: str) -> List[str]:
        """The words of `edited` that occur neither in the collection nor in
        the chunk's input document (`rewrite/vocabulary.py`); empty without an
        index or the documents' texts."""
        if self.index is None or self.texts is None or chunk.doc_index >= len(self.texts):
            return []
        known = self._known.get(chunk.doc_index)
        if known is None:
            from ..filters.f8_vocabulary import unknown_words
            from .vocabulary import vocabulary_of

            vocab = vocabulary_of(self.index, self.texts[chunk.doc_index])
            known = self._known[chunk.doc_index] = lambda text: unknown_words(text, vocab, self.settings.placeholder)
        return known(edited)

    def doc_share(self, keys: Sequence[str]) -> List[float]:
        """The share of the collection's documents holding each token key
        (0.0 each without an index): how common a word is, which the sentence
        task's `words_to_change` weighs words by (`llm/pivots.py`)."""
        if self.index is None or not keys:
            return [0.0] * len(keys)
        n = max(1, int(self.index.n_docs))
        return [int(df) / n for df in self.index.key_doc_freqs(list(keys))]

    def linking_phrases(self, chunk: Chunk) -> List[str]:
        """Every minimal rare N-gram of the chunk that links under its
        document's verdict (arity 1; reported or not, overlapping ones too),
        as it reads in the chunk: what no rewrite of any sentence of the
        document may write (an edit holding one would link again). Empty
        without an index."""
        if self.single is None:
            return []
        return self._linking_of(chunk)[1]

    def _linking_keys_of(self, chunk: Chunk) -> Set[str]:
        return self._linking_of(chunk)[0]

    def _linking_of(self, chunk: Chunk) -> Tuple[Set[str], List[str]]:
        key = (chunk.doc_index, chunk.start, chunk.text)
        if key not in self._before:
            self._before[key] = self._linking(chunk.text, chunk.doc_index)
        return self._before[key]

    def _linking_keys(self, text: str, doc_index: int) -> Set[str]:
        return self._linking(text, doc_index)[0]

    def _linking(self, text: str, doc_index: int) -> Tuple[Set[str], List[str]]:
        """(the keys `detect` reports at arity 1, the texts of all minimal linking
        rare N-grams), from one analysis of `text` under the document's verdict."""
        sources = self.sources[doc_index] if doc_index < len(self.sources) else None
        res = self.single.analyze(text, sources)
        occ = res.occurrences
        phrases = dict.fromkeys(text[slice(*occ.char_span(o[0], o[1]))] for o in res.linking_rare)
        return {o[2] for o in res.chosen_rare}, list(phrases)


def _arity_one(detector: Any) -> Any:
    """An arity-1 `Detector` over the detector's index (None when it has none)."""
    from ..detect import Detector

    if not isinstance(detector, Detector):
        return None
    return Detector(detector.index, k=detector.k, max_arity=1, cache_size=100_000)


def best_of(candidates: Sequence[Tuple[Any, Any]]) -> Any:
    """The edit of lowest cost among (cost, edit) pairs (an edit may be any
    value: the backend passes its reply along); the first on ties; None when empty."""
    best: Optional[Tuple[Any, Any]] = None
    for cost, edit in candidates:
        if best is None or cost < best[0]:
            best = (cost, edit)
    return None if best is None else best[1]
