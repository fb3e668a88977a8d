"""On the command line a coded warning prints as its message alone on stderr,
not in Python's format (source path and line, then the `warnings.warn(...)` line)."""
import subprocess
import sys

from spacy_linkguard.index import NgramIndex


def test_warnings_print_as_coded_lines(tmp_path):
    NgramIndex.build([{"id": "a", "text": "One two three."}], tmp_path / "idx", progress=False, n_process=1)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = subprocess.run([sys.executable, "-m", "spacy_linkguard", "detect", str(empty), "--index",
                          str(tmp_path / "idx"), "--out", str(tmp_path / "o.jsonl"), "--no-progress"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert any(line.startswith("[W002] --out is deprecated") for line in lines), res.stderr
    assert any(line.startswith("[W004] ") for line in lines), res.stderr
    assert "warnings.warn" not in res.stderr and ".py:" not in res.stderr and "LinkguardWarning" not in res.stderr


def test_the_library_still_warns_with_python_warnings():
    import warnings

    import pytest

    from spacy_linkguard.cli.output import chosen_output

    with pytest.warns(Warning, match="W002"):
        chosen_output(None, "x.jsonl", "--out")
    assert warnings.formatwarning.__module__ == "warnings"
