"""`detect` and `show` on the command line."""
import json

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import iter_records
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex


def test_detect_writes_one_json_line_per_document(small_index, tmp_path):
    index, queries, _ = small_index
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--k", "2",
                                      "--max-arity", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    records = list(iter_records(queries))
    assert [line["id"] for line in lines] == [r.id for r in records]
    det = Detector(NgramIndex.load(index), k=2, max_arity=3)
    for line, rec in zip(lines, records):
        expected = det.detect(rec.text).to_dict()
        assert line["safe"] == expected["safe"] and line["spans"] == expected["spans"]
    assert lines[-1]["safe"] is True and lines[-1]["spans"] == []
    assert any(s["label"] == "COMBO" for line in lines for s in line["spans"])


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


def test_show_writes_a_static_page(small_index, tmp_path):
    index, queries, _ = small_index
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert html.count('<section class="doc"') == 5
    assert "<script" not in html
    assert "NGRAM" in html and "COMBO" in html


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
    assert [s["key"] for s in line["spans"]] == [s.key for s in det.detect(text).spans]
