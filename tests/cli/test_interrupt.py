"""Ctrl-C ends a command with a line that says so and that the data is safe (exit 130)."""
import json

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.index import NgramIndex, open_index


def test_build_index_interrupted_says_the_index_is_safe(tmp_path, monkeypatch):
    NgramIndex.build([{"id": "a", "text": "One two three."}], tmp_path / "idx", progress=False, n_process=1)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "b", "text": "Four five."}) + "\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(NgramIndex, "build", interrupted)
    res = CliRunner().invoke(app, ["build-index", str(corpus), str(tmp_path / "idx"), "--no-progress"])
    assert res.exit_code == 130
    assert "Interrupted: `build-index` stopped before it finished; the index folder is as it was" in res.stderr
    assert open_index(tmp_path / "idx").n_docs == 1


def test_detect_interrupted_says_nothing_was_written(tmp_path, monkeypatch):
    from spacy_linkguard.jobs.detection import DetectJob

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(DetectJob, "setup", interrupted)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q", "text": "x"}) + "\n")
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(tmp_path), "-o", str(tmp_path / "o")])
    assert res.exit_code == 130 and "no output was written" in res.stderr
    assert not (tmp_path / "o").exists()
