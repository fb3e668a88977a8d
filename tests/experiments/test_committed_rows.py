"""LLM rows re-scored from committed outputs, and the live smoke-test rows beside them.

`make run` on a CPU rewrites one document live (a smoke test) and scores the
LLM rows from the GPU run's committed outputs (`evaluate --committed DIR`,
`systems.partial_rows`). The toy index and outputs are those of
test_evaluate_verdicts.py (their linkage under both verdicts is worked out
there); the outputs are canned, no LLM runs here.
"""
import json
import random
import warnings

import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.errors import LinkguardError

from .test_evaluate_verdicts import LLM_A3, QUERIES, TAGS, _write, toy  # noqa: F401 (toy is a fixture)

PROVENANCE = {"out_llm_a3.jsonl": {"model": "Qwen2.5-Coder-1.5B-Instruct (bf16)", "machine": "one NVIDIA H100",
                                   "commit": "abc1234", "date": "2026-11-27", "command": "rewrite ..."}}
SMOKE_MODEL = "SmolLM2-135M-Instruct (CPU)"


@pytest.fixture()
def runs(toy, tmp_path):  # noqa: F811
    """A committed full run (all four queries) and a live smoke run of d1 only, same file name."""
    committed = tmp_path / "committed"
    committed.mkdir()
    _write(committed / "out_llm_a3.jsonl", [{**o, **TAGS} for o in LLM_A3])
    (committed / "PROVENANCE.json").write_text(json.dumps(PROVENANCE), encoding="utf-8")
    live = tmp_path / "live"
    live.mkdir()
    smoke = {**LLM_A3[1], **TAGS, "model": SMOKE_MODEL, "text": "beta gamma zeta."}  # d1 left as it was
    _write(live / "out_llm_a3.jsonl", [smoke])
    return toy, committed, live


def _run(root, specs, committed=None):
    from spacy_linkguard.experiments.evaluate import run_evaluation

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = run_evaluation(root / "queries.jsonl", root / "index", specs, k=2, max_arity=3,
                             sim_models=[], ppl_model="none", progress=False, committed=committed)
    assert any("W251" in str(w.message) for w in caught)  # nothing flagged in d0 at arity 1
    for w in caught:  # passed on, for pytest.warns around the call
        if "W251" not in str(w.message):
            warnings.warn(w.message)
    return res


def test_a_partial_live_output_is_scored_from_the_committed_run_and_shown_as_a_smoke_row(runs):
    root, committed, live = runs
    res = _run(root, [str(live / "out_llm_a3.jsonl")], committed)
    rows = {r["key"]: r for r in res["systems"]}
    assert list(rows) == ["input", "llm_a3", "llm_a3_smoke"]
    full, smoke = rows["llm_a3"], rows["llm_a3_smoke"]
    # The row is the committed run's, with the rates worked out in test_evaluate_verdicts.
    assert full["file"] == str(committed / "out_llm_a3.jsonl") and full["n_docs"] == 4
    assert full["linkage_rate_a3"] == 0.75 and full["linkage_rate_a3_source"] == 0.5
    assert full["provenance"] == {"file": str(committed / "out_llm_a3.jsonl"), **PROVENANCE["out_llm_a3.jsonl"]}
    assert full["smoke"] is False and full["model"] == "canned"
    # The smoke row covers d1 only: left as it was, "gamma zeta" still singles out d1.
    assert smoke["n_docs"] == 1 and smoke["smoke"] is True and smoke["provenance"] is None
    assert smoke["model"] == SMOKE_MODEL and smoke["file"] == str(live / "out_llm_a3.jsonl")
    assert res["per_doc"]["llm_a3_smoke"]["ids"] == ["d1"]
    assert res["per_doc"]["llm_a3_smoke"]["sources"] == [["d1"]]
    assert smoke["linkage_rate_a3"] == 1.0 and smoke["linkage_rate_a3_source"] == 1.0
    assert smoke["linkable_prop_a1"] == 1.0  # d1's flagged span "gamma zeta" is still there
    assert res["settings"]["committed"].endswith("committed")


def test_a_live_output_covering_every_query_is_the_row(runs, tmp_path):
    root, committed, _ = runs
    full_live = _write(tmp_path / "out_llm_a3.jsonl", [{**o, **TAGS, "model": "live"} for o in LLM_A3])
    res = _run(root, [str(full_live)], committed)
    rows = {r["key"]: r for r in res["systems"]}
    assert list(rows) == ["input", "llm_a3"]
    assert rows["llm_a3"]["model"] == "live" and rows["llm_a3"]["provenance"] is None
    assert rows["llm_a3"]["file"] == str(full_live)


