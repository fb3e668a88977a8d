"""The embedding attacker: the collection ranked by cosine to a released text's embedding.

The same search as the semantic-linkage analysis (Figure 3): a
sentence-transformers model (all-MiniLM-L6-v2 by default) embeds the first
window of each collection document and of the released text; documents are
ranked by cosine. `Embedder` is the one document embedder of the package
(the evaluation's similarity metric uses it too). Nothing is downloaded: a
model not on this machine is reported (E250), never faked.
"""
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy as np

from ..errors import Errors, LinkguardError
from .ranks import DEFAULT_RANK_MODEL as DEFAULT_MODEL


class Embedder:
    """A sentence-transformers model that embeds whole documents.

    A document longer than the model's window is cut into consecutive
    windows of whole words; its embedding is the normalized mean of the
    window embeddings, so a change anywhere in the document moves it (with
    plain truncation a rewrite past the first ~256 tokens would be invisible).
    """

    def __init__(self, name: str, *, device: str = "cpu", batch_size: int = 4, window_words: int = 0,
                 cache_size: int = 20_000):
        """Load a model by name.

        batch_size: windows a forward pass; small batches of ~250-token windows
            run faster on a CPU than large ones (their activations stay in the
            cache: 4 windows took 0.79 s where 32 took 1.0 s on 2 cores).
        cache_size: window embeddings kept, so a window embedded once (an
            output's first window for the ranking attacker after the similarity
            metric, a window a rewrite left unchanged in another row) is not
            embedded again; the cache is emptied when full.
        RAISES: LinkguardError E250 when the model is not on this machine.
        """
        from ..llm.local_models import locate_sentence_model, offline_env

        avail = locate_sentence_model(name)
        if not avail.available:
            raise LinkguardError(Errors.E250.format(name=name, reason=avail.reason))
        offline_env()
        from sentence_transformers import SentenceTransformer

        self.name = name
        self.path = avail.path
        self.model = SentenceTransformer(str(avail.path), device=device)
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: Dict[str, np.ndarray] = {}
        # Words per window: about 3/4 of the token window (word pieces and punctuation).
        max_tokens = int(getattr(self.model, "max_seq_length", 256) or 256)
        self.window_words = window_words or max(16, int(max_tokens * 0.7))

    def windows(self, text: str) -> List[str]:
        words = text.split()
        if not words:
            return [""]
        w = self.window_words
        return [" ".join(words[i : i + w]) for i in range(0, len(words), w)]

    def embed(self, texts: Sequence[str], *, truncate: bool = False, progress: bool = False) -> np.ndarray:
        """Embed documents.

        texts (Sequence[str]): Documents.
        truncate (bool): Embed only the first window of each document (fast;
            used for a whole collection in the semantic-linkage analysis).
        RETURNS (np.ndarray): (len(texts), dim) float32, rows of unit length.
        """
        pieces: List[str] = []
        owner: List[int] = []
        for i, text in enumerate(texts):
            wins = self.windows(text)
            if truncate:
                wins = wins[:1]
            pieces.extend(wins)
            owner.extend([i] * len(wins))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        embed_missing(self.model, self._cache, pieces, cache_size=self.cache_size, batch_size=self.batch_size,
                      progress=progress)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(out, np.asarray(owner), np.stack([self._cache[p] for p in pieces]))
        return normalize_rows(out)

    @property
    def dim(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())


def embed_missing(model: Any, cache: Dict[str, np.ndarray], texts: Iterable[str], *, cache_size: int,
                  batch_size: int, progress: bool = False) -> None:
    """Add to `cache` (text -> unit-length embedding by `model`, a
    SentenceTransformer) each text of `texts` it lacks, every distinct text
    encoded once, in batches of `batch_size`. A cache that would grow past
    `cache_size` is emptied first (and all of `texts` encoded again)."""
    texts = list(dict.fromkeys(texts))
    missing = [t for t in texts if t not in cache]
    if len(cache) + len(missing) > cache_size:
        cache.clear()
        missing = texts
    if missing:
        vecs = model.encode(missing, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
                            show_progress_bar=progress)
        cache.update(zip(missing, vecs))


