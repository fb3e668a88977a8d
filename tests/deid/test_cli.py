import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli.app import app
import spacy_linkguard.cli.deid_cmds  # noqa: F401  (registers the command)


@pytest.mark.slow
def test_deidentify_cli_writes_corpus_and_tab_spans(tmp_path):
    src = tmp_path / "in.jsonl"
    docs = [
        {"id": "a", "text": "Mr Galip Yalman lodged application no. 36110/97 on 12 March 1997.", "meta": {"k": 1}},
        {"id": "b", "text": ""},
    ]
    src.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    spans = tmp_path / "spans.json"
    result = CliRunner().invoke(app, ["deidentify", str(src), "-o", str(out), "--tab-spans", str(spans)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"]
    assert rows[0]["text"] == "[REDACTED] lodged application no. [REDACTED] on [REDACTED]."
    assert rows[0]["meta"]["k"] == 1 and rows[0]["meta"]["deid"]["report"]["language"] == "en"
    tab = json.loads(spans.read_text(encoding="utf-8"))
    text = docs[0]["text"]
    assert [text[s:e] for s, e in tab["a"]] == ["Mr Galip Yalman", "36110/97", "12 March 1997"]
    assert tab["b"] == []


def test_deidentify_cli_unknown_model_fails_cleanly(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["deidentify", str(src), "-o", str(tmp_path / "o.jsonl"), "--model", "no_such_model_xyz"])
    assert result.exit_code == 1
    assert "E151" in result.output


@pytest.mark.slow
def test_deidentify_without_output_writes_stdout(tmp_path, monkeypatch):
    """The output convention of every line-writing command: -o PATH, else stdout."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": "a", "text": "Mr Galip Yalman lodged it on 12 March 1997."}) + "\n",
                   encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["deidentify", str(src)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert [r["id"] for r in rows] == ["a"] and "Galip" not in rows[0]["text"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