def test_only_llm_rows_are_replaced(runs, tmp_path):
    """A partial WordNet output is not an LLM smoke run: it is an error as before (E253)."""
    root, committed, _ = runs
    wn = _write(tmp_path / "out_llm_a3.jsonl", [{**QUERIES[0], "system": "wordnet", "model": "wn",
                                                 "k": None, "max_arity": None}])
    with pytest.raises(LinkguardError, match="E253"):
        _run(root, [str(wn)], committed)


def test_partial_output_without_committed_folder_is_the_missing_line_error(runs):
    root, _, live = runs
    with pytest.raises(LinkguardError, match="E253"):
        _run(root, [str(live / "out_llm_a3.jsonl")], None)


def test_partial_output_without_a_committed_file_of_that_name(runs, tmp_path):
    """No committed run for the row: the row is left out ("not run") with W253, the smoke row stays."""
    from spacy_linkguard.experiments.report import build_tables, load_reference

    root, _, live = runs
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.warns(Warning, match="W253") as caught:
        res = _run(root, [str(live / "out_llm_a3.jsonl")], empty)
    assert any("llm_docs 0" in str(w.message) and str(empty / "out_llm_a3.jsonl") in str(w.message) for w in caught)
    assert [r["key"] for r in res["systems"]] == ["input", "llm_a3_smoke"]
    quality = {row[0]["ours"]: row for row in build_tables(res, load_reference())["quality"]}
    assert quality["LLM rewrite, spans of arity <= 3"][1]["ours"] == "not run"


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"out_llm_a3.jsonl": "a string"}'])
def test_malformed_provenance_is_a_coded_error(runs, content):
    root, committed, live = runs
    (committed / "PROVENANCE.json").write_text(content, encoding="utf-8")
    with pytest.raises(LinkguardError, match="E263"):
        _run(root, [str(live / "out_llm_a3.jsonl")], committed)


def test_without_provenance_file_the_row_still_names_its_file(runs):
    root, committed, live = runs
    (committed / "PROVENANCE.json").unlink()
    res = _run(root, [str(live / "out_llm_a3.jsonl")], committed)
    row = next(r for r in res["systems"] if r["key"] == "llm_a3")
    assert row["provenance"] == {"file": str(committed / "out_llm_a3.jsonl")}


def test_smoke_perplexity_is_relative_to_the_input_on_the_same_documents(runs):
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.experiments.evaluate import evaluate_systems
    from spacy_linkguard.index import open_index

    root, committed, live = runs

    class WordCount:
        """A stand-in scorer: a text's "perplexity" is its number of words."""

        def perplexities(self, texts, progress=False):
            return [float(len(t.split())) for t in texts]

    idx = open_index(root / "index")
    with pytest.warns(Warning, match="W251"):
        res = evaluate_systems(list(iter_records(root / "queries.jsonl")),
                               [("llm_a3", committed / "out_llm_a3.jsonl"), ("llm_a3_smoke", live / "out_llm_a3.jsonl")],
                               detectors={m: Detector(idx, k=2, max_arity=m) for m in (1, 3)},
                               scorer=WordCount(), progress=False)
    rows = {r["key"]: r for r in res["systems"]}
    # Input words 5, 3, 3, 2 (mean 3.25); the smoke output of d1 has 3 words, d1's input 3.
    assert rows["llm_a3_smoke"]["perplexity"] == 3.0
    assert rows["llm_a3_smoke"]["perplexity_vs_input"] == 1.0  # not 3 / 3.25
    assert rows["llm_a3"]["perplexity_vs_input"] == pytest.approx(3.5 / 3.25)


