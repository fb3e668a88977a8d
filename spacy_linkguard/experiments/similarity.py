"""Semantic similarity between a released document and its rewrite.

Models are sentence-transformers models named as in the paper; each name is
resolved to a local folder (an installed model package or the Hugging Face
cache; `llm/local_models.locate_sentence_model`). Nothing is downloaded:
offline mode is set before loading (`llm/local_models.offline_env`), and a
model that is not on this machine is reported as unavailable, not faked.
"""
from typing import List, Sequence

import numpy as np

from ..errors import Errors, LinkguardError
from ..llm.local_models import ModelAvailability  # noqa: F401 (re-exported)
from ..llm.local_models import locate_sentence_model, offline_env

# The name callers of this module know; the locator itself is in llm/local_models.py.
locate_model = locate_sentence_model


class Embedder:
    """A sentence-transformers model that embeds whole documents.

    A document longer than the model's window is cut into consecutive
    windows of whole words; its embedding is the normalized mean of the
    window embeddings, so a change anywhere in the document moves it (with
    plain truncation a rewrite past the first ~256 tokens would be invisible).
    """

    def __init__(self, name: str, *, device: str = "cpu", batch_size: int = 32, window_words: int = 0):
        """Load a model by name.

        RAISES: LinkguardError E250 when the model is not on this machine.
        """
        avail = locate_sentence_model(name)
        if not avail.available:
            raise LinkguardError(Errors.E250.format(name=name, reason=avail.reason))
        offline_env()
        from sentence_transformers import SentenceTransformer

        self.name = name
        self.path = avail.path
        self.model = SentenceTransformer(str(avail.path), device=device)
        self.batch_size = batch_size
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
        vecs = self.model.encode(
            pieces,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=progress,
        )
        out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
        np.add.at(out, np.asarray(owner), vecs)
        return normalize_rows(out)

    @property
    def dim(self) -> int:
        return int(self.model.get_sentence_embedding_dimension())


def normalize_rows(mat: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return mat / norms


def paired_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of row i of `a` with row i of `b` (rows need not be normalized)."""
    a = normalize_rows(np.asarray(a, dtype=np.float64))
    b = normalize_rows(np.asarray(b, dtype=np.float64))
    return np.sum(a * b, axis=1)


def document_similarities(embedder: Embedder, inputs: Sequence[str], outputs: Sequence[str]) -> List[float]:
    """Cosine similarity between each input document and its output.

    RAISES: LinkguardError E251 when the two lists differ in length.
    """
    if len(inputs) != len(outputs):
        raise LinkguardError(Errors.E251.format(n_in=len(inputs), n_out=len(outputs)))
    if not inputs:
        return []
    ea = embedder.embed(inputs)
    eb = embedder.embed(outputs)
    return [float(x) for x in paired_cosine(ea, eb)]
