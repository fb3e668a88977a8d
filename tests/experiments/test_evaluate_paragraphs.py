"""`evaluate` adds paragraph similarity and facts kept / new facts to every row.

A tiny run without an index (no detector: only the metrics that need none),
with a stand-in embedder (letter counts) instead of a sentence-transformers
model, and the real fact extractor (`llm.facts.facts_of`). The outputs are
canned: no LLM runs here.
"""
import json

import numpy as np
import pytest

from spacy_linkguard.corpus import Record

P1 = "The applicant was born in 1960 and lives in the town of [REDACTED]."
P2 = "The court did not hold a hearing, and two witnesses were never heard by it."
QUERIES = [Record(id="a", text=f"THE FACTS\n\n{P1}\n\n{P2}"), Record(id="b", text=P2)]
# a: the heading kept, P1 unchanged, P2 with one fact changed ("two" -> "three") and one
#    negation dropped ("never"); b: one paragraph split in two (the counts differ).
OUT_A = ("THE FACTS\n\n" + P1 + "\n\nThe court did not hold a hearing, and three witnesses were heard by it.")
OUT_B = "The court did not hold a hearing in the case.\n\nTwo were never heard."


class BagOfLetters:
    """A stand-in embedder: letter counts, normalized; records each call."""

    name = "letters"

    def __init__(self):
        self.calls = []

    def embed(self, texts):
        self.calls.append(list(texts))
        vecs = np.array([[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=float) + 1e-3
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def _cos(a, b):
    va, vb = BagOfLetters().embed([a, b])
    return float(va @ vb)


@pytest.fixture()
def results(tmp_path):
    from spacy_linkguard.experiments.evaluate import evaluate_systems

    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps({"id": i, "text": t, "system": "llm", "model": "canned"}) + "\n"
                           for i, t in (("a", OUT_A), ("b", OUT_B))), encoding="utf-8")
    emb = BagOfLetters()
    res = evaluate_systems(QUERIES, [("llm_a3", out)], detectors={}, embedders=[emb], progress=False)
    return res, emb


def test_rows_carry_paragraph_similarity_and_facts(results):
    res, _ = results
    rows = {r["key"]: r for r in res["systems"]}
    assert res["paragraph_model"] == "letters"
    inp = rows["input"]
    assert inp["para_sim_mean"] == pytest.approx(1.0) and inp["para_sim_p10"] == pytest.approx(1.0)
    assert inp["para_sim_below_0_8"] == 0.0 and inp["para_sim_n"] == 3  # P1, P2 of a; P2 of b; not the heading
    assert inp["facts_kept"] == 1.0 and inp["new_facts_per_para"] == 0.0
    llm = rows["llm_a3"]
    # Measured pairs: (P1, P1) and (P2, its rewrite) of a -- by position; (P2, the first half) of
    # b -- by word overlap: Dice 2 * 7 / (15 + 10) against 2 * 4 / (15 + 4) for the second half.
    sims = [1.0, _cos(P2, OUT_A.split("\n\n")[2]), _cos(P2, "The court did not hold a hearing in the case.")]
    assert llm["para_sim_n"] == 3
    assert llm["para_sim_mean"] == pytest.approx(np.mean(sims), abs=1e-4)
    assert llm["para_sim_p10"] == pytest.approx(np.percentile(sims, 10), abs=1e-4)
    assert llm["para_sim_below_0_8"] == pytest.approx(np.mean(np.array(sims) < 0.8))
    # Facts of d' ("not" and "never" are the same fact, a negation): a: 1960 | neg, neg, 2;
    # b: neg, neg, 2 -> 7. a: 1960 kept; P2 -> "... not ... three ...": one neg kept, one neg
    # and 2 lost, 3 new. b: P2 -> "... not ..." (paired): one neg kept, one neg and 2 lost;
    # "Two were never heard." has no partner: 2 and neg new.
    assert llm["facts_kept"] == pytest.approx(3 / 7)
    assert llm["new_facts_per_para"] == pytest.approx(3 / 4)  # 3 new facts, 4 paragraphs of d'
    per_doc = res["per_doc"]["llm_a3"]["paragraphs"]
    assert [(d["facts_in"], d["facts_kept"], d["facts_new"], d["n_paras"]) for d in per_doc] == [(4, 2, 1, 3), (3, 1, 2, 1)]


def test_paragraphs_are_embedded_once_per_row_in_one_call(results):
    res, emb = results
    # The input row: one call with its measured paragraphs; the LLM row: one call with the
    # output paragraphs not seen before (P1 was left unchanged: not embedded again).
    assert len(emb.calls) == 2 + 2  # plus one call per row for the document similarity
    para_calls = [c for c in emb.calls if all("\n\n" not in t for t in c) and c != [P2]]
    assert sorted(para_calls[0]) == sorted([P1, P2])
    assert sorted(para_calls[1]) == sorted([OUT_A.split("\n\n")[2], "The court did not hold a hearing in the case."])


def test_without_a_sentence_model_facts_are_still_measured(tmp_path):
    from spacy_linkguard.experiments.evaluate import evaluate_systems

    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in (("a", OUT_A), ("b", OUT_B))),
                   encoding="utf-8")
    res = evaluate_systems(QUERIES, [("llm_a3", out)], detectors={}, progress=False)
    llm = {r["key"]: r for r in res["systems"]}["llm_a3"]
    assert llm["para_sim_mean"] is None and llm["para_sim_n"] is None and res["paragraph_model"] is None
    assert llm["facts_kept"] == pytest.approx(3 / 7)


def test_the_evaluate_step_writes_the_new_keys(toy):  # noqa: F811
    from .test_evaluate_verdicts import _evaluate

    res = _evaluate(toy)
    for row in res["systems"]:
        for key in ("para_sim_mean", "para_sim_p10", "para_sim_below_0_8", "facts_kept", "new_facts_per_para"):
            assert key in row, (row["key"], key)
    rows = {r["key"]: r for r in res["systems"]}
    assert rows["input"]["new_facts_per_para"] == 0.0  # no model: no similarity, but facts
    assert rows["llm_a3"]["para_sim_mean"] is None


from .test_evaluate_verdicts import toy  # noqa: E402,F401 (a fixture)