def test_report_says_where_each_row_comes_from(runs):
    from spacy_linkguard.experiments.report import build_tables, load_reference, render_report

    root, committed, live = runs
    res = _run(root, [str(live / "out_llm_a3.jsonl")], committed)
    tables = build_tables(res, load_reference())
    labels = [row[0]["ours"] for row in tables["linkage"]]
    assert "LLM rewrite, spans of arity <= 3 (re-scored)" in labels
    assert "LLM rewrite, spans of arity <= 3: live smoke test" in labels
    origins = {o["label"]: o for o in tables["origins"]}
    rescored = origins["LLM rewrite, spans of arity <= 3 (re-scored)"]
    assert rescored["origin"] == "re-scored" and ("commit", "abc1234") in rescored["details"]
    smoke = origins["LLM rewrite, spans of arity <= 3: live smoke test"]
    assert smoke["origin"] == "smoke test" and ("documents", 1) in smoke["details"]
    assert origins["No rewrite (de-identified input d')"]["origin"] == "this run"
    pages = render_report(res, load_reference(), figures={"figure2": None, "figure3": None}, doc_links={})
    for page in pages.values():
        assert "one NVIDIA H100" in page and "abc1234" in page
        assert "a live run over 1 document(s)" in page
    assert "- **LLM rewrite, spans of arity <= 3 (re-scored)**: re-scored: outputs committed" in pages["md"]


def test_semantic_linkage_stand_in(runs, tmp_path):
    from spacy_linkguard.experiments.systems import committed_stand_in

    root, committed, live = runs
    ids = [q["id"] for q in QUERIES]
    assert committed_stand_in(live / "out_llm_a3.jsonl", ids, committed) == committed / "out_llm_a3.jsonl"
    assert committed_stand_in(live / "out_llm_a3.jsonl", ["d1"], committed) is None  # covers what is asked
    assert committed_stand_in(live / "out_llm_a3.jsonl", ids, None) is None
    with pytest.warns(Warning, match="W253"):
        assert committed_stand_in(live / "out_llm_a3.jsonl", ids, tmp_path) is None


def test_shortest_documents_against_sorting():
    from spacy_linkguard.experiments.prepare import shortest_documents

    rng = random.Random(3)
    for _ in range(200):
        lengths = [rng.randint(1, 6) for _ in range(rng.randint(0, 12))]
        n = rng.randint(0, 14)
        got = shortest_documents(lengths, n)
        if n == 0 or n >= len(lengths):
            assert got == list(range(len(lengths)))
            continue
        assert got == sorted(got) and len(got) == n
        # Brute force: no chosen document is longer than one left out; ties go to the earlier one.
        left = [i for i in range(len(lengths)) if i not in got]
        assert all((lengths[c], c) < (lengths[x], x) for c in got for x in left)


def test_prepare_shortest_cli(tmp_path):
    from typer.testing import CliRunner

    from spacy_linkguard.cli import app

    src = _write(tmp_path / "q.jsonl", [{"id": f"q{i}", "text": "word " * n} for i, n in enumerate([5, 2, 9, 2, 1])])
    out = tmp_path / "short.jsonl"
    res = CliRunner().invoke(app, ["prepare", str(src), str(out), "--n-docs", "2", "--shortest"])
    assert res.exit_code == 0, res.output
    assert [r.id for r in iter_records(out)] == ["q1", "q4"]  # lengths 2 (first of the two 2s) and 1, file order
    assert "the shortest" in res.output


def test_a_committed_run_over_some_documents_is_scored_over_those(runs):
    """A GPU run that rewrote only some documents: its row is scored over them, and the report says so."""
    from spacy_linkguard.experiments.report import build_tables, load_reference

    root, committed, live = runs
    _write(committed / "out_llm_a3.jsonl", [{**o, **TAGS} for o in LLM_A3 if o["id"] != "typed"])
    res = _run(root, [str(live / "out_llm_a3.jsonl")], committed)
    row = next(r for r in res["systems"] if r["key"] == "llm_a3")
    assert row["n_docs"] == 3 and res["per_doc"]["llm_a3"]["ids"] == ["d0", "d1", "case-x"]
    # Of test_evaluate_verdicts' four, "typed" (links under both) is left out: any 2/3, source 1/3.
    assert row["linkage_rate_a3"] == pytest.approx(2 / 3) and row["linkage_rate_a3_source"] == pytest.approx(1 / 3)
    origin = next(o for o in build_tables(res, load_reference())["origins"] if o["origin"] == "re-scored")
    assert ("documents", "3 of 4 (the others were not rewritten by that run)") in origin["details"]


