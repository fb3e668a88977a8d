"""Ungrounded words / changed paragraph (SPEC.md "Metrics"): the paragraphs it
counts, the words it finds on pairs whose answer is known by construction
(the real `Grounder` on the real WordNet), its pooling over a row checked
against a brute-force recount, and `evaluate` writing it into every row."""
import json
import random

import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.experiments.metrics import (changed_pairs, document_ungrounded, summarize_paragraphs,
                                                 summarize_ungrounded)

# Paragraphs of 8+ words (whitespace-separated), and what a rewrite made of them.
ADMISSIBLE = "The Court declared the application admissible on that same day."
VALID = "The Court determined the application to be valid on that same day."  # determined, valid
CAR = "The applicant drove his car to the police station in the morning."
VEHICLE = "The applicant drove his vehicle to the police station in the morning."  # a hypernym: 0
DELETION = "The applicant drove his car to the station."  # words left out: 0
SHORT_IN, SHORT_OUT = "The application was declared admissible.", "The application was found valid."  # 5 words


def _doc(*paragraphs):
    return "\n\n".join(paragraphs)


def test_known_pairs(grounder):
    assert grounder.ungrounded_words(ADMISSIBLE, VALID) == ["determined", "valid"]
    assert document_ungrounded(ADMISSIBLE, VALID, grounder) == [2]
    assert document_ungrounded(CAR, VEHICLE, grounder) == [0]
    assert document_ungrounded(CAR, DELETION, grounder) == [0]  # a pure deletion is a changed paragraph with none


def test_only_changed_paragraphs_of_8_words_count(grounder):
    inp = _doc("THE FACTS", SHORT_IN, ADMISSIBLE, CAR, CAR)
    out = _doc("THE CIRCUMSTANCES", SHORT_OUT, VALID, CAR, CAR.replace(" to ", "  to\n"))
    # the heading and the 5-word paragraph are too short; the last two are unchanged (spacing only)
    assert changed_pairs(inp, out) == [(ADMISSIBLE, VALID)]
    assert document_ungrounded(inp, out, grounder) == [2]
    assert document_ungrounded(inp, inp, grounder) == []


def test_bases_are_read_once_per_input_paragraph(grounder):
    bases = {}
    assert document_ungrounded(_doc(ADMISSIBLE, CAR), _doc(VALID, VEHICLE), grounder, bases) == [2, 0]
    assert set(bases) == {ADMISSIBLE, CAR}
    first = bases[ADMISSIBLE]
    assert document_ungrounded(ADMISSIBLE, VALID, grounder, bases) == [2] and bases[ADMISSIBLE] is first


def test_placeholders_are_no_words(grounder):
    out = ADMISSIBLE.replace("application", "[REDACTED]")
    assert document_ungrounded(ADMISSIBLE, out, grounder) == [0]


def test_summary_of_counts():
    assert summarize_ungrounded([0, 2, 3, 5]) == {"ungrounded_per_changed_para": 2.5,
                                                   "share_changed_paras_ungrounded_ge3": 0.5, "n_changed_paras": 4}
    assert summarize_ungrounded([]) == {"ungrounded_per_changed_para": None,
                                        "share_changed_paras_ungrounded_ge3": None, "n_changed_paras": 0}


def test_a_row_without_measured_documents_has_none():
    row = summarize_paragraphs([{"sims": None, "ungrounded": None, "n_paras": 1}])
    assert row["ungrounded_per_changed_para"] is None and row["n_changed_paras"] is None
    row = summarize_paragraphs([{"sims": None, "ungrounded": [], "n_paras": 1}])  # measured, nothing changed
    assert row["ungrounded_per_changed_para"] is None and row["n_changed_paras"] == 0


class WordSet:
    """A stand-in grounder: an output word is ungrounded when the input lacks it."""

    def basis(self, text):
        return set(text.split())

    def ungrounded(self, text, basis):
        return [w for w in text.split() if w not in basis]


@pytest.mark.parametrize("seed", range(20))
def test_pooling_against_a_brute_force_recount(seed):
    rng = random.Random(seed)
    vocab = ["court", "applicant", "judge", "prison", "hearing", "witness", "appeal", "law", "x", "y"]
    docs = []
    for _ in range(rng.randint(1, 5)):
        n = rng.randint(1, 4)  # as many output paragraphs as input ones: paired by position
        inp = [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, 12))) for _ in range(n)]
        out = [p if rng.random() < 0.3 else " ".join(w if rng.random() < 0.6 else rng.choice(vocab + ["new", "odd"])
                                                     for w in p.split()) for p in inp]
        docs.append((inp, out))
    per_doc = [{"sims": None, "ungrounded": document_ungrounded(_doc(*i), _doc(*o), WordSet()), "n_paras": len(i)}
               for i, o in docs]
    row = summarize_paragraphs(per_doc)
    counts = [sum(w not in x.split() for w in y.split())
              for i, o in docs for x, y in zip(i, o) if x != y and len(x.split()) >= 8]
    assert row["n_changed_paras"] == len(counts)
    if counts:
        assert row["ungrounded_per_changed_para"] == pytest.approx(sum(counts) / len(counts))
        assert row["share_changed_paras_ungrounded_ge3"] == pytest.approx(sum(c >= 3 for c in counts) / len(counts))
    else:
        assert row["ungrounded_per_changed_para"] is None


def test_evaluate_writes_the_metric_in_every_row(tmp_path):
    from spacy_linkguard.experiments.evaluate import evaluate_systems

    queries = [Record(id="a", text=_doc("THE FACTS", ADMISSIBLE, CAR)), Record(id="b", text=_doc(CAR, ADMISSIBLE))]
    outs = {"a": _doc("THE FACTS", VALID, DELETION), "b": _doc(CAR, ADMISSIBLE)}  # b unchanged
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in outs.items()), encoding="utf-8")
    res = evaluate_systems(queries, [("llm_a3", path)], detectors={}, progress=False)
    rows = {r["key"]: r for r in res["systems"]}
    assert rows["input"]["n_changed_paras"] == 0 and rows["input"]["ungrounded_per_changed_para"] is None
    llm = rows["llm_a3"]
    assert llm["n_changed_paras"] == 2  # a: VALID (2) and DELETION (0)
    assert llm["ungrounded_per_changed_para"] == 1.0 and llm["share_changed_paras_ungrounded_ge3"] == 0.0
    assert [d["ungrounded"] for d in res["per_doc"]["llm_a3"]["paragraphs"]] == [[2, 0], []]


def test_evaluate_stops_before_scoring_without_wordnet(tmp_path, monkeypatch):
    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.experiments import evaluate

    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path))
    monkeypatch.setattr(evaluate, "score_documents", lambda *a, **k: pytest.fail("scored without WordNet"))
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"id": "a", "text": VALID}) + "\n", encoding="utf-8")
    with pytest.raises(LinkguardError, match="E280"):
        evaluate.evaluate_systems([Record(id="a", text=ADMISSIBLE)], [("llm_a3", path)], detectors={}, progress=False)
