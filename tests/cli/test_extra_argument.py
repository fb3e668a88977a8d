"""A second positional argument is one coded error on every command (E300),
which says what the command takes and, where it writes an output, `-o OUT`."""
import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app


@pytest.mark.parametrize("command", ["detect", "show", "deidentify", "paraphrase", "rewrite"])
def test_a_positional_out_is_e300_with_the_fix(tmp_path, command):
    queries = tmp_path / "in.jsonl"
    queries.write_text('{"id": "a", "text": "x"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = [command, str(queries), str(out)]
    if command in ("detect", "show", "rewrite"):
        args += ["--index", str(tmp_path / "no-index")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 1, res.output
    assert "[E300]" in res.stderr and f"`{command}` got an extra argument" in res.stderr
    assert f"use `-o {out}`" in res.stderr
    assert "Traceback" not in res.output and "unexpected extra" not in res.output
    assert "config override" not in res.output
    assert not out.exists()


def test_rewrite_names_a_stray_argument_among_overrides(tmp_path):
    res = CliRunner().invoke(app, ["rewrite", "in.jsonl", "--index", "idx", "--components.x.max_passes", "3",
                                   "OUT"])
    assert res.exit_code == 1 and "[E300]" in res.stderr and "'OUT'" in res.stderr


def test_a_command_without_output_points_to_its_help(tmp_path):
    res = CliRunner().invoke(app, ["index-stats", str(tmp_path), "extra"])
    assert res.exit_code == 1 and "[E300]" in res.stderr and "--help" in res.stderr
    assert "it takes INDEX_DIR" in res.stderr
