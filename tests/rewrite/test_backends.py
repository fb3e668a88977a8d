"""Rewriting backends: the LLM one from the registry, its interface, its settings."""
from spacy.util import registry

from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.rewrite import LLMRewriter, RewriteLoop, Rewriter
from spacy_linkguard.rewrite import registry as _registry  # noqa: F401 -- linkguard.LLMRewriter.v1

from .canned import CannedModel
from .oracle import CORPUS, QUERY, BruteDetector, DictIndex


def test_the_llm_rewriter_is_registered_and_runs_in_the_loop():
    task, model = make_rewrite_task(), CannedModel("good")
    rw = registry.resolve({"r": {"@misc": "linkguard.LLMRewriter.v1", "task": task, "model": model,
                                 "max_retries": 1}})["r"]
    assert isinstance(rw, LLMRewriter) and isinstance(rw, Rewriter)
    assert (rw.system, rw.placeholder, rw.cfg) == ("llm", task.placeholder, {"max_retries": 1, "n_candidates": 1})
    rw.configure({"max_retries": 0, "seed": 3, "n_candidates": 2})
    assert rw.max_retries == 0 and rw.n_candidates == 2
    rw.configure({"n_candidates": 1})
    detector = BruteDetector(DictIndex(CORPUS))
    via_backend = RewriteLoop(detector, rw, max_passes=3).run([QUERY])[0]
    shorthand = RewriteLoop(detector, task, CannedModel("good"), max_passes=3, max_retries=0).run([QUERY])[0]
    assert via_backend.text == shorthand.text and via_backend.safe


def test_a_loop_without_a_detector_runs_every_pass_and_needs_no_guarantee():
    import pytest

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.llm.tasks.rewrite_nospans.registry import make_rewrite_nospans_task

    rw = LLMRewriter(make_rewrite_nospans_task(), CannedModel("unchanged"), max_retries=0)
    with pytest.raises(LinkguardError, match="E207"):
        RewriteLoop(None, rw, max_passes=2)
    assert rw.system == "llm_nospans"
