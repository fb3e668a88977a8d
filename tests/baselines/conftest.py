"""Shared fixtures of the lexical-baseline tests.

`cheap_scorer` is the harmonic-mean scorer with a deterministic word-overlap
similarity instead of a sentence-transformers model, so the paraphrasing
tests need no embedding model; the real model has its own slow test.
"""
from typing import List, Sequence

import pytest

from spacy_linkguard.baselines.scoring import HarmonicScorer
from spacy_linkguard.baselines.wordnet import WordNet


def jaccard_similarity(texts_a: Sequence[str], texts_b: Sequence[str]) -> List[float]:
    out = []
    for a, b in zip(texts_a, texts_b):
        x, y = set(a.lower().split()), set(b.lower().split())
        out.append(len(x & y) / len(x | y) if x | y else 1.0)
    return out


@pytest.fixture(scope="session")
def wordnet() -> WordNet:
    return WordNet()


@pytest.fixture(scope="session")
def nlp():
    from spacy_linkguard.baselines.paraphraser import load_tagger

    return load_tagger()


@pytest.fixture(scope="session")
def cheap_scorer() -> HarmonicScorer:
    return HarmonicScorer(jaccard_similarity)
