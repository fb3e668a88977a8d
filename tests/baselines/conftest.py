"""Shared fixtures of the lexical-baseline tests.

`lexical_index` / `lexical_queries`: a tiny collection and masked queries whose
flagged spans have WordNet synonyms (the component and loop tests share them).
`cheap_scorer` is the harmonic-mean scorer with a deterministic word-overlap
similarity instead of a sentence-transformers model, so the paraphrasing
tests need no embedding model; the real model has its own slow test.
"""
from typing import List, Sequence

import pytest

from spacy_linkguard.baselines.scoring import HarmonicScorer
from spacy_linkguard.baselines.wordnet import WordNet
from spacy_linkguard.index import NgramIndex

COLLECTION = [
    ("a", "The applicant lodged a complaint with the regional court in Vienna. "
          "The judges quickly rejected the complaint as unfounded."),
    ("b", "The lawyers examined the documents carefully and found serious errors."),
    ("c", "The applicant lodged a complaint. The judges rejected the complaint."),
    ("d", "The lawyers examined the documents and found errors with the court."),
    ("e", "It was in Paris on Monday."),
]
QUERIES = [
    "The applicant lodged a complaint with the regional court in [REDACTED]. "
    "The judges quickly rejected the complaint as unfounded.",
    "The lawyers examined the documents carefully and found serious errors.",
    "It was in Paris on Monday.",  # no content word WordNet can replace
]


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


@pytest.fixture(scope="session")
def lexical_index(tmp_path_factory):
    """Path of the index over COLLECTION."""
    path = tmp_path_factory.mktemp("lexical") / "idx"
    NgramIndex.build([{"id": i, "text": t} for i, t in COLLECTION], path, progress=False)
    return path


@pytest.fixture(scope="session")
def lexical_queries() -> List[str]:
    return list(QUERIES)
