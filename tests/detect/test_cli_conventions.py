"""What a user meets first: `detect --help` and `show` load only what they use,
`detect` lines carry `sources` at the top as docs/detection.md says, and
`show` without -o writes its page to stdout like every command's output."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app

REPO = Path(__file__).resolve().parents[2]
# Libraries that detection and the page never use: each costs seconds to import.
HEAVY = ("presidio_analyzer", "spacy_llm", "transformers", "torch", "sentence_transformers", "distributed")
PROBE = """
import runpy, sys
sys.argv = ["spacy_linkguard"] + sys.argv[1:]
try:
    runpy.run_module("spacy_linkguard", run_name="__main__")
except SystemExit as e:
    code = e.code
else:
    code = 0
print("LOADED=" + ",".join(m for m in {heavy!r} if m in sys.modules))
print("EXIT=" + str(code))
"""


def loaded_after(*args: str, cwd: Path) -> set:
    """The heavy modules a fresh process has imported after running the command `args`."""
    res = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], cwd=cwd, capture_output=True,
                         text=True, env={**__import__("os").environ, "PYTHONPATH": str(REPO)}, timeout=300)
    lines = dict(line.split("=", 1) for line in res.stdout.splitlines() if "=" in line[:8])
    assert lines.get("EXIT") in ("0", "None"), res.stdout + res.stderr
    return {m for m in lines["LOADED"].split(",") if m}


@pytest.mark.parametrize("command", [["detect", "--help"], ["show", "--help"], ["review", "--help"], ["--help"]])
def test_help_imports_nothing_heavy(command, tmp_path):
    assert loaded_after(*command, cwd=tmp_path) == set()


def test_show_and_detect_import_nothing_heavy(small_index, tmp_path):
    index, queries, _ = small_index
    assert loaded_after("show", str(queries), "--index", str(index), "-o", str(tmp_path / "p.html"),
                        "--no-progress", cwd=tmp_path) == set()
    assert "NGRAM" in (tmp_path / "p.html").read_text()
    assert loaded_after("detect", str(queries), "--index", str(index), "-o", str(tmp_path / "d.jsonl"),
                        "--no-progress", cwd=tmp_path) == set()


def test_detect_lines_carry_sources_at_the_top(small_index):
    """Read as docs/detection.md says: line["sources"], beside line["verdict"]."""
    index, queries, _ = small_index
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert len(lines) == 5
    for line in lines:
        if line["verdict"] == "source":  # auto: the id is in the index, so it is the source
            assert line["sources"] == [line["id"]]
        else:
            assert line["verdict"] == "any" and line["sources"] is None
        assert line["sources"] == line["report"]["sources"]
    assert {line["verdict"] for line in lines} == {"source", "any"}  # "clean" is not in the index


def test_show_without_output_writes_the_page_to_stdout(small_index, tmp_path, monkeypatch):
    index, queries, _ = small_index
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert res.stdout.lstrip().startswith("<!DOCTYPE html>") and res.stdout.count('<section class="doc"') == 5
    assert list(tmp_path.iterdir()) == []  # no report.html dropped in the current folder
    assert "default: stdout" in CliRunner().invoke(app, ["show", "--help"]).output


def test_show_page_names_the_judgement_and_keeps_labels_apart(small_index, tmp_path):
    """Each document's header says under which verdict and k it was judged; each
    span's label is inline before its text (it takes room), never an absolutely
    placed box that the next span's label can cover ("NGR/NGRA NGRAM")."""
    import re

    index, queries, _ = small_index
    page = tmp_path / "p.html"
    res = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "-o", str(page), "--k", "3",
                                   "--max-arity", "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    html = page.read_text()
    judged = re.findall(r'<span class="judged">judged under verdict (\w+)[^<]*k=(\d+), max_arity=(\d+)</span>', html)
    assert len(judged) == 5 and {k for _, k, _ in judged} == {"3"} and {a for _, _, a in judged} == {"2"}
    assert {v for v, _, _ in judged} == {"source", "any"}
    assert "position:absolute;top:-0.5em" not in html
    starts = len(re.findall(r'class="lg-bar lg-start" data-label=', html))
    pieces = re.findall(r'<span class="lg-span" data-labels="([A-Z ]+)"', html)
    assert pieces and sum(len(p.split()) for p in pieces) <= starts  # one inline label per starting span
