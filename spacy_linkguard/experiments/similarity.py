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
from ..llm.local_models import locate_sentence_model, offline_env  # noqa: F401
# The embedder is the product's (the embedding attacker of `detect --rank` uses it too).
from ..attack.embedding import Embedder, normalize_rows  # noqa: F401

# The name callers of this module know; the locator itself is in llm/local_models.py.
locate_model = locate_sentence_model


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
