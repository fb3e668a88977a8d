"""Brute-force oracle and corpus generators for the index tests."""
import random
from typing import Dict, List, Set

from spacy_linkguard.ngrams import NgramSettings, text_ngram_keys

WORDS = ["the", "The", "THE", "court", "Court", "applicant", "held", "that", "there", "has", "been",
         "a", "violation", "of", "Article", "6", "§", "1", "Straße", "strasse", "naïve", "Kotuła", "İstanbul",
         "non\u2011pecuniary", "non-pecuniary", "it\u2019s", "it's", "\u201cquoted\u201d", "\"quoted\"", "«x»",
         "5\u22122", "[REDACTED]", "[REDACTED],", "X[REDACTED]Y", "Mr.", "no.", "36110/97", "ﬁnal", "日本",
         "emoji😀", "e.g.", "U.S.", "don't", "can't", "1,000", "(a)", "--", "...", "\u00a0nbsp"]
SEPS = [" ", " ", " ", " ", ", ", ". ", "; ", "\n", " - ", " \u2014 ", "\t", "  ", ": ", "\n\n"]


def random_corpus(seed: int, n_docs: int, max_words: int = 60, words: List[str] = WORDS) -> List[dict]:
    """Documents of random words and separators (punctuation, placeholders, quotes,
    dashes, casing, Unicode); some share long runs so that df >= 2 is common."""
    rng = random.Random(seed)
    shared = [" ".join(rng.choice(words) for _ in range(12)) for _ in range(3)]
    docs = []
    for i in range(n_docs):
        parts = []
        for _ in range(rng.randint(1, max_words)):
            parts.append(rng.choice(words) if rng.random() > 0.05 else rng.choice(shared))
            parts.append(rng.choice(SEPS))
        docs.append({"id": f"d{i}", "text": "".join(parts)})
    return docs


def oracle(texts: List[str], settings: NgramSettings) -> Dict[str, List[int]]:
    """key -> sorted document numbers, from the set of N-gram keys of each text."""
    post: Dict[str, List[int]] = {}
    for i, text in enumerate(texts):
        keys: Set[str] = text_ngram_keys(text, settings)
        for k in keys:
            post.setdefault(k, []).append(i)
    return post