def normalize_rows(mat: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return mat / norms


def target_ranks(query_emb: np.ndarray, coll_emb: np.ndarray, targets: Sequence[int]) -> List[int]:
    """0-based rank of each query's target among the collection by cosine.

    Rows of both matrices must be unit length. The rank counts collection
    documents scoring strictly higher than the target, so ties favour the
    target (the adversary's best case for a tie is the conservative one).
    """
    scores = query_emb @ coll_emb.T
    ranks = []
    for i, t in enumerate(targets):
        ranks.append(int(np.sum(scores[i] > scores[i, t])))
    return ranks


def index_texts(index: Any) -> List[str]:
    """Each document of an index as text: its tokens (the index's normalized words) joined by spaces.

    RAISES: LinkguardError E045 (an index without document tokens).
    """
    from .bm25 import index_documents

    docs, words = index_documents(index)
    return [" ".join(words[t] for t in d.tolist()) for d in docs]


class EmbeddingAttacker:
    """Ranks the collection by cosine to a released text (first window of each, as Figure 3)."""

    def __init__(self, embedder: Any, collection_emb: np.ndarray):
        """embedder: an `Embedder` (or anything with `embed(texts, truncate=True)`);
        collection_emb: unit rows, one per document number."""
        self.embedder = embedder
        self.collection_emb = np.asarray(collection_emb)
        self.n_docs = len(self.collection_emb)

    @classmethod
    def from_texts(cls, embedder: Any, texts: Sequence[str], *, cache_file: Optional[Path] = None) -> "EmbeddingAttacker":
        """Embed the collection (`texts` by document number), read from / written to `cache_file`."""
        if cache_file is not None and Path(cache_file).is_file():
            emb = np.load(cache_file)
            if len(emb) == len(texts):
                return cls(embedder, emb)
        emb = embedder.embed(list(texts), truncate=True)
        if cache_file is not None:
            Path(cache_file).parent.mkdir(parents=True, exist_ok=True)
            np.save(cache_file, emb)
        return cls(embedder, emb)

    def ranks(self, texts: Sequence[str], sources: Sequence[Iterable[int]]) -> List[Optional[int]]:
        """Per text, the best 1-based rank of its document numbers `sources` (None without sources)."""
        from .bm25 import source_rank

        texts = list(texts)
        if not texts:
            return []
        scores = self.embedder.embed(texts, truncate=True) @ self.collection_emb.T
        return [source_rank(row, list(src)) for row, src in zip(scores, sources)]

    def rank(self, text: str, sources: Iterable[int]) -> Optional[int]:
        return self.ranks([text], [list(sources)])[0]


def load_embedder(name: str = DEFAULT_MODEL) -> "Embedder":
    """RAISES: LinkguardError E250 (model not on this machine), E046 (sentence-transformers missing)."""
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        raise LinkguardError(Errors.E046.format(what="The embedding attacker", package="sentence-transformers")) from None
    return Embedder(name)


def index_embedding_attacker(index: Any, model: str = DEFAULT_MODEL) -> Optional[EmbeddingAttacker]:
    """The embedding attacker over an index's own documents (its words), or None
    with W010 when the model or sentence-transformers is not on this machine."""
    import warnings

    from ..errors import LinkguardWarning, Warnings
    from ..llm.local_models import locate_sentence_model

    avail = locate_sentence_model(model)
    if not avail.available:
        warnings.warn(Warnings.W010.format(reason=f"{model!r} is not on this machine ({avail.reason})"),
                      LinkguardWarning)
        return None
    try:
        embedder = load_embedder(model)
    except LinkguardError as e:
        warnings.warn(Warnings.W010.format(reason=str(e)), LinkguardWarning)
        return None
    return EmbeddingAttacker.from_texts(embedder, index_texts(index))
