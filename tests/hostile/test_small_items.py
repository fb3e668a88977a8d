"""Issue 15, item 6: the smaller cases -- glued names, invented details, tracebacks, ids, absolute paths."""
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import spacy
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import write_records
from spacy_linkguard.deid.spans import PiiSpan, glued_to_placeholder
from spacy_linkguard.errors import LinkguardWarning
from spacy_linkguard.filters.f1_reply import GuardSettings, check_edit, new_details
from spacy_linkguard.filters.reasons import INVENTED

from .conftest import TEXTS

ROOT = Path(__file__).resolve().parents[2]


# --- [REDACTED]John Smith ---------------------------------------------------
def test_a_word_glued_to_the_placeholder_is_masked_with_its_neighbour():
    text = "Mr [REDACTED]John Smith lives here, near Mary[REDACTED]."
    smith = text.index("Smith")
    spans = glued_to_placeholder(text, [PiiSpan(smith, smith + 5, "PERSON", 0.85)], "[REDACTED]")
    assert [(text[s.start : s.end], s.label) for s in spans] == [("[REDACTED]John Smith", "PERSON"),
                                                                  ("Mary[REDACTED]", "MISC")]
    assert glued_to_placeholder("The [REDACTED] court held [REDACTED].", [], "[REDACTED]") == []


@pytest.mark.slow
def test_deidentify_masks_the_glued_first_name():
    from spacy_linkguard.deid import DEFAULT_MODEL

    nlp = spacy.load(DEFAULT_MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp.add_pipe("linkguard_deid")
    out = nlp("The applicant, [REDACTED]John Smith, complained.")._.deidentified_text
    assert "John" not in out and "Smith" not in out
    assert out == "The applicant, [REDACTED], complained."


# --- the edit guard ------------------------------------------------------------
CHUNK = ("The applicant was born in the city and worked there as a teacher for many years before he retired. "
         "He complained about the length of the proceedings before the domestic courts and about the lack of "
         "an effective remedy in respect of that complaint under the Convention.")
INVENTION = ("He is John Smith of 12 Baker Street, London.", "His wife was Mary Smith, born 3 May 1961.")


def test_the_edit_guard_rejects_invented_names_addresses_dates_and_numbers():
    # The reply of the issue, one sentence in each gap (each addition is short).
    edited = CHUNK.replace("retired. ", f"retired. {INVENTION[0]} ") + " " + INVENTION[1]
    # Every older guard lets it through: only the new-details check stops it.
    assert check_edit(CHUNK, edited, [], GuardSettings(reject_new_details=False)) is None
    assert check_edit(CHUNK, edited, []) == INVENTED
    assert new_details(CHUNK, edited) == ["John", "Smith", "12", "Baker", "Street", "London", "Mary", "Smith",
                                          "3", "May", "1961"]
    # Generalizing is not inventing; the placeholder is no detail; re-casing is none.
    lenient = GuardSettings(reject_redaction=False)  # the placeholder is judged by its own guard
    for ok in (CHUNK.replace("the city", "a French town"), CHUNK.replace("the city", "[REDACTED]"),
               CHUNK.replace("The applicant", "THE APPLICANT")):
        assert check_edit(CHUNK, ok, [], lenient, placeholder="[REDACTED]") is None, ok
    # ... which rejects writing it in place of words (a redaction, not a rephrasing).
    assert check_edit(CHUNK, CHUNK.replace("the city", "[REDACTED]"), [], placeholder="[REDACTED]") == "redacted"


def test_the_new_details_check_is_configurable_in_the_task():
    from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task

    assert make_rewrite_task(examples=[]).guards.reject_new_details is True
    assert make_rewrite_task(examples=[], reject_new_details=False).guards.reject_new_details is False


# --- tracebacks become coded errors ------------------------------------------------
def test_show_limit_minus_one_and_a_long_document(hostile_index, tmp_path, monkeypatch):
    index, queries = hostile_index
    res = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "--limit", "-1",
                                   "--out", str(tmp_path / "p.html")])
    assert res.exit_code == 1 and "E014" in res.output
    long_q = tmp_path / "long.jsonl"
    write_records([{"id": "long", "text": " ".join(TEXTS * 4)}], long_q)
    blank = spacy.blank

    def small_blank(*args, **kwargs):
        nlp = blank(*args, **kwargs)
        nlp.max_length = 100  # spaCy would refuse every text longer than this
        return nlp

    monkeypatch.setattr(spacy, "blank", small_blank)
    res = CliRunner().invoke(app, ["show", str(long_q), "--index", str(index), "--out", str(tmp_path / "l.html"),
                                   "--no-progress"])
    assert res.exit_code == 0, res.output
    assert 'data-doc-id="long"' in (tmp_path / "l.html").read_text()


