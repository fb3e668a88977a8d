"""The rewrite loop and guarantee mode under the source verdict (SPEC.md):
every pass and the final redaction detect with the document's sources, and
what they return is safe by the brute-force oracle under that verdict.
Replies are canned (tests/rewrite/canned.py), not a real LLM."""
import random

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.rewrite import RewriteLoop
from spacy_linkguard.rewrite.guarantee import redact_until_safe

from ..detect.oracle import oracle
from .canned import CannedModel
from .oracle import CORPUS, QUERY, DictIndex
from .test_guarantee import random_world


class RecordingDetector:
    """A real Detector that remembers the sources of every call."""

    def __init__(self, detector):
        self.detector, self.settings, self.calls = detector, detector.settings, []

    def detect(self, text, sources=None):
        self.calls.append(sources)
        return self.detector.detect(text, sources)


@pytest.mark.parametrize("seed", range(15))
def test_guarantee_under_source_is_safe_by_the_oracle(seed):
    corpus, query = random_world(seed)
    index = DictIndex(corpus)
    det = Detector(index, k=2, max_arity=3)
    text, n, _, was_safe = redact_until_safe(query, det, "[REDACTED]", sources=["d0"])
    assert oracle(text, index.keysets, index.settings, 2, 3, sources={0}).safe
    assert was_safe == oracle(query, index.keysets, index.settings, 2, 3, sources={0}).safe
    assert (n > 0) == (not was_safe)


def test_the_loop_detects_every_pass_with_the_sources():
    index = DictIndex(CORPUS)
    det = RecordingDetector(Detector(index, k=2, max_arity=3))
    loop = RewriteLoop(det, make_rewrite_task(), CannedModel("unchanged"), max_passes=2)
    other = "The applicant complained about the length of the proceedings. The Court notes the delay."
    res_src, res_any, res_other = loop.run([QUERY, QUERY, other], ids=["q", "q2", "o"],
                                           sources=[["d0", "d2"], None, ["d5"]])
    assert (res_src.verdict, res_src.sources) == ("source", ["d0", "d2"])
    assert (res_any.verdict, res_any.sources) == ("any", None)
    assert res_src.to_dict()["verdict"] == "source" and res_src.to_dict()["sources"] == ["d0", "d2"]
    # The model changes nothing: guarantee mode redacts, under each text's own verdict.
    for res, sources in ((res_src, {0, 2}), (res_any, None), (res_other, {5})):
        assert oracle(res.text, index.keysets, index.settings, 2, 3, sources=sources).safe
    assert {tuple(s) if s else None for s in det.calls} == {("d0", "d2"), None, ("d5",)}
    # d5 copied verbatim is linkable under both verdicts; its own source flags it.
    assert not det.detector.detect(other, ["d5"]).safe


def test_source_verdict_flags_fewer_spans_on_text_borrowing_other_documents():
    # Text made from d0 that borrowed phrasing of the others: under source only
    # what reaches d0 counts, so guarantee mode redacts no more than under any.
    rng = random.Random(3)
    corpus, query = random_world(7)
    index = DictIndex(corpus)
    det = Detector(index, k=2, max_arity=3)
    texts = [query + " " + " ".join(rng.sample(corpus[i].split(), 6)) for i in range(1, 6)]
    fewer = 0
    for text in texts:
        n_source = len(det.detect(text, ["d0"]).spans)
        n_any = len(det.detect(text).spans)
        fewer += n_source < n_any
    assert fewer > 0
