"""`detect` and `show` on the command line."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import iter_records
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex


def test_detect_writes_one_json_line_per_document(small_index, tmp_path):
    index, queries, _ = small_index
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--k", "2",
                                      "--max-arity", "3", "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    records = list(iter_records(queries))
    assert [line["id"] for line in lines] == [r.id for r in records]
    det = Detector(NgramIndex.load(index), k=2, max_arity=3)
    for line, rec in zip(lines, records):
        # --verdict auto: a line whose id is a document of the index is its own source.
        sources = [rec.id] if det.has_document(rec.id) else None
        expected = det.detect(rec.text, sources).to_dict()
        assert line["safe"] == expected["safe"] and line["spans"] == expected["spans"]
        assert line["verdict"] == ("source" if sources else "any") == line["report"]["verdict"]
        assert line["report"]["sources"] == sources
    assert lines[-1]["safe"] is True and lines[-1]["spans"] == []
    assert any(s["label"] == "COMBO" for line in lines for s in line["spans"])


def test_detect_verdict_option_and_sources_field(small_index, tmp_path):
    index, _, records = small_index
    det = Detector(NgramIndex.load(index), k=2, max_arity=3)
    own, other = records[0], records[1]
    queries = tmp_path / "q.jsonl"
    lines_in = [{"id": own[0], "text": own[1]},  # its own id: source [own]
                {"id": "released-1", "text": own[1], "sources": [other[0], own[0]]},
                {"id": "released-2", "text": own[1]}]  # unknown id, no sources
    queries.write_text("".join(json.dumps(x) + "\n" for x in lines_in))

    def run(*args):
        res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--no-progress", *args])
        return res, [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]

    res, lines = run()
    assert res.exit_code == 0, res.output
    assert [(x["verdict"], x["report"]["sources"]) for x in lines] == [
        ("source", [own[0]]), ("source", [other[0], own[0]]), ("any", None)]
    assert "verdict any for 1, source for 2" in res.output
    assert lines[1]["spans"] == det.detect(own[1], [other[0], own[0]]).to_dict()["spans"]
    assert lines[2]["spans"] == det.detect(own[1]).to_dict()["spans"]
    res, lines = run("--verdict", "any")
    assert res.exit_code == 0 and {x["verdict"] for x in lines} == {"any"}
    # source with a line whose sources are unknown: a coded error, no output file.
    out = tmp_path / "out.jsonl"
    res, _ = run("--verdict", "source", "--out", str(out))
    assert res.exit_code == 1 and "E108" in res.output and "line 3" in res.output and not out.exists()
    res, _ = run("--verdict", "maybe")
    assert res.exit_code == 1 and "E107" in res.output
    queries.write_text(json.dumps({"id": "x", "text": "a b", "sources": ["nowhere"]}) + "\n")
    res, _ = run()
    assert res.exit_code == 1 and "E106" in res.output and "'nowhere'" in res.output
    queries.write_text(json.dumps({"id": "x", "text": "a b", "sources": "d0"}) + "\n")
    res, _ = run()
    assert res.exit_code == 1 and "E007" in res.output and "sources" in res.output


def test_detect_to_stdout_and_arity_one(small_index):
    index, queries, _ = small_index
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--max-arity", "1",
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert len(lines) == 5
    assert {s["label"] for line in lines for s in line["spans"]} == {"NGRAM"}


def test_detect_reports_coded_errors(small_index, tmp_path):
    index, queries, _ = small_index
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--k", "1"])
    assert result.exit_code == 1 and "E100" in result.output
    result = CliRunner().invoke(app, ["detect", str(tmp_path / "none.jsonl"), "--index", str(index)])
    assert result.exit_code == 1 and "E010" in result.output


def test_detect_span_cost_option(small_index, tmp_path):
    index, queries, _ = small_index
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--span-cost", "weighted",
                                      "-o", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    det = Detector(NgramIndex.load(index), span_cost="weighted")
    for line, rec in zip((json.loads(x) for x in out.read_text().splitlines()), iter_records(queries)):
        sources = [rec.id] if det.has_document(rec.id) else None
        assert line["spans"] == det.detect(rec.text, sources).to_dict()["spans"]
    for cmd in ("detect", "show"):
        result = CliRunner().invoke(app, [cmd, str(queries), "--index", str(index), "--span-cost", "cheap",
                                          "-o", str(tmp_path / "x"), "--no-progress"])
        assert result.exit_code == 1 and "E330" in result.output, (cmd, result.output)


def test_show_writes_a_static_page(small_index, tmp_path):
    index, queries, _ = small_index
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "--output", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert html.count('<section class="doc"') == 5
    assert "<script" not in html
    assert "NGRAM" in html and "COMBO" in html


def test_old_out_option_still_works_with_a_warning(small_index, tmp_path):
    index, queries, _ = small_index
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    assert CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "-o", str(new)]).exit_code == 0
    with pytest.warns(Warning, match="W002"):
        res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--out", str(old)])
    ids = [[json.loads(line)["spans"] for line in f.read_text().splitlines()] for f in (old, new)]
    assert res.exit_code == 0 and ids[0] == ids[1]  # (the reports' timings differ)
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "-o", str(new), "--out", str(old)])
    assert res.exit_code == 1 and "[E015]" in res.output
    assert "--out " not in CliRunner().invoke(app, ["detect", "--help"], env={"COLUMNS": "200"}).output  # hidden


def test_detect_survives_nul_and_lone_surrogates(small_index, tmp_path):
    # JSON may escape a lone surrogate or NUL; both are dropped by normalization
    # (they used to crash spaCy's tokenizer with UnicodeEncodeError).
    index, _, records = small_index
    text = records[0][1]
    queries = tmp_path / "odd.jsonl"
    hostile = text.replace(" ", " \udc80", 3).replace(" ", "\x00 ", 3)
    queries.write_text(json.dumps({"id": "odd", "text": hostile}) + "\n", encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--out", str(out)])
    assert result.exit_code == 0, result.output
    line = json.loads(out.read_text())
    det = Detector(NgramIndex.load(index))
    assert line["verdict"] == "any"  # "odd" is not a document of the index
    assert [s["key"] for s in line["spans"]] == [s.key for s in det.detect(text).spans]
