"""Similarity with the installed all-MiniLM-L6-v2 (real model, loaded offline)."""
import numpy as np
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.similarity import Embedder, document_similarities, locate_model


def test_unknown_model_is_unavailable_with_a_reason():
    avail = locate_model("gte-modernbert-base-not-here")
    assert not avail.available
    assert avail.reason == (
        "not installed (looked for gte-modernbert-base-not-here in the Hugging Face cache)"
    )
    known = locate_model("paraphrase-distilroberta-base-v2")
    assert not known.available
    assert "sentence-transformers/paraphrase-distilroberta-base-v2 in the Hugging Face cache" in known.reason
    with pytest.raises(LinkguardError, match="E250"):
        Embedder("gte-modernbert-base-not-here")


@pytest.mark.slow
def test_minilm_similarity():
    assert locate_model("all-MiniLM-L6-v2").available
    emb = Embedder("all-MiniLM-L6-v2", window_words=20)
    a = "The applicant complained that the length of the proceedings had been excessive."
    b = "The claimant argued that the proceedings had taken far too long."
    c = "Bananas are rich in potassium and grow in tropical climates."
    sims = document_similarities(emb, [a, a, a], [a, b, c])
    assert sims[0] == pytest.approx(1.0, abs=1e-5)
    assert sims[1] > sims[2] and 0.3 < sims[1] < 1.0
    # A change past the first window moves a long document's embedding
    # (plain truncation would not see it).
    long_a = " ".join([a] * 4) + " " + a
    long_c = " ".join([a] * 4) + " " + c
    assert emb.embed([long_a, long_c], truncate=True)[0] @ emb.embed([long_a, long_c], truncate=True)[1] == pytest.approx(1.0, abs=1e-5)
    assert document_similarities(emb, [long_a], [long_c])[0] < 0.999
    with pytest.raises(LinkguardError, match="E251"):
        document_similarities(emb, [a], [])


@pytest.mark.slow
def test_a_window_is_embedded_once_and_the_same_as_alone():
    emb = Embedder("all-MiniLM-L6-v2", window_words=8)
    encoded = []
    encode = emb.model.encode

    def counting(texts, **kw):
        encoded.extend(texts)
        return encode(texts, **kw)

    emb.model.encode = counting
    first = "The applicant complained that the length of the"  # 8 words: one window
    doc = first + " proceedings had been excessive under Article 6 of the Convention."
    both = emb.embed([doc, doc + " The Government disagreed."])
    assert encoded.count(first) == 1  # the shared first window, and within one call
    again = emb.embed([doc], truncate=True)  # the ranking attacker's first window
    assert len(encoded) == len(set(encoded))  # nothing embedded twice
    # Whatever the batch, the same vector as the window embedded alone (to float32 rounding).
    alone = Embedder("all-MiniLM-L6-v2", window_words=8, batch_size=1)
    assert again[0] == pytest.approx(alone.embed([first])[0], abs=1e-6)
    assert both[0] == pytest.approx(alone.embed([doc])[0], abs=1e-6)
    # A full cache is emptied and the call still answers every text.
    small = Embedder("all-MiniLM-L6-v2", window_words=8, cache_size=2)
    assert small.embed([doc, first]) == pytest.approx(np.stack([both[0], again[0]]), abs=1e-6)
    assert len(small._cache) <= 3
