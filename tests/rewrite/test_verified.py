"""Verified rewrites (`keep_verified`): the training pairs of `train-lora`.

A pair is kept for an accepted edit that removed every flagged span of its
chunk and, when a judge scored it, wrote no new linking N-gram. Replies are
canned (tests/rewrite/canned.py), not a real LLM; which chunks qualify is
recomputed by brute force from the prompts the model received."""
import json
import re

import spacy

from spacy_linkguard.detect import Detector
from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.pipeline.rewrite import result_record
from spacy_linkguard.rewrite import LLMRewriter, RewriteLoop
from spacy_linkguard.rewrite.records import ChunkOutcome, verified_pair

from .canned import CannedModel, chunk_of, reword
from .oracle import CORPUS, QUERY, DictIndex


SHORT = "The applicant moved there in 1970."  # one flagged span: "1970" (one document has it)


def run(behaviour, n_candidates=1, keep_verified=True, max_passes=3, texts=(QUERY,)):
    model = CannedModel(behaviour)
    rewriter = LLMRewriter(make_rewrite_task(), model, max_retries=0, n_candidates=n_candidates)
    loop = RewriteLoop(Detector(DictIndex(CORPUS), k=2, max_arity=3), rewriter, max_passes=max_passes,
                       keep_verified=keep_verified)
    results = loop.run(list(texts))
    return (results[0] if len(results) == 1 else results), model


def still_there(span: str, text: str) -> bool:
    """Brute force: the span's words, case-folded, as whole words in the text."""
    words = r"\W+".join(re.escape(w) for w in span.lower().split())
    return re.search(r"(?<!\w)" + words + r"(?!\w)", text.lower()) is not None


def edited_text(reply: str) -> str:
    return json.loads(reply[reply.index("{"):])["text"]


def removes_all(prompt: str) -> bool:
    """Brute force: whether the partial reply (the first span reworded) leaves no flagged span."""
    text, spans = chunk_of(prompt)
    return not any(still_there(s, reword(text, spans[:1])) for s in spans)


def test_a_partial_rewrite_is_verified_only_where_it_removed_every_span():
    results, model = run("partial", texts=(QUERY, SHORT))
    expected = [p for p in model.prompts if removes_all(p)]
    assert 0 < len(expected) < len(model.prompts)  # both kinds of chunk are there
    kept = [v for res in results for v in res.verified]
    assert sorted(v["prompt"] for v in kept) == sorted(expected)
    for v in kept:
        text, spans = chunk_of(v["prompt"])
        assert not any(still_there(s, edited_text(v["reply"])) for s in spans)
        assert edited_text(v["reply"]) != text


def test_best_of_n_keeps_the_reply_it_chose():
    res, model = run("varied", n_candidates=3, max_passes=1)
    # Each chunk's third reply of the pass rewords every span: it is the one kept, and the
    # one verified (when the judge found no new linking N-gram in it: cost tested below).
    assert res.verified and res.passes[0].chunks_accepted == res.passes[0].chunks_sent
    for v in res.verified:
        text, spans = chunk_of(v["prompt"])
        assert v["prompt"] in model.prompts and v["pass"] == 1
        assert edited_text(v["reply"]) == reword(text, spans)
        assert not any(still_there(s, edited_text(v["reply"])) for s in spans)


def test_nothing_is_kept_unless_asked():
    res, _ = run("good", keep_verified=False)
    assert res.verified is None and "verified" not in res.to_dict()
    kept, _ = run("good")
    assert kept.to_dict()["verified"] == kept.verified and kept.verified


def test_a_judged_edit_with_new_linking_ngrams_is_not_verified():
    from spacy_linkguard.llm.chunking import Chunk

    chunk = Chunk(doc_index=0, index=0, start=0, end=5, text="a b c", span_offsets=[(0, 1)])
    outcome = ChunkOutcome(chunk, edited="x b c", prompt="P", reply="R", cost=(1, -0.5))
    assert verified_pair(outcome, 0, 2) is None
    outcome.cost = (0, -0.5)
    assert verified_pair(outcome, 0, 2) == {"pass": 2, "prompt": "P", "reply": "R"}
    assert verified_pair(outcome, 1, 2) is None  # a span left
    outcome.edited = None
    assert verified_pair(outcome, 0, 2) is None  # rejected by the guards


def test_the_component_writes_them_to_the_doc_and_the_line():
    from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)

    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard_rewrite", config={
        "task": {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []},
        "model": {"@llm_models": "linkguard_test.Canned.v1", "behaviour": "good"},
        "keep_verified": True,
    })
    nlp.get_pipe("linkguard_rewrite").set_detector(Detector(DictIndex(CORPUS), k=2, max_arity=3))
    doc = nlp(QUERY)
    assert doc._.linkguard_verified and result_record("q", doc)["verified"] == doc._.linkguard_verified
    assert "verified" not in result_record("q", spacy.blank("en")("x"))
