"""`linkguard.SentenceRewriter.v1` (rewrite/registry.py): the grounded-words
guard, the model-free candidates and the fluency limit as arguments, and the
shipped sentence configs resolved with a canned model (tests/rewrite/canned.py)."""
from pathlib import Path

import pytest
from spacy_llm.registry import registry
from thinc.api import Config

import spacy_linkguard.llm.tasks.rewrite_sentences.registry  # noqa: F401 -- registers the task
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters.f5_grounded import GroundedGuard
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.rewrite.model_free import ModelFreeCandidates
from spacy_linkguard.rewrite.registry import make_sentence_rewriter
from spacy_linkguard.rewrite.sentence_rewriter import SentenceRewriter

from . import canned  # noqa: F401 -- registers linkguard_test.Canned.v1
from .canned_sentences import CannedSentenceModel
from .test_sentence_rewriter import chunk_for

CONFIGS = Path(__file__).resolve().parents[2] / "spacy_linkguard" / "configs"
SENTENCE_CONFIGS = sorted(p.name for p in CONFIGS.glob("rewrite_qwen25_1p5b*.cfg")
                          if '"linkguard.SentenceRewriter.v1"' in p.read_text(encoding="utf8"))


def build(**kwargs):
    task = make_rewrite_sentences_task(examples=[], placeholder=kwargs.pop("placeholder", "[REDACTED]"))
    model = CannedSentenceModel(lambda s, p, prompt, a: s)
    return make_sentence_rewriter(task, model, similarity_model=None, **kwargs)


@pytest.fixture(scope="module")
def default():
    return build()


def test_by_default_the_guard_and_the_model_free_candidates_are_on(default):
    guard = default.candidate_filters.grounded
    assert isinstance(guard, GroundedGuard) and guard.max_ungrounded == 0
    assert isinstance(default.model_free, ModelFreeCandidates)
    assert guard.grounder.wordnet is default.model_free.wordnet  # one database, opened once
    assert default.ranker.max_loss_rise == 1.0 and default.ranker.embedder is None
    # the model-free candidates parse with the placeholder as one token
    chunk = chunk_for("On [REDACTED] the Court, sitting as a Chamber, declared it admissible.", "sitting as a Chamber")
    assert default.model_free.candidates(chunk) == ["On [REDACTED] the Court declared it admissible."]


def test_the_guard_knows_the_tasks_placeholder():
    rw = build(placeholder="<X>", model_free=False)
    assert rw.candidate_filters.grounded.grounder.placeholder == "<X>"
    assert rw.candidate_filters.grounded.ungrounded(chunk_for("He slept."), "<X> slept.") == []


def test_grounded_false_gives_no_guard_and_model_free_false_no_candidates(tmp_path):
    rw = build(grounded=False)
    assert rw.candidate_filters.grounded is None and rw.model_free is not None
    rw = build(model_free=False, max_ungrounded=2)
    assert rw.model_free is None and rw.candidate_filters.grounded.max_ungrounded == 2
    # with neither, WordNet and the parser are not even opened
    rw = build(grounded=False, model_free=False, wordnet_dir=str(tmp_path), parser_model="no_such_pipeline")
    assert isinstance(rw, SentenceRewriter) and rw.model_free is None and rw.candidate_filters.grounded is None
    assert build(max_loss_rise=None, grounded=False, model_free=False).ranker.max_loss_rise is None


@pytest.mark.parametrize("bad", [0, -1.0, True, "1.0"])
def test_a_bad_max_loss_rise_is_e207(bad):
    with pytest.raises(LinkguardError, match="E207.*max_loss_rise"):
        build(max_loss_rise=bad, grounded=False, model_free=False)


def test_bad_arguments_are_coded_errors(tmp_path):
    with pytest.raises(LinkguardError, match="E207.*max_ungrounded"):
        build(max_ungrounded=-1, model_free=False)
    with pytest.raises(LinkguardError, match="E280"):
        build(wordnet_dir=str(tmp_path))
    with pytest.raises(LinkguardError, match="E285.*no_such_pipeline"):
        build(grounded=False, parser_model="no_such_pipeline")


@pytest.mark.parametrize("name", SENTENCE_CONFIGS)
def test_the_shipped_sentence_configs_resolve_grounded_and_model_free(name):
    block = Config().from_disk(CONFIGS / name)["components"]["linkguard_rewrite"]["rewriter"]
    assert block["grounded"] is True and block["model_free"] is True and block["max_ungrounded"] == 0
    assert block["max_loss_rise"] == 1.0
    block = {**block, "model": {"@llm_models": "linkguard_test.Canned.v1"}, "similarity_model": None}
    rw = registry.resolve({"r": block})["r"]
    assert isinstance(rw, SentenceRewriter) and rw.n_candidates == 8
    assert isinstance(rw.candidate_filters.grounded, GroundedGuard)
    assert isinstance(rw.model_free, ModelFreeCandidates)
    assert rw.candidate_filters.grounded.grounder.placeholder == rw.task.placeholder == "[REDACTED]"
    assert rw.ranker.max_loss_rise == 1.0


def test_the_sentence_configs_are_found():
    assert {"rewrite_qwen25_1p5b.cfg", "rewrite_qwen25_1p5b_cpu.cfg", "rewrite_qwen25_1p5b_llamacpp.cfg"} <= set(
        SENTENCE_CONFIGS)
