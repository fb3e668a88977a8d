"""The sentence task's words form (`words_to_change = true`): the prompt names
the fewest words whose change removes every flagged phrase, weighed by the
index's document frequencies, and the loop still ends safe by the brute-force
oracle. Replies are canned (tests/rewrite/canned_sentences.py): they say
nothing about a real model's quality."""
import re

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters.f2_facts import check_facts
from spacy_linkguard.llm.pivots import words_to_change
from spacy_linkguard.llm.tasks.rewrite.util import read_examples
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.llm.tasks.rewrite_sentences.util import (BUNDLED_EXAMPLES, BUNDLED_WORDS_EXAMPLES,
                                                              DEFAULT_WORDS_EXAMPLES_PATH)
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite import RewriteLoop
from spacy_linkguard.rewrite.judge import EditJudge
from spacy_linkguard.rewrite.occurs import occurs
from spacy_linkguard.rewrite.ranking import CandidateRanker
from spacy_linkguard.rewrite.sentence_rewriter import SentenceRewriter

from ..detect.oracle import oracle
from .canned_sentences import CannedSentenceModel, input_of
from .oracle import CORPUS, QUERY, DictIndex
from .test_sentence_rewriter import chunk_for

SETTINGS = NgramSettings()
SENTENCE = "The commission also considered that the applicant was particularly depraved."
COURT_WORDS = ("applicant", "court", "judgment", "convention", "government")


def test_the_prompt_names_the_words_not_the_phrases():
    task = make_rewrite_sentences_task(words_to_change=True, examples=[])
    chunk = chunk_for(SENTENCE, "commission also considered that", "was particularly depraved")
    obj = input_of(task.render(chunk))
    assert "phrases" not in obj
    assert obj["change"] == words_to_change(SENTENCE, chunk.span_offsets, SETTINGS) == ["considered", "depraved"]
    # the last round asks for a more general sentence and names the phrases: the words were changed in vain
    assert input_of(task.render(chunk, generalize=True))["phrases"] == task.banned(chunk)
    # the phrase form is unchanged
    assert "change" not in input_of(make_rewrite_sentences_task(examples=[]).render(chunk))


def test_the_rewriter_weighs_words_by_the_indexs_document_frequencies():
    # "considered" occurs in every document of this index, "depraved" and "commission" in none:
    # with the judge's frequencies the rare word of the first phrase is named instead
    corpus = [f"It was considered in case {i} and the applicant was heard." for i in range(6)]
    judge = EditJudge(Detector(DictIndex(corpus), k=2, max_arity=1), SETTINGS, [None])
    model = CannedSentenceModel(lambda s, words, prompt, a: s)
    task = make_rewrite_sentences_task(words_to_change=True, examples=[])
    rw = SentenceRewriter(task, model, n_candidates=1, max_retries=0, generalize=False,
                          ranker=CandidateRanker(None, model))
    chunk = chunk_for(SENTENCE, "commission also considered that", "was particularly depraved")
    rw.rewrite_chunks([chunk], judge=judge)
    assert input_of(model.prompts[0])["change"] == ["commission", "depraved"]
    assert judge.doc_share(["considered", "depraved", "applicant"]) == [1.0, 0.0, 1.0]


def synonym_rule(sentence, words, prompt, attempt):
    """Each named word dropped: a change of exactly the named words, in words
    the collection knows (the vocabulary filter)."""
    for w in words:
        sentence = re.sub(rf"\s*\b{re.escape(w)}\b", "", sentence)
    return sentence


@pytest.mark.parametrize("sources", [None, ["d0"]])
def test_the_loop_changing_only_the_named_words_ends_safe_by_the_oracle(sources):
    index = DictIndex(CORPUS)
    model = CannedSentenceModel(synonym_rule)
    task = make_rewrite_sentences_task(words_to_change=True)
    rw = SentenceRewriter(task, model, n_candidates=2, ranker=CandidateRanker(None, model))
    loop = RewriteLoop(Detector(index, k=2, max_arity=3), rw, max_passes=3)
    (res,) = loop.run([QUERY], sources=[sources])
    assert res.passes and res.passes[0].chunks_accepted >= 1
    assert all("change" in input_of(p) for p in model.prompts if "LESS detail" not in p)
    src = None if sources is None else {0}
    assert res.safe and oracle(res.text, index.keysets, index.settings, 2, 3, sources=src).safe


def test_the_words_form_has_its_own_bundled_examples():
    default = make_rewrite_sentences_task(words_to_change=True)
    assert [eg.sentence for eg in default.prompt_examples] == [
        eg["sentence"] for eg in read_examples(DEFAULT_WORDS_EXAMPLES_PATH)]
    assert DEFAULT_WORDS_EXAMPLES_PATH == BUNDLED_WORDS_EXAMPLES["echr"]
    assert sorted(BUNDLED_WORDS_EXAMPLES) == sorted(BUNDLED_EXAMPLES)
    wiki = make_rewrite_sentences_task(words_to_change=True, examples="wiki")
    shown = wiki.render(chunk_for(SENTENCE, "was particularly depraved"))
    assert all(eg.sentence in shown for eg in wiki.prompt_examples)
    assert '"change": ["conservatory", "competition"]' in shown


