"""`evaluate` under both verdicts (SPEC.md "Metrics"), on a tiny generated index.

Collection (k = 2: a search links when it finds exactly one document):
    d0 "alpha beta gamma. delta epsilon."   d1 "beta gamma zeta."   d2 "beta gamma omega."
    d3 "delta epsilon iota."                d4 "zeta eta theta."
Document frequencies used below: beta, gamma, "beta gamma": 3 (d0 d1 d2);
delta, epsilon, "delta epsilon": 2 (d0 d3); zeta: 2 (d1 d4); eta, iota,
"gamma zeta", "zeta eta": 1.

Queries and their sources (resolve_sources "auto"):
    d0      "[REDACTED] beta gamma. delta epsilon."   sources [d0] (its id is in the index)
    d1      "beta gamma zeta."                        [d1]
    case-x  "delta epsilon iota." with "sources": ["d3"]
    typed   "zeta eta."                               unknown (id not in the index): counts under any

The llm_a3 row's outputs:
    d0      "[REDACTED] beta gamma. [REDACTED] zeta eta."  "eta" singles out d4: links under any;
            no N-gram of d0 is rare and "beta gamma" finds 3 documents: safe under source.
    d1      "beta gamma [REDACTED]."    safe under both
    case-x  "delta epsilon iota."       "iota" singles out d3, its source: links under both
    typed   "zeta eta."                 links under any, so under source too (sources unknown)
So at arity 1 and arity <= 3: any 3/4 = 0.75, source 2/4 = 0.5.

The input row: d0 is safe at arity 1 ("delta epsilon" and "beta gamma" find 2 and 3
documents) but their pair finds d0 only (arity 2), under both verdicts (d0 is its source);
"gamma zeta" links d1, "iota" d3, "eta" d4: arity 1 0.75 and arity <= 3 1.0 under both.
"""
import json

import pytest

from spacy_linkguard.corpus import Record, iter_records
from spacy_linkguard.errors import LinkguardError

COLLECTION = {"d0": "alpha beta gamma. delta epsilon.", "d1": "beta gamma zeta.", "d2": "beta gamma omega.",
              "d3": "delta epsilon iota.", "d4": "zeta eta theta."}
QUERIES = [
    {"id": "d0", "text": "[REDACTED] beta gamma. delta epsilon."},
    {"id": "d1", "text": "beta gamma zeta."},
    {"id": "case-x", "text": "delta epsilon iota.", "sources": ["d3"]},
    {"id": "typed", "text": "zeta eta."},
]
TAGS = {"system": "llm", "model": "canned", "k": 2, "max_arity": 3}
LLM_A3 = [
    {"id": "d0", "text": "[REDACTED] beta gamma. [REDACTED] zeta eta.", "verdict": "source", "sources": ["d0"],
     "safe": True, "forced_redactions": 1, "text_before_guarantee": "[REDACTED] beta gamma. alpha zeta eta."},
    {"id": "d1", "text": "beta gamma [REDACTED].", "verdict": "source", "sources": ["d1"], "safe": True,
     "forced_redactions": 1, "text_before_guarantee": "beta gamma zeta."},
    {"id": "case-x", "text": "delta epsilon iota.", "verdict": "source", "sources": ["d3"], "safe": False,
     "forced_redactions": 0, "text_before_guarantee": "delta epsilon iota."},
    {"id": "typed", "text": "zeta eta.", "verdict": "any", "sources": None, "safe": False,
     "forced_redactions": 0, "text_before_guarantee": "zeta eta."},
]


