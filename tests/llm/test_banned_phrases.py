"""banned_phrases: the streaming matcher decides as `rewrite.occurs` does.

Oracle: `occurs` on the whole final text. Texts are random mixes of words
(cases, contractions, hyphens, punctuation, line breaks, blank lines), cut
into random "tokens" as a model would emit them.
"""
import random

from spacy_linkguard.llm.models.banned_phrases import PhraseSet, PhraseWatcher, first_occurrence
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.occurs import occurs

SETTINGS = NgramSettings()
WORDS = ["John", "Smith", "smith", "SMITH", "Smithson", "lives", "in", "Paris", "Paris.", "I'm", "don't",
         "non-pecuniary", "U.S.", "(Paris)", "Smith,", "[REDACTED]", "e.g.", "Mr.", "Strasbourg"]
GAPS = [" ", " ", " ", "\n", "\n\n", "  ", ", ", "; ", " - "]
PHRASES = ["John Smith", " smith", "Paris", "I'm", "non-pecuniary", "lives in Paris", "U.S.", "don't", "Mr. Smith"]


def random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 14)):
        out.append(rng.choice(WORDS))
        out.append(rng.choice(GAPS))
    return "".join(out[: rng.choice([-1, len(out)])])  # ends with or without a gap


def stream(text: str, phrases: PhraseSet, rng: random.Random):
    """Feed `text` in random pieces; RETURNS the offset the watcher reported, or None."""
    watcher = PhraseWatcher(phrases)
    i = 0
    while i < len(text):
        i = min(len(text), i + rng.randint(1, 4))
        found = watcher.scan(text[:i])
        if found is not None:
            return found
    return watcher.scan(text, ended=True)


def test_streaming_and_whole_text_match_occurs():
    rng = random.Random(0)
    for trial in range(1500):
        text = random_text(rng)
        chosen = rng.sample(PHRASES, rng.randint(1, 3))
        phrases = PhraseSet(chosen, SETTINGS)
        expected = any(occurs(p, text, SETTINGS) for p in chosen)
        whole = first_occurrence(text, phrases)
        assert (whole is not None) == expected, (text, chosen)
        streamed = stream(text, phrases, rng)
        assert (streamed is not None) == expected, (text, chosen)
        if expected:
            # the reported offset starts an occurrence: the text from there on still holds one
            assert any(occurs(p, text[streamed:], SETTINGS) for p in chosen), (text, chosen, streamed)


def test_a_word_is_matched_only_once_complete():
    phrases = PhraseSet(["Smith"], SETTINGS)
    watcher = PhraseWatcher(phrases)
    assert watcher.scan("Mr Smith") is None  # "Smithson" may follow
    assert watcher.scan("Mr Smithson") is None
    assert watcher.scan("Mr Smithson and Smith") is None
    assert watcher.scan("Mr Smithson and Smith ") == len("Mr Smithson and ")


def test_cut_forgets_the_text_after_it():
    phrases = PhraseSet(["John Smith"], SETTINGS)
    watcher = PhraseWatcher(phrases)
    assert watcher.scan("We met John ") is None
    assert watcher.scan("We met John Smith ") == len("We met ")
    watcher.cut(len("We met "))
    assert watcher.scan("We met Jane Smith ") is None
    assert watcher.scan("We met Jane Smith and John", ended=True) is None
    watcher.cut(len("We met "))
    assert watcher.scan("We met john  SMITH", ended=True) == len("We met ")


def test_phrases_without_keys_never_occur():
    phrases = PhraseSet(["", " , ", "..."], SETTINGS)
    assert not phrases
    assert first_occurrence("anything , ...", phrases) is None
