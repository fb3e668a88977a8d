"""The polarity guard: a word turned into its opposite is caught; a rewrite
that only rewords or turns a sentence round is not. The flips below are
replies Qwen2.5-Coder-1.5B wrote on the GPU (benchmarks/results/gpu_words)."""
import pytest

from spacy_linkguard.filters.reasons import POLARITY_CHANGED
from spacy_linkguard.filters.f3_polarity import PREFIXES, polarity_flips
from spacy_linkguard.llm.tasks.rewrite.util import read_examples
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.llm.tasks.rewrite_sentences.util import BUNDLED_EXAMPLES, BUNDLED_WORDS_EXAMPLES

from ..rewrite.test_sentence_rewriter import chunk_for


@pytest.mark.parametrize("sentence,candidate,flip", [
    ("On 3 May the Court declared the application partly inadmissible.",
     "The Court determined that the application was partially admissible.", ("inadmissible", "admissible")),
    ("Struse ist right-hander, her strength is the offence.",
     "She is left-handed, and she excels in the offense.", ("right", "left")),
    ("She reached round three at the Summer Olympics.", "She reached round three at the Winter Olympics.",
     ("summer", "winter")),
    ("He was acquitted of all charges.", "He was convicted of all charges.", ("acquitted", "convicted")),
    ("The decision had been lawful.", "The decision had been unlawful.", ("lawful", "unlawful")),
    # listed opposites also by their crude stems
    ("The court allows the appeal.", "The court dismissed the appeal.", ("allows", "dismissed")),
    ("The jury acquits him.", "The jury convicted him.", ("acquits", "convicted")),
])
def test_a_word_turned_into_its_opposite_is_caught(sentence, candidate, flip):
    assert flip in polarity_flips(sentence, candidate)


@pytest.mark.parametrize("sentence,candidate", [
    ("He was arrested before the trial began.", "The trial began after he was arrested."),
    ("He won 26 matches and lost 11.", "He had 26 wins and 11 losses."),
    ("The applicant was informed of the decision.", "The applicant was told of the decision."),
    ("The court declared the application inadmissible.", "The court found the application inadmissible."),
    # a word that was there and stays is no flip, whatever is added beside it
    ("He was convicted but later acquitted.", "He was convicted and later acquitted on appeal."),
    # the appeal dismissed is the decision upheld; a prefix that negates nothing
    ("The appeal was dismissed.", "The decision was upheld on appeal."),
    ("He was informed of the charges.", "The charges were formed and read to him."),
    ("The immigration office refused.", "The migration office refused."),
])
def test_a_faithful_rewording_is_not_caught(sentence, candidate):
    assert polarity_flips(sentence, candidate) == []


def test_prefixes_need_a_stem_of_four_letters():
    assert polarity_flips("It was unusual.", "It was usual.") == [("unusual", "usual")]
    assert polarity_flips("He was in town.", "He was n town.") == []  # "in" + "n": no stem
    assert polarity_flips("They undo it.", "They do it.") == []  # "un" + "do": a stem of two letters
    assert all(p.isalpha() or p.endswith("-") for p in PREFIXES)


@pytest.mark.parametrize("sets", [BUNDLED_EXAMPLES, BUNDLED_WORDS_EXAMPLES])
def test_no_bundled_example_flips_a_word(sets):
    for path in sets.values():
        for eg in read_examples(path):
            assert polarity_flips(eg["sentence"], eg["rewritten"]) == [], eg["sentence"]


@pytest.mark.parametrize("words", [False, True])
def test_the_sentence_task_rejects_a_flip_as_polarity_changed(words):
    task = make_rewrite_sentences_task(examples=[], words_to_change=words)
    sentence = "On 3 May the Court declared the application partly inadmissible."
    chunk = chunk_for(sentence, "the Court declared")  # the words form names "declared"
    flipped = '{"sentence": "On 3 May the Court found the application partly admissible."}'
    kept = '{"sentence": "On 3 May the Court found the application partly inadmissible."}'
    change = task.words_for(chunk) if words else None
    assert task.review(chunk, task.render(chunk), flipped, change=change) == (None, POLARITY_CHANGED)
    assert task.review(chunk, task.render(chunk), kept, change=change)[1] is None
    off = make_rewrite_sentences_task(examples=[], fact_guard=False)
    assert off.review(chunk, off.render(chunk), flipped)[1] is None
