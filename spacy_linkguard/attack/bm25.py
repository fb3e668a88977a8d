"""The BM25 attacker: the collection ranked by the words a released text shares with each document.

Built from the N-gram index's own documents (the pruned and sharded layouts
store every document's tokens, `index/doc_tokens.py`), so it sees exactly
the tokens the exact detector sees: text normalized and tokenized the
index's way, the placeholder and punctuation left out. Scoring is bm25s's
(`bm25s.BM25`, method "lucene": idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
term weight tf / (tf + k1 * (1 - b + b * |d| / avgdl)), k1 = 1.5, b = 0.75);
a released text is a query of its distinct words, each counted once.
Building takes seconds for the bundled collections (benchmarks/bench_rank.py
measures the paper-scale one), so it is built on first use, once per
process and index, and not stored.
"""
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import Errors, LinkguardError

K1 = 1.5
B = 0.75
# Scores this close to the source's count as ties; ties favour the source
# (the adversary's best case), so a rank is never worse than a search engine's.
TIE_TOLERANCE = 1e-9


def source_rank(scores: np.ndarray, sources: Iterable[int]) -> Optional[int]:
    """Best 1-based rank among `scores` of any of the document numbers `sources`
    (1 + the documents scoring above it; ties favour the source). None without sources."""
    best = None
    for s in sources:
        target = float(scores[s])
        r = 1 + int(np.count_nonzero(scores > target + TIE_TOLERANCE * max(1.0, abs(target))))
        best = r if best is None else min(best, r)
    return best


def index_documents(index: Any) -> Tuple[List[np.ndarray], List[str]]:
    """Each document's token ids (rank - 1, segment ends dropped) and the word of each id.

    RAISES: LinkguardError E045 for an index that stores no document tokens (the full layout).
    """
    from ..index.doc_tokens import SEGMENT_END, decode_varints

    blob = getattr(index, "_doc_blob", None)
    offsets = getattr(index, "_doc_offsets", None)
    if blob is None or offsets is None:
        raise LinkguardError(Errors.E045.format(path=getattr(index, "path", index)))
    ranks = decode_varints(np.asarray(blob))
    ends = np.concatenate([[0], np.cumsum(np.asarray(blob) < 0x80)])  # values decoded before each byte
    starts = ends[np.asarray(offsets, dtype=np.int64)]
    docs = []
    for a, z in zip(starts[:-1].tolist(), starts[1:].tolist()):
        r = ranks[a:z]
        docs.append(r[r != SEGMENT_END] - 1)
    return docs, index._token_words()


class BM25Attacker:
    """Ranks every document of a collection for a released text with BM25 (bm25s).

    Build with `BM25Attacker.from_index(index)` (or `bm25_attacker`, cached
    per process); `ranks(text)` scores every document, `rank(text, sources)`
    gives the sources' best rank.
    """

    def __init__(self, docs: Sequence[Sequence[int]], words: Sequence[str], settings: Any, *,
                 doc_ids: Optional[Sequence[str]] = None, k1: float = K1, b: float = B):
        """docs: per document, token ids (0..len(words)-1); words: the index key of each id;
        settings: the index's NgramSettings (to tokenize queries the same way)."""
        try:
            import bm25s
        except ImportError:
            raise LinkguardError(Errors.E046.format(what="The BM25 attacker", package="bm25s")) from None
        self.settings = settings
        self.word_id: Dict[str, int] = {w: i for i, w in enumerate(words)}
        self.doc_ids = list(doc_ids) if doc_ids is not None else [str(i) for i in range(len(docs))]
        self.n_docs = len(docs)
        self.k1, self.b = k1, b
        self._bm25 = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        corpus = [np.asarray(d).tolist() for d in docs]
        self._bm25.scores = self._bm25.build_index_from_ids(list(range(len(words))), corpus, show_progress=False)
        self._bm25.vocab_dict = dict(self.word_id)

    @classmethod
    def from_index(cls, index: Any, **kwargs: Any) -> "BM25Attacker":
        """The attacker over an index's own documents (document numbers are the index's).

        RAISES: LinkguardError E045 (no document tokens), E046 (bm25s missing).
        """
        docs, words = index_documents(index)
        return cls(docs, words, index.settings, doc_ids=index.doc_ids, **kwargs)

    def query_ids(self, text: str) -> List[int]:
        """The distinct token ids of `text`, tokenized the index's way (unknown words dropped)."""
        from ..ngrams import text_segments

        ids = {self.word_id.get(key) for seg in text_segments(text, self.settings) for key in seg.keys}
        ids.discard(None)
        return sorted(ids)  # type: ignore[arg-type]

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every document (by document number) for `text` as the query."""
        ids = self.query_ids(text)
        if not ids:
            return np.zeros(self.n_docs, dtype=np.float64)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)

    def rank(self, text: str, sources: Iterable[int]) -> Optional[int]:
        """Best 1-based rank of the document numbers `sources` for `text` (None without sources)."""
        sources = list(sources)
        if not sources:
            return None
        return source_rank(self.scores(text), sources)

    def ranks(self, texts: Sequence[str], sources: Sequence[Iterable[int]]) -> List[Optional[int]]:
        """`rank` of each text with its sources (the embedding attacker's signature)."""
        return [self.rank(t, src) for t, src in zip(texts, sources)]


_CACHE: Dict[Tuple[str, str], BM25Attacker] = {}


def bm25_attacker(index: Any) -> BM25Attacker:
    """The BM25 attacker of an open index, built once per process (keyed by folder and checksum)."""
    key = (str(getattr(index, "path", id(index))), str(getattr(index, "checksum", "")))
    if key not in _CACHE:
        _CACHE[key] = BM25Attacker.from_index(index)
    return _CACHE[key]
