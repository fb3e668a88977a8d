"""Grounder: the words a rewrite adds that its input does not account for,
against the rule computed by brute force over WordNet's own files
(tests/grounding/brute_wordnet.py: index.<pos>, every data.<pos> line, a
breadth-first walk up 3 hypernym steps)."""
import pytest

from spacy_linkguard.grounding import Grounder, content_words, load_generic_words

from .brute_wordnet import BruteGrounder

# (input, output, the ungrounded words written by hand)
PAIRS = [
    # the examples: a sentence that reads well and says something else
    ("On [REDACTED] the Court declared the application admissible.",
     "On [REDACTED] the Court determined the application to be valid.", ["determined", "valid"]),
    ("The jury found him guilty of theft.", "The jury declared them innocent of theft.", ["innocent"]),
    ("She won a silver medal at the championships.", "She won a bronze medal at the championships.", ["bronze"]),
    ("The applicant was represented by their Agent, Mr D. Smith.",
     "The applicant was assisted by its representative.", ["assisted"]),
    ("The company launched a new phone in 2010.",
     "The company captivated the market with its high-quality design in 2010.",
     ["captivated", "market", "high-quality", "design"]),
    # synonyms and hypernyms (all senses, up to 3 steps), generic words
    ("He bought a car in Kraljevo.", "He bought a vehicle in Kraljevo.", []),
    ("The police beat him with truncheons.", "The police beat him with clubs.", []),
    ("A policeman stopped the applicant.", "Two officers stopped the applicant.", []),
    ("The policeman stopped her.", "The officer stopped her.", []),
    ("She participated in the protest.", "She took part in the protest.", []),
    ("The court declares the complaint inadmissible.", "The court declared the complaint inadmissible.", []),
    ("He was beaten with a truncheon.", "He was beaten with a baton and a whip.", ["whip"]),
    ("The applicant's dog bit the neighbour.", "The applicant's animal bit a person.", []),
    ("The applicant's dog bit the neighbour.", "The applicant's cat bit a person.", ["cat"]),
    # multi-word WordNet entries, inflected as a sentence writes them
    ("They investigated the complaint.", "They looked into the complaint.", []),
    ("They will investigate the complaint.", "They will look into the complaint.", []),
    ("He died in 2001.", "He passed away in 2001.", []),
    ("He kicked the bucket in 2001.", "He died in 2001.", []),
    ("He died in 2001.", "He kicked the ball in 2001.", ["kicked", "ball"]),
    # hyphenated words: each content part grounded
    ("The treatment was cruel and degrading.", "The degrading-cruel treatment.", []),
    ("The treatment was cruel.", "The cruel-degrading treatment.", ["cruel-degrading"]),
]


@pytest.fixture(scope="module")
def grounder():
    return Grounder()


@pytest.fixture(scope="module")
def brute(grounder):
    return BruteGrounder(grounder.wordnet, load_generic_words())


@pytest.mark.parametrize("source,output,expected", PAIRS)
def test_ungrounded_words_match_the_brute_force_walk(grounder, brute, source, output, expected):
    assert grounder.ungrounded_words(source, output) == expected
    assert brute.ungrounded(source, output) == expected  # the brute force agrees with the hand


def test_the_brute_force_agrees_on_every_direction_of_every_pair(grounder, brute):
    # each pair read backwards too, and each output against another pair's input
    pairs = [(b, a) for a, b, _ in PAIRS] + [(PAIRS[i][0], PAIRS[i - 1][1]) for i in range(len(PAIRS))]
    found = []
    for source, output in pairs:
        got = grounder.ungrounded_words(source, output)
        assert got == brute.ungrounded(source, output), (source, output)
        found.append(got)
    assert sum(map(bool, found)) >= len(pairs) // 2  # the comparison is not between two empty lists


def test_placeholder_function_words_and_digits_never_count(grounder, brute):
    out = "[REDACTED] and [REDACTED] were there on 12 May 2001, however, in 3rd row, 42nd in the 1990s on the M25."
    assert [w.key for w in content_words(out)] == ["row"]
    for source, output in [("Nothing.", out), ("Nothing.", "It was X 12 2001 4th 2x.")]:
        assert grounder.ungrounded_words(source, output) == brute.ungrounded(source, output)
    assert grounder.ungrounded_words("Nothing.", out) == ["row"]
    assert grounder.ungrounded_words("Nothing.", "[REDACTED] was there however, several times, 12 or 3rd.") == []
    # a custom placeholder is no word either; the default then reads as a word
    other = Grounder(grounder.wordnet, placeholder="<PERSON>")
    assert other.ungrounded_words("Nothing.", "<PERSON> slept.") == ["slept"]
    assert other.ungrounded_words("Nothing.", "[REDACTED] slept.") == ["REDACTED", "slept"]


def test_a_word_written_twice_counts_twice(grounder):
    assert grounder.ungrounded_words("He slept.", "He sang, and sang again, in bronze.") == ["sang", "sang", "bronze"]


def test_depth_zero_grounds_synonyms_but_not_hypernyms(grounder):
    flat = Grounder(grounder.wordnet, depth=0)
    brute = BruteGrounder(grounder.wordnet, load_generic_words(), depth=0)
    for source, output, expected in [
        ("He bought a car.", "He bought an automobile.", []),  # a synonym
        ("He bought a car.", "He bought a motorcar.", []),
        ("He bought a car.", "He bought a vehicle.", []),  # a hypernym, but a generic word
        ("He fed the dog.", "He fed the canine.", ["canine"]),  # a hypernym (1 step)
        ("He fed the dog.", "He fed the domestic dog.", []),
        ("A policeman stopped her.", "An officer stopped her.", []),  # "policeman, police officer, officer"
        ("A policeman stopped her.", "A lawman stopped her.", ["lawman"]),  # a hypernym (1 step)
        ("A policeman stopped her.", "A cop stopped her.", ["cop"]),  # a hyponym: more specific
    ]:
        assert flat.ungrounded_words(source, output) == expected == brute.ungrounded(source, output)
    assert grounder.ungrounded_words("He fed the dog.", "He fed the canine.") == []


def test_the_hypernym_steps_stop_at_depth(grounder):
    # "car" (railcar) -> "wheeled vehicle" -> ... -> "conveyance": 3 steps over one of its senses
    steps = {depth: Grounder(grounder.wordnet, generic=[], depth=depth).ungrounded_words(
        "He bought a car.", "He bought a wheeled vehicle and a conveyance.") for depth in (0, 1, 2, 3)}
    brute = {depth: BruteGrounder(grounder.wordnet, [], depth=depth).ungrounded(
        "He bought a car.", "He bought a wheeled vehicle and a conveyance.") for depth in (0, 1, 2, 3)}
    assert steps == brute
    assert steps[0] == ["wheeled", "vehicle", "conveyance"]
    assert steps[1] == steps[2] == ["conveyance"] and steps[3] == []
    assert Grounder(grounder.wordnet, generic=[]).ungrounded_words("He bought a car.", "He bought a motor vehicle.") == []
