"""The candidate filters in order (filters/chain.py), the grounded-words guard
(f5) and the fluency filter (f9). Replies are canned
(tests/rewrite/canned_sentences.py), not a real LLM."""
import dataclasses

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters import reasons
from spacy_linkguard.filters.chain import CandidateFilters
from spacy_linkguard.filters.f5_grounded import GroundedGuard
from spacy_linkguard.filters.reasons import (BANNED_PHRASE, NO_CHANGE, REASONS, STILL_LINKING, UNGRAMMATICAL,
                                             UNGROUNDED_WORD, UNKNOWN_WORD)
from spacy_linkguard.grounding import Grounder
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.ranking import CandidateRanker
from spacy_linkguard.rewrite.sentence_rewriter import SentenceRewriter

from ..rewrite.canned_sentences import CannedSentenceModel
from ..rewrite.test_sentence_rewriter import chunk_for

SETTINGS = NgramSettings()
SENTENCE = "He was arrested by the police on 3 May 2001 at the railway station in Kraljevo."
PHRASE = "at the railway station"
# an ungrounded word ("gendarmes": more specific than "police") in a banned phrase (a linking
# N-gram of the document: the flagged span itself is f1's, "no_change")
BOTH = SENTENCE.replace("by the police", "by gendarmes").replace(PHRASE, "at a building")
BANNED = [PHRASE, "by gendarmes"]
FINE = SENTENCE.replace(" at the railway station", " at a building")  # "building": a generic word


@pytest.fixture(scope="module")
def grounder():
    return Grounder()


class SpyJudge:
    """The loop's judge (f7, f8): records what reached it; counts `left` spans for `linking` texts."""

    settings = SETTINGS

    def __init__(self, linking=(), unknown=()):
        self.linking, self.unknown, self.seen = set(linking), set(unknown), []

    def __call__(self, chunk, edited):
        self.seen.append(edited)
        return (1 if edited in self.linking else 0), None

    def unknown_words(self, chunk, edited):
        return ["yeer"] if edited in self.unknown else []


def filters(grounder, grounded=True, max_ungrounded=0):
    task = make_rewrite_sentences_task(examples=[])
    return CandidateFilters(task, GroundedGuard(grounder, max_ungrounded) if grounded else None)


def test_the_first_filter_that_rejects_names_the_reason(grounder):
    chunk = chunk_for(SENTENCE, PHRASE)
    banned = BANNED
    judge = SpyJudge(linking={BOTH, FINE}, unknown={BOTH, FINE})
    # BOTH fails f5 and f6 (and, to the judge, f7 and f8): f5 reports it, the judge never sees it
    assert filters(grounder).check(chunk, "", BOTH, banned, SETTINGS, judge) == (None, UNGROUNDED_WORD)
    assert filters(grounder, grounded=False).check(chunk, "", BOTH, banned, SETTINGS, judge) == (None, BANNED_PHRASE)
    assert judge.seen == []
    # the flagged span kept (f1), ungrounded (f5) and banned (f6): f1
    kept = SENTENCE.replace("by the police", "by gendarmes")
    assert filters(grounder).check(chunk, "", kept, banned, SETTINGS, judge) == (None, NO_CHANGE)
    # FINE passes f1-f6; f7 then f8
    assert filters(grounder).check(chunk, "", FINE, banned, SETTINGS, judge) == (None, STILL_LINKING)
    judge.linking.clear()
    assert filters(grounder).check(chunk, "", FINE, banned, SETTINGS, judge) == (None, UNKNOWN_WORD)
    judge.unknown.clear()
    assert filters(grounder).check(chunk, "", FINE, banned, SETTINGS, judge) == (FINE, None)
    assert judge.seen == [FINE] * 3
    assert filters(grounder).check(chunk, "", FINE, banned, SETTINGS, None) == (FINE, None)