def test_prepare_shortest_among_flagged(tmp_path):
    from spacy_linkguard.experiments.prepare import prepare_queries

    src = _write(tmp_path / "q.jsonl", [{"id": f"q{i}", "text": "word " * n} for i, n in enumerate([5, 2, 9, 3, 1])])
    spans = _write(tmp_path / "spans.jsonl", [{"id": "q0", "spans": [{"start_char": 0}]}, {"id": "q1", "spans": []},
                                              {"id": "q2", "spans": [{"start_char": 0}]}, {"id": "q3", "spans": [{"start_char": 1}]}])
    out = tmp_path / "out.jsonl"
    assert prepare_queries(src, out, n_docs=1, seed=0, shortest=True, flagged_in=spans) == (1, 5)
    assert [r.id for r in iter_records(out)] == ["q3"]  # q4 and q1 are shorter but have nothing flagged
    prepare_queries(src, out, n_docs=0, seed=0, shortest=True, flagged_in=spans)
    assert len(list(iter_records(out))) == 5  # all documents: nothing is filtered
    nothing = _write(tmp_path / "none.jsonl", [{"id": "q0", "spans": []}])
    prepare_queries(src, out, n_docs=1, seed=0, shortest=True, flagged_in=nothing)
    assert [r.id for r in iter_records(out)] == ["q4"]  # none flagged: the shortest of all


def test_inputs_are_embedded_once_for_all_rows(runs):
    """Similarity: every row compares with the same inputs; they are embedded once,
    and a subset row takes its documents' rows of that embedding."""
    import numpy as np

    from spacy_linkguard.detect import Detector
    from spacy_linkguard.experiments.evaluate import evaluate_systems
    from spacy_linkguard.experiments.similarity import document_similarities
    from spacy_linkguard.index import open_index

    root, committed, live = runs

    class BagOfLetters:
        """A stand-in embedder: letter counts, normalized; records what it embeds."""

        name = "letters"

        def __init__(self):
            self.calls = []

        def embed(self, texts):
            self.calls.append(list(texts))
            vecs = np.array([[t.count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], dtype=float) + 1e-3
            return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)

    queries = list(iter_records(root / "queries.jsonl"))
    emb = BagOfLetters()
    idx = open_index(root / "index")
    with pytest.warns(Warning, match="W251"):
        res = evaluate_systems(queries, [("llm_a3", committed / "out_llm_a3.jsonl"), ("llm_a3_smoke", live / "out_llm_a3.jsonl")],
                               detectors={m: Detector(idx, k=2, max_arity=m) for m in (1, 3)},
                               embedders=[emb], progress=False)
    inputs = [q.text for q in queries]
    assert sum(1 for c in emb.calls if c == inputs) == 1  # once, not once a row
    for key, path in (("llm_a3", committed / "out_llm_a3.jsonl"), ("llm_a3_smoke", live / "out_llm_a3.jsonl")):
        ids = res["per_doc"][key]["ids"]
        outs = {json.loads(line)["id"]: json.loads(line)["text"] for line in path.read_text().splitlines()}
        expected = document_similarities(BagOfLetters(), [q.text for q in queries if q.id in ids], [outs[i] for i in ids])
        assert res["per_doc"][key]["similarity"]["letters"] == pytest.approx(expected)


def test_an_empty_live_output_is_the_committed_row_without_smoke_row(runs):
    # The smoke test runs the arity <= m loop only: the other LLM steps write an
    # empty file, and their rows are the committed run's alone.
    root, committed, live = runs
    _write(live / "out_llm_a3.jsonl", [])
    res = _run(root, [f"llm_a3={live / 'out_llm_a3.jsonl'}"], committed)
    rows = {r["key"]: r for r in res["systems"]}
    assert list(rows) == ["input", "llm_a3"]
    assert rows["llm_a3"]["file"] == str(committed / "out_llm_a3.jsonl") and rows["llm_a3"]["n_docs"] == 4


@pytest.mark.parametrize("n_docs", [0, 2])
def test_prepare_full_run_out(tmp_path, n_docs):
    from typer.testing import CliRunner

    from spacy_linkguard.cli import app

    src = _write(tmp_path / "q.jsonl", [{"id": f"q{i}", "text": "word " * n} for i, n in enumerate([5, 2, 9, 3, 1])])
    out, full = tmp_path / "smoke.jsonl", tmp_path / "full.jsonl"
    res = CliRunner().invoke(app, ["prepare", str(src), str(out), "--n-docs", str(n_docs), "--shortest",
                                   "--full-run-out", str(full)])
    assert res.exit_code == 0, res.output
    chosen = [r.id for r in iter_records(out)]
    assert len(chosen) == (5 if n_docs == 0 else 2)
    # A full run (0: every document) gives the other steps the same documents; a smoke run none.
    assert [r.id for r in iter_records(full)] == (chosen if n_docs == 0 else [])
    assert full.is_file()