def _write(path, lines):
    path.write_text("".join(json.dumps(obj) + "\n" for obj in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    from spacy_linkguard.index import NgramIndex

    root = tmp_path_factory.mktemp("verdicts")
    NgramIndex.build([Record(id=i, text=t) for i, t in COLLECTION.items()], root / "index", progress=False)
    _write(root / "queries.jsonl", QUERIES)
    _write(root / "llm_a3.jsonl", [{**o, **TAGS} for o in LLM_A3])
    # The same texts from before the verdicts: no verdict, no sources.
    _write(root / "llm_a1.jsonl", [{k: v for k, v in o.items() if k not in ("verdict", "sources")} for o in LLM_A3])
    # No detection made this row: the released text unchanged.
    _write(root / "wordnet.jsonl", [{**q, "system": "wordnet", "model": "wn", "k": None, "max_arity": None}
                                    for q in QUERIES])
    return root


def _evaluate(root):
    from spacy_linkguard.experiments.evaluate import run_evaluation

    with pytest.warns(Warning, match="W251"):  # nothing flagged in d0 at arity 1
        return run_evaluation(root / "queries.jsonl", root / "index",
                              [f"llm_a1={root / 'llm_a1.jsonl'}", str(root / "llm_a3.jsonl"),
                               f"wordnet={root / 'wordnet.jsonl'}"],
                              k=2, max_arity=3, sim_models=[], ppl_model="none", progress=False)


def test_linkage_rates_under_source_and_any_differ(toy):
    res = _evaluate(toy)
    rows = {r["key"]: r for r in res["systems"]}
    assert list(rows) == ["input", "llm_a1", "llm_a3", "wordnet"]
    llm = rows["llm_a3"]
    for m in (1, 3):
        assert llm[f"linkage_rate_a{m}"] == 0.75  # any: the key results.json always had
        assert llm[f"linkage_rate_a{m}_source"] == 0.5
    per_doc = res["per_doc"]["llm_a3"]
    assert per_doc["safe_a3"] == [False, True, False, False]
    assert per_doc["safe_a3_source"] == [True, True, False, False]
    assert per_doc["sources"] == [["d0"], ["d1"], ["d3"], None]
    assert res["n_without_sources"] == 1 and llm["n_without_sources"] == 1
    # The row's verdict comes from its lines: three source, one any.
    assert llm["verdict"] == "mixed" and llm["verdict_counts"] == {"any": 1, "source": 3}
    assert rows["llm_a1"]["verdict"] == "any"  # lines written before the verdicts
    assert rows["input"]["verdict"] is None and rows["wordnet"]["verdict"] is None
    # Rows without detection still get both rates: WordNet's "outputs" are the input.
    for key in ("input", "wordnet"):
        assert rows[key]["linkage_rate_a1"] == rows[key]["linkage_rate_a1_source"] == 0.75, key
        assert rows[key]["linkage_rate_a3"] == rows[key]["linkage_rate_a3_source"] == 1.0, key
    # The same texts give the same rates whatever the lines state.
    assert rows["llm_a1"]["linkage_rate_a3_source"] == 0.5 and rows["llm_a1"]["linkage_rate_a3"] == 0.75
    # Every redaction: placeholders added (+1, +1, 0, 0) beside forced redactions (1, 1, 0, 0).
    assert llm["placeholders_added"] == 0.5 and llm["forced_redactions"] == 0.5 and llm["placeholder"] == "[REDACTED]"
    assert per_doc["placeholders_added"] == [1, 1, 0, 0]
    assert rows["input"]["placeholders_added"] == 0.0
    # Flagged in d' at arity 1: nothing in d0, "gamma zeta" in d1, "iota" in case-x, "eta" in typed.
    # Guarantee mode removed d1's, which the LLM had left: 2/3 after, 3/3 before forced redaction.
    assert llm["linkable_prop_a1"] == pytest.approx(2 / 3) and llm["linkable_prop_a1_before"] == 1.0
    assert llm["unsafe_before_guarantee"] == 0.5  # forced_redactions > 0 in d0 and d1
    assert "perplexity_vs_input" in llm and llm["perplexity_vs_input"] is None  # no perplexity model


def test_perplexity_relative_to_the_inputs(toy):
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.experiments.evaluate import evaluate_systems
    from spacy_linkguard.index import open_index

    class WordCount:
        """A stand-in scorer: a text's "perplexity" is its number of words."""

        def perplexities(self, texts, progress=False):
            return [float(len(t.split())) for t in texts]

    idx = open_index(toy / "index")
    with pytest.warns(Warning, match="W251"):
        res = evaluate_systems(list(iter_records(toy / "queries.jsonl")), [("llm_a3", toy / "llm_a3.jsonl")],
                               detectors={m: Detector(idx, k=2, max_arity=m) for m in (1, 3)},
                               scorer=WordCount(), progress=False)
    rows = {r["key"]: r for r in res["systems"]}
    # input: 5 + 3 + 3 + 2 words -> 3.25; llm_a3: 6 + 3 + 3 + 2 -> 3.5
    assert rows["input"]["perplexity"] == 3.25 and rows["llm_a3"]["perplexity"] == 3.5
    assert rows["input"]["perplexity_vs_input"] == 1.0
    assert rows["llm_a3"]["perplexity_vs_input"] == pytest.approx(14 / 13)


def test_unknown_source_ids_are_an_error_even_for_safe_outputs(toy, tmp_path):
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.experiments.evaluate import evaluate_systems
    from spacy_linkguard.index import open_index

    idx = open_index(toy / "index")
    queries = [Record(id="q", text="beta gamma.", sources=["nope"])]
    out = _write(tmp_path / "out.jsonl", [{"id": "q", "text": "beta gamma."}])
    with pytest.raises(LinkguardError, match="E106"), pytest.warns(Warning, match="W251"):
        evaluate_systems(queries, [("llm_a1", out)], detectors={1: Detector(idx, k=2, max_arity=1)}, progress=False)


@pytest.mark.parametrize("span_docs", [0, 2, 10])
def test_safe_columns_are_full_detections_and_spans_kept_for_the_first_documents(toy, span_docs):
    # evaluate judges safety with Detector.is_safe (early exit): the same as a
    # full detection of each output; remaining spans only for --span-docs documents.
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.experiments.evaluate import evaluate_systems
    from spacy_linkguard.index import open_index

    idx = open_index(toy / "index")
    detectors = {m: Detector(idx, k=2, max_arity=m) for m in (1, 3)}
    queries = list(iter_records(toy / "queries.jsonl"))
    with pytest.warns(Warning, match="W251"):
        res = evaluate_systems(queries, [("llm_a3", toy / "llm_a3.jsonl")], detectors=detectors,
                               progress=False, span_docs=span_docs)
    for key, texts in (("input", [q.text for q in queries]), ("llm_a3", [o["text"] for o in LLM_A3])):
        per_doc = res["per_doc"][key]
        for m, det in detectors.items():
            assert per_doc[f"safe_a{m}"] == [det.detect(t).safe for t in texts]
            assert per_doc[f"safe_a{m}_source"] == [
                det.detect(t).safe or (src is not None and det.detect(t, src).safe)
                for t, src in zip(texts, per_doc["sources"])]
        spans = per_doc["remaining_spans_a3"]
        assert len(spans) == min(span_docs, len(texts))
        assert spans == [[[s.start_char, s.end_char, s.label] for s in detectors[3].detect(t).spans]
                         for t in texts[:span_docs]]


def test_report_pages_only_for_documents_with_kept_spans(toy, tmp_path):
    from spacy_linkguard.experiments.report import write_displacy_pages

    res = _evaluate(toy)
    for row in res["systems"]:
        res["per_doc"][row["key"]]["remaining_spans_a3"] = res["per_doc"][row["key"]]["remaining_spans_a3"][:2]
    links = write_displacy_pages(res, tmp_path, max_docs=5)
    assert links and all(len(entries) == 2 for entries in links.values())
