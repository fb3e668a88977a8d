"""What the docs promise a newcomer holds on the command line."""
import json
import re
from pathlib import Path

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.index import NgramIndex

REPO = Path(__file__).resolve().parents[1]


def test_a_repeated_id_has_the_code_the_index_docs_give(tmp_path):
    text = (REPO / "docs" / "ngram-index.md").read_text()
    said = re.search(r"a repeated id is an error:\s+(E\d{3}) when the documents come from a JSONL file", text)
    assert said, "docs/ngram-index.md no longer says which error a repeated id is"
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": "a", "text": t}) + "\n" for t in ("One two.", "Three four.")))
    res = CliRunner().invoke(app, ["build-index", str(corpus), str(tmp_path / "idx"), "--no-progress"])
    assert res.exit_code == 1 and f"[{said.group(1)}]" in res.output
    NgramIndex.build([{"id": "b", "text": "Five."}], tmp_path / "idx2", progress=False, n_process=1)
    res = CliRunner().invoke(app, ["add-docs", str(tmp_path / "idx2"), str(corpus), "--no-progress"])
    assert res.exit_code == 1 and f"[{said.group(1)}]" in res.output


def test_help_and_readme_point_to_the_advice_on_k_and_the_arity():
    link = "docs/detection.md"
    for command in ("detect", "show", "rewrite"):
        out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "1000"}).output
        assert "docs/detection.md: choosing k and the arity" in out, command
    readme = (REPO / "README.md").read_text()
    assert f"({link}#choosing-k-and-the-arity-and-what-a-small-collection-does)" in readme
    detection = (REPO / "docs" / "detection.md").read_text()
    assert "## Choosing k and the arity, and what a small collection does" in detection
    assert "gives up exactly the linkage by two or three facts together" in " ".join(detection.split())


def test_the_docs_list_every_command_that_prints_to_stdout():
    for path in (REPO / "README.md", REPO / "docs" / "getting-started.md"):
        text = " ".join(path.read_text().split())
        assert "(`detect` and `rewrite` print to stdout without it" not in text
        assert "`detect`, `show`, `deidentify`, `rewrite`, `paraphrase` and `review`" in text, path
