"""generic_words.txt: every entry generalizes, by a walk over WordNet's own files.

A generic word may always be written (grounding/grounder.py): that is only
harmless if it says less than whatever it replaces. Here each entry must
have, for one of its noun or verb senses, at least 10 synsets below it
within 3 hyponym steps, found by reading every synset line of data.noun and
data.verb (tests/grounding/brute_wordnet.py), not through the product's
reader.
"""
import pytest
from spacy.lang.en.stop_words import STOP_WORDS

from spacy_linkguard.grounding import Grounder, load_generic_words
from spacy_linkguard.grounding.grounder import GENERIC_WORDS_PATH

from .brute_wordnet import generic_words, read_wordnet, within

ENTRIES = sorted(generic_words(GENERIC_WORDS_PATH))


@pytest.fixture(scope="module")
def wn():
    return read_wordnet()


def hyponyms_within_3(wn, word: str) -> int:
    """The most synsets within 3 hyponym steps below one noun or verb sense of `word`."""
    return max([len(within(wn.down, (pos, off), 3)) for pos in ("n", "v")
                for off in wn.index[pos].get(word, ())] or [0])


def test_the_file_parses_to_the_products_set():
    assert load_generic_words() == generic_words(GENERIC_WORDS_PATH)
    assert len(ENTRIES) >= 100
    assert all(w == w.strip().lower() and " " not in w for w in ENTRIES)


@pytest.mark.parametrize("word", ENTRIES)
def test_every_entry_has_ten_synsets_below_it_within_three_steps(wn, word):
    assert hyponyms_within_3(wn, word) >= 10, word


def test_the_walk_tells_a_generic_word_from_a_specific_one(wn):
    # the check could fail: a specific noun or verb has (almost) nothing below it
    assert hyponyms_within_3(wn, "truncheon") < 10
    assert hyponyms_within_3(wn, "admissible") == 0  # no noun, no verb
    assert hyponyms_within_3(wn, "vehicle") >= 10


def test_no_entry_is_a_stop_word_in_every_form():
    # The rule never checks a stop word (grounding/words.py), so an entry that is one
    # serves only its inflections that are not: "took" for "take", "said" for "say".
    # An entry with no such form would be dead.
    grounder = Grounder()
    stop = sorted(w for w in ENTRIES if w in STOP_WORDS)
    forms = {"amount": "amounts", "get": "got", "give": "gave", "go": "went", "make": "makes",
             "move": "moved", "part": "parts", "say": "said", "take": "took"}
    assert stop == sorted(forms), stop
    for entry, form in forms.items():
        assert form not in STOP_WORDS
        # grounded by the list alone: the input has nothing to do with it
        assert grounder.ungrounded_words("The applicant slept.", f"The applicant {form}.") == [], form
        bare = Grounder(generic=[w for w in ENTRIES if w != entry])
        assert bare.ungrounded_words("The applicant slept.", f"The applicant {form}.") == [form]