@pytest.mark.parametrize("name", sorted(BUNDLED_WORDS_EXAMPLES))
def test_each_bundled_example_changes_what_it_names_and_keeps_its_facts(name):
    for eg in read_examples(BUNDLED_WORDS_EXAMPLES[name]):
        sentence, rewritten = eg["sentence"], eg["rewritten"]
        flagged = [(sentence.lower().index(p), sentence.lower().index(p) + len(p)) for p in eg["phrases"]]
        # the named words hold a token of every phrase, and each is gone from the rewrite
        for a, b in flagged:
            assert any(re.search(rf"\b{w}\b", sentence[a:b]) for w in eg["change"]), (sentence, sentence[a:b])
        assert not any(re.search(rf"\b{w}\b", rewritten) for w in eg["change"]), rewritten
        assert not any(occurs(p, rewritten, SETTINGS) for p in eg["phrases"])
        # everything not named is kept: the rewrite keeps most of the words, in order
        kept = [w for w in re.findall(r"\w+", sentence) if w not in eg["change"]]
        assert sum(w in rewritten for w in kept) >= 0.8 * len(kept), rewritten
        assert check_facts(sentence, rewritten, flagged) is None, rewritten
        if name == "wiki":
            text = " ".join([sentence, rewritten, eg.get("before", ""), eg.get("after", "")]).lower()
            assert not [w for w in COURT_WORDS if w in text]


def test_a_word_to_change_that_is_not_in_the_sentence_is_e204(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text('- sentence: "He was held at the station."\n  phrases: ["held at the station"]\n'
                    '  change: ["arrested"]\n  rewritten: "He was kept at the station house."\n', encoding="utf8")
    with pytest.raises(LinkguardError, match="E204.*arrested"):
        make_rewrite_sentences_task(words_to_change=True, examples=str(path))
    # without `change` the task chooses the words itself, as for a document
    path.write_text('- sentence: "He was held at the station."\n  phrases: ["held at the station"]\n'
                    '  rewritten: "He was kept at the station."\n', encoding="utf8")
    task = make_rewrite_sentences_task(words_to_change=True, examples=str(path))
    assert '"change": ["station"]' in task.render(chunk_for(SENTENCE, "was particularly depraved"))


def test_the_words_guard_keeps_every_word_not_named_nor_next_to_one():
    from spacy_linkguard.filters.f4_kept_words import dropped_words, words_to_keep

    assert words_to_keep(SENTENCE, ["depraved"]) == ["commission", "considered", "applicant"]
    assert words_to_keep("On [REDACTED] the applicant left.", ["left"]) == []  # placeholder, near, function words
    near = "The commission also considered that the applicant was especially wicked."
    far = "A board also considered that the applicant was particularly wicked."
    assert dropped_words(SENTENCE, ["depraved"], near) == []
    assert dropped_words(SENTENCE, ["depraved"], far) == ["commission"]
    assert dropped_words(SENTENCE, ["depraved"], far.replace("board", "Commission")) == []  # case-folded
    # a named word with a clitic the index's tokenizer splits off is named too
    possessive = "The court heard the applicant's brother at length on the merits."
    assert "applicant's" not in words_to_keep(possessive, ["applicant"])
    assert words_to_keep(possessive, ["applicant"]) == ["court", "length", "merits"]


def test_the_rewriter_rejects_a_candidate_that_rewrote_words_it_was_not_told_to():
    from spacy_linkguard.filters.reasons import OTHER_WORDS_CHANGED

    rewritten = "The commission also judged that the applicant was particularly wicked."  # changed what was named
    whole = "A body likewise found that he was particularly wicked."  # rewrites unasked

    def rule(s, words, prompt, attempt):
        if "LESS detail" in prompt:
            return whole
        return [whole, rewritten][attempt]

    task = make_rewrite_sentences_task(words_to_change=True, examples=[])
    chunk = chunk_for(SENTENCE, "commission also considered", "particularly depraved")
    assert task.words_for(chunk) == ["considered", "depraved"]
    model = CannedSentenceModel(rule)
    rw = SentenceRewriter(task, model, n_candidates=2, max_retries=0, ranker=CandidateRanker(None, model))
    (out,) = rw.rewrite_chunks([chunk])
    assert out.edited == rewritten and out.rejected == {OTHER_WORDS_CHANGED: 1}
    # the generalizing round asks for other words: the words guard does not apply there
    model = CannedSentenceModel(lambda s, w, prompt, a: whole)
    rw = SentenceRewriter(task, model, n_candidates=1, max_retries=0, ranker=CandidateRanker(None, model))
    (out,) = rw.rewrite_chunks([chunk])
    assert out.edited == whole and out.rejected == {OTHER_WORDS_CHANGED: 1} and "LESS detail" in out.prompt
