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


def _help_text(command):
    import re

    out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "1000"}).output
    return re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", out))


def test_help_keeps_square_brackets():
    """Rich markup used to swallow "[default: ...]" and "[start, end, label, score]"."""
    assert "[default: $LINKGUARD_MODELS, else ~/.cache/spacy-linkguard/models" in _help_text("fetch-models")
    assert "holds the spans ([start, end, label, score] in the original text)" in _help_text("deidentify")


def test_every_bracket_of_every_help_is_shown():
    import re

    from spacy_linkguard.cli import COMMAND_MODULES  # noqa: F401  (every command registered)

    for info in app.registered_commands:
        name = info.name or info.callback.__name__
        import inspect

        texts = [inspect.getdoc(info.callback) or ""]
        texts += [getattr(p.default, "help", None) or "" for p in inspect.signature(info.callback).parameters.values()]
        shown = _help_text(name)
        for text in texts:
            for bracket in re.findall(r"\[[^\]\n]{1,40}\]", text):
                assert " ".join(bracket.split()) in shown, (name, bracket)
