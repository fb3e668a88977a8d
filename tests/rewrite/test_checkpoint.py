"""`rewrite --checkpoint`: a run stopped half-way (Ctrl-C from the canned model)
keeps its finished lines in OUTPUT.partial, and the same command goes on after
them; the result is the output of one uninterrupted run. Canned replies, no LLM."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.cli.checkpoint import read_checkpoint
from spacy_linkguard.index import NgramIndex

from . import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from .oracle import CORPUS, QUERY
from .test_cli import CONFIG
from .test_workers import untimed

STOP = QUERY.replace("lives in Kraljevo", "lives in STOPHERE Kraljevo")


@pytest.fixture
def files(tmp_path):
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                     progress=False, n_process=1)
    (tmp_path / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    texts = [QUERY, CORPUS[0], "Nothing links here.", STOP, CORPUS[2], QUERY + " Again."]
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps({"id": f"q{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    return tmp_path, queries


def rewrite(tmp_path, queries, out, *extra, behaviour="good"):
    return CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(tmp_path / "idx"), "--config",
                                    str(tmp_path / "rw.cfg"), "-o", str(out), "--no-progress",
                                    "--components.linkguard_rewrite.batch_size", "1",
                                    "--components.linkguard_rewrite.model.behaviour", behaviour, *extra])


def test_a_stopped_run_goes_on_after_its_finished_lines(files):
    tmp_path, queries = files
    whole = tmp_path / "whole.jsonl"
    assert rewrite(tmp_path, queries, whole).exit_code == 0
    out, partial = tmp_path / "out.jsonl", tmp_path / "out.jsonl.partial"
    res = rewrite(tmp_path, queries, out, "--checkpoint", behaviour="interrupt")
    assert res.exit_code != 0 and not out.exists()
    kept = read_checkpoint(partial)
    assert [json.loads(x)["id"] for x in kept] == ["q0", "q1", "q2"]  # q3 was being rewritten
    res = rewrite(tmp_path, queries, out, "--checkpoint")
    assert res.exit_code == 0, res.output
    assert "after the 3 finished document(s)" in res.output
    assert untimed(out) == untimed(whole)
    assert out.read_text().splitlines(keepends=True)[:3] == kept  # reused as they were, not redone
    assert not partial.exists()


def test_a_line_cut_off_by_a_kill_is_done_again(files):
    tmp_path, queries = files
    whole = tmp_path / "whole.jsonl"
    assert rewrite(tmp_path, queries, whole).exit_code == 0
    lines = whole.read_text().splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    (tmp_path / "out.jsonl.partial").write_text("".join(lines[:2]) + lines[2][:40])
    res = rewrite(tmp_path, queries, out, "--checkpoint")
    assert res.exit_code == 0, res.output
    assert "after the 2 finished document(s)" in res.output
    assert untimed(out) == untimed(whole)


@pytest.mark.parametrize("change", ["order", "rewriter", "longer"])
def test_a_checkpoint_of_another_run_is_refused(files, change):
    tmp_path, queries = files
    whole = tmp_path / "whole.jsonl"
    assert rewrite(tmp_path, queries, whole).exit_code == 0
    lines = whole.read_text().splitlines(keepends=True)
    extra = []
    if change == "order":
        stale = [lines[1], lines[0]]
    elif change == "rewriter":
        stale = lines[:2]
        extra = ["--components.linkguard_rewrite.max_arity", "1"]
    else:
        stale = lines
        extra = ["--limit", "4"]
    partial = tmp_path / "out.jsonl.partial"
    partial.write_text("".join(stale))
    res = rewrite(tmp_path, queries, tmp_path / "out.jsonl", "--checkpoint", *extra)
    assert res.exit_code == 1 and "E019" in res.output, res.output
    assert not (tmp_path / "out.jsonl").exists() and partial.read_text() == "".join(stale)


def test_checkpoint_needs_an_output_file(files):
    tmp_path, queries = files
    res = CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(tmp_path / "idx"), "--config",
                                   str(tmp_path / "rw.cfg"), "--no-progress", "--checkpoint"])
    assert res.exit_code == 1 and "E018" in res.output


def test_without_checkpoint_a_stopped_run_leaves_nothing(files):
    tmp_path, queries = files
    res = rewrite(tmp_path, queries, tmp_path / "out.jsonl", behaviour="interrupt")
    assert res.exit_code != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx", "q.jsonl", "rw.cfg"]