def test_the_guard_reads_the_input_sentence_and_its_neighbours(grounder):
    chunk = chunk_for(SENTENCE, PHRASE)
    guard = GroundedGuard(grounder)
    assert guard.ungrounded(chunk, BOTH) == ["gendarmes"]
    for context in [("A gendarme was called.", ""), ("", "The gendarmes left.")]:
        assert guard.ungrounded(dataclasses.replace(chunk, context=context), BOTH) == []
    # the input is the document's sentence (Chunk.original), not an earlier pass's rewrite
    rewritten = dataclasses.replace(chunk_for(BOTH, "at a building"), origin=SENTENCE)
    assert guard(rewritten, BOTH.replace("by gendarmes", "by the police force")) is None
    assert guard(rewritten, BOTH) == UNGROUNDED_WORD
    assert guard(chunk_for(BOTH, "at a building"), BOTH.replace("by gendarmes", "by the police force")) == UNGROUNDED_WORD


def test_every_reason_is_listed_once_in_the_order_the_filters_run():
    names = {v for k, v in vars(reasons).items() if k.isupper() and isinstance(v, str)}
    assert names == set(REASONS) and len(REASONS) == len(set(REASONS))
    order = [REASONS.index(r) for r in (NO_CHANGE, UNGROUNDED_WORD, BANNED_PHRASE, STILL_LINKING, UNKNOWN_WORD,
                                        UNGRAMMATICAL)]
    assert order == sorted(order)


def test_max_ungrounded_admits_that_many_words(grounder):
    chunk = chunk_for(SENTENCE, PHRASE)
    one = BOTH
    two = one.replace("Kraljevo", "Kraljevo, blindfolded")
    guard = GroundedGuard(grounder)
    assert guard.ungrounded(chunk, one) == ["gendarmes"]
    assert guard.ungrounded(chunk, two) == ["gendarmes", "blindfolded"]
    assert guard(chunk, one) == UNGROUNDED_WORD
    loose = GroundedGuard(grounder, max_ungrounded=1)
    assert loose(chunk, one) is None and loose(chunk, two) == UNGROUNDED_WORD
    assert filters(grounder, max_ungrounded=1).check(chunk, "", one, [PHRASE], SETTINGS) == (one, None)


@pytest.mark.parametrize("bad", [-1, True, 1.0, "1", None])
def test_a_bad_max_ungrounded_is_e207(grounder, bad):
    with pytest.raises(LinkguardError, match="E207.*max_ungrounded"):
        GroundedGuard(grounder, max_ungrounded=bad)


@pytest.mark.parametrize("bad", [0, -0.5, True, "1"])
def test_a_bad_max_loss_rise_is_e207(bad):
    with pytest.raises(LinkguardError, match="E207.*max_loss_rise"):
        CandidateRanker(max_loss_rise=bad)


def test_the_fluency_filter_drops_a_candidate_whose_loss_rises_too_far():
    rises, within = SENTENCE.replace(PHRASE, "there"), SENTENCE.replace(PHRASE, "at a building")
    model = CannedSentenceModel(lambda *a: SENTENCE, losses={SENTENCE: 1.0, rises: 1.6, within: 1.4})
    ranker = CandidateRanker(None, model, max_loss_rise=0.5)
    (scores,) = ranker.scores([(SENTENCE, "prompt", [rises, within])])
    assert scores[0] is None and isinstance(scores[1], float)
    assert ranker.best([(SENTENCE, "prompt", [rises])]) == [None]
    # without the limit both are scored, the rise only weighed
    assert None not in CandidateRanker(None, model).scores([(SENTENCE, "prompt", [rises, within])])[0]


def test_the_rewriter_counts_an_unfluent_candidate_as_ungrammatical(grounder):
    rises, within = SENTENCE.replace(" " + PHRASE, ""), SENTENCE.replace(PHRASE, "at a building")
    replies = [rises, within]
    for losses, edited, rejected in [({rises: 1.6, within: 1.4}, within, {UNGRAMMATICAL: 1}),
                                     ({rises: 1.6, within: 1.7}, None, {UNGRAMMATICAL: 2})]:
        model = CannedSentenceModel(lambda s, p, prompt, a: replies[a % 2], losses={SENTENCE: 1.0, **losses})
        rw = SentenceRewriter(make_rewrite_sentences_task(examples=[]), model, n_candidates=2, max_retries=0,
                              generalize=False, ranker=CandidateRanker(None, model, max_loss_rise=0.5),
                              grounded=GroundedGuard(grounder))
        (out,) = rw.rewrite_chunks([chunk_for(SENTENCE, PHRASE)])
        assert out.edited == edited and out.rejected == rejected