def test_rewrite_prints_coded_errors_without_a_traceback(hostile_index, tmp_path):
    index, queries = hostile_index
    proc = subprocess.run([sys.executable, "-m", "spacy_linkguard", "rewrite", str(queries), "--index", str(index),
                           "--config", str(tmp_path / "missing.cfg")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "E010" in proc.stderr and "Traceback" not in proc.stderr and "╭" not in proc.stderr


# --- W200 names the document -----------------------------------------------------------
def test_w200_names_the_document_by_its_id(tmp_path):
    from spacy_linkguard.index import NgramIndex
    from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
    from tests.rewrite.oracle import CORPUS, QUERY

    index = tmp_path / "index"
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], index, progress=False, n_process=1)
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard_rewrite", config={
        "task": {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []},
        "model": {"@llm_models": "linkguard_test.Canned.v1", "behaviour": "unchanged"},
        "index": str(index), "max_passes": 1, "max_retries": 0, "guarantee": False})
    with pytest.warns(LinkguardWarning, match=r"W200.*first: 'case-17/b'"):
        list(nlp.pipe([(QUERY, "case-17/b")], as_tuples=True))


# --- no absolute paths -------------------------------------------------------------
ABSOLUTE = re.compile(r'"(/(?:tmp|work|home|root|usr|opt|var|Users)/[^"]*)"|"[A-Za-z]:\\\\')


def test_no_absolute_path_in_committed_results():
    files = [p for d in ("reports", "benchmarks/results") for p in (ROOT / d).rglob("*.json")]
    assert files
    found = {str(p.relative_to(ROOT)): m.group(0) for p in files for m in [ABSOLUTE.search(p.read_text())] if m}
    assert found == {}


def test_a_saved_pipeline_stores_the_index_relative_to_itself(hostile_index, tmp_path):
    index, _ = hostile_index
    home = tmp_path / "project"
    shutil.copytree(index, home / "indexes" / "idx")
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(home / "indexes" / "idx")})
    nlp.to_disk(home / "pipeline")
    cfg = json.loads((home / "pipeline" / "linkguard" / "cfg.json").read_text())
    assert cfg["index"] == "../../indexes/idx"
    assert str(tmp_path) not in (home / "pipeline" / "linkguard" / "cfg.json").read_text()
    # The whole project moves; the pipeline still finds its index.
    moved = tmp_path / "elsewhere"
    shutil.move(str(home), str(moved))
    loaded = spacy.load(moved / "pipeline")
    assert loaded(TEXTS[0])._.linkguard_safe is False


def test_a_saved_rewrite_component_stores_the_index_relative_to_itself(hostile_index, tmp_path):
    from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)

    index, _ = hostile_index
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard_rewrite", config={
        "task": {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []},
        "model": {"@llm_models": "linkguard_test.Canned.v1"}, "index": str(index)})
    nlp.to_disk(tmp_path / "pipeline")
    text = (tmp_path / "pipeline" / "linkguard_rewrite" / "cfg.json").read_text()
    assert str(index) not in text and json.loads(text)["index"].startswith("../")
    loaded = spacy.load(tmp_path / "pipeline")
    assert Path(loaded.get_pipe("linkguard_rewrite").cfg["index"]).resolve() == index.resolve()
