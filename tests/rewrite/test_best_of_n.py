"""Best-of-n: several replies per chunk, the one leaving the least to link is
kept (rewrite/judge.py). Replies are canned (tests/rewrite/canned.py), not a
real LLM; safety is checked with the brute-force oracle."""
import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.chunking import Chunk
from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite import LLMRewriter, RewriteLoop
from spacy_linkguard.rewrite.judge import EditJudge, best_of

from ..detect.oracle import oracle
from .canned import CannedModel
from .oracle import CORPUS, QUERY, DictIndex


def run(n_candidates, sources=None, behaviour="varied", max_passes=1):
    index = DictIndex(CORPUS)
    model = CannedModel(behaviour)
    rewriter = LLMRewriter(make_rewrite_task(), model, max_retries=0, n_candidates=n_candidates)
    loop = RewriteLoop(Detector(index, k=2, max_arity=3), rewriter, max_passes=max_passes)
    (res,) = loop.run([QUERY], sources=[sources])
    return res, model, index


def test_best_of_three_keeps_the_full_rewrite():
    # Replies to one prompt, in order: one span reworded, all redacted (rejected
    # by the guard), all reworded. One candidate: the first is kept.
    one, model1, index = run(1)
    three, model3, _ = run(3)
    first1, first3 = one.passes[0], three.passes[0]
    assert first1.spans_sent == first3.spans_sent > 1
    assert first3.spans_removed == first3.spans_sent > first1.spans_removed
    # Three replies asked per chunk, in one call to the model; the redactions rejected.
    assert len(model3.prompts) == 3 * len(model1.prompts) == 3 * first3.chunks_sent
    assert first3.llm_calls == 3 * first3.chunks_sent
    assert sum(first3.rejected.values()) == first3.chunks_sent  # the redacting replies
    assert set(first3.rejected) <= {"redacted", "dissimilar"}
    assert "[REDACTED]" not in three.text_before_guarantee.replace("[REDACTED]", "", QUERY.count("[REDACTED]"))
    for res in (one, three):
        assert res.safe and oracle(res.text, index.keysets, index.settings, 2, 3).safe
    assert three.forced_redactions <= one.forced_redactions


def test_best_of_n_under_the_source_verdict():
    res, _, index = run(3, sources=["d0"], max_passes=3)
    assert res.verdict == "source"
    assert res.safe and oracle(res.text, index.keysets, index.settings, 2, 3, sources={0}).safe


def test_the_judge_counts_spans_left_and_new_linking_ngrams():
    index = DictIndex(CORPUS)
    judge = EditJudge(Detector(index, k=2, max_arity=3), NgramSettings(), [["d0"], None])
    text = "He was arrested by the police on 3 May 2001."
    s = text.index("3 May 2001")
    chunk = Chunk(doc_index=0, index=0, start=0, end=len(text), text=text, span_offsets=[(s, s + 10)])
    kept = judge(chunk, text.replace("police", "officers"))
    gone = judge(chunk, text.replace("3 May 2001", "in the spring"))
    # "1961 and lives" holds "1961 and", which only d0 has: a new linking N-gram under source.
    borrowed = judge(chunk, text.replace("3 May 2001", "1961 and lives"))
    assert kept[0] == 1 and gone[0] == 0 and borrowed[0] == 1
    # Under any (document 1 has no sources), the same N-gram links too; under d5's source it does not.
    other = EditJudge(Detector(index, k=2, max_arity=3), NgramSettings(), [["d5"]])
    assert other(chunk, text.replace("3 May 2001", "1961 and lives"))[0] == 0
    # Ties go to the edit closest to the chunk.
    near = judge(chunk, text.replace("3 May 2001", "one spring"))
    far = judge(chunk, text.replace("He was arrested by the police on 3 May 2001", "Officers detained him once"))
    assert near[0] == far[0] == 0 and near < far
    assert best_of([(far, "far"), (near, "near")]) == "near" and best_of([]) is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_n_candidates_must_be_a_positive_integer(bad):
    with pytest.raises(LinkguardError, match=r"\[E207\] n_candidates"):
        LLMRewriter(make_rewrite_task(), CannedModel(), n_candidates=bad)
