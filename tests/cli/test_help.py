"""`--help` of the app and of every command shows flags as flags (no `<bool>`)."""
import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app


@pytest.mark.parametrize("args", [["--help"], ["detect", "--help"], ["paraphrase", "--help"]])
def test_help_shows_flags_without_a_type(args):
    res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "--help" in res.output
    assert "<bool>" not in res.output


def test_deprecated_spellings_stay_out_of_the_help():
    for cmd in ("paraphrase", "deidentify", "detect", "show"):
        text = CliRunner().invoke(app, [cmd, "--help"], env={"COLUMNS": "200"}).output
        assert "--output" in text and "old_out" not in text and "--out " not in text, cmd
