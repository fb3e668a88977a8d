"""`occurs_any` (the text tokenized once) against the phrase-by-phrase definition
of "still occurs" written out here as the oracle."""
import random

from spacy_linkguard.ngrams import NgramSettings, text_segments
from spacy_linkguard.rewrite.occurs import occurs, occurs_any

WORDS = ["the", "The", "applicant", "police", "3", "May", "2001", "[REDACTED]", "court's", "-", "\n\n", "on", "ON"]


def occurs_oracle(phrase: str, text: str, settings: NgramSettings) -> bool:
    keys = [k for seg in text_segments(phrase, settings) for k in seg.keys]
    if not keys:
        return False
    n = len(keys)
    return any(list(seg.keys[i:i + n]) == keys for seg in text_segments(text, settings)
               for i in range(len(seg.keys) - n + 1))


def test_occurs_any_agrees_with_the_phrase_by_phrase_oracle():
    settings = NgramSettings()
    rng = random.Random(7)
    hits = 0
    for _ in range(300):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))
        phrases = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(0, 4))]
        expected = any(occurs_oracle(p, text, settings) for p in phrases)
        assert occurs_any(phrases, text, settings) == expected, (phrases, text)
        assert all(occurs(p, text, settings) == occurs_oracle(p, text, settings) for p in phrases)
        hits += expected
    assert 30 < hits < 270  # both answers were exercised
