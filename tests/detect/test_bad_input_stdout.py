"""A bad input line fails before the first output line, whether the output is
a file (-o) or stdout (`detect > spans.jsonl` used to get 4 lines, then E007)."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app

GOOD = [json.dumps({"id": f"q{i}", "text": f"nothing of this occurs anywhere {i}"}) for i in range(4)]
BAD_LINES = {
    "E007": (json.dumps({"id": "q4"}) + "\n").encode(),
    "E006": b'{"id": "q4", "text": "a\tb"}\n',
    "E009": (json.dumps({"id": "q0", "text": "again"}) + "\n").encode(),
}


def _corpus(tmp_path, bad: bytes):
    path = tmp_path / "q.jsonl"
    path.write_bytes("".join(line + "\n" for line in GOOD).encode() + bad)
    return path


@pytest.mark.parametrize("code", sorted(BAD_LINES))
def test_detect_to_stdout_writes_nothing_before_a_bad_line(small_index, tmp_path, code):
    index, _, _ = small_index
    queries = _corpus(tmp_path, BAD_LINES[code])
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--no-progress"])
    assert res.exit_code == 1
    assert res.stdout == ""
    assert code in res.stderr and ("line 5" in res.stderr or "lines 1 and 5" in res.stderr)


def test_non_utf8_names_its_line(small_index, tmp_path):
    index, _, _ = small_index
    queries = _corpus(tmp_path, b'{"id": "q4", "text": "caf\xe9"}\n')
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--no-progress"])
    assert res.exit_code == 1 and res.stdout == ""
    assert "E008" in res.stderr and "line 5" in res.stderr and "offset" in res.stderr


def test_bad_json_says_what_and_where(tmp_path):
    """E006's detail is whole: "Invalid control character at column 24", not "(... at)"."""
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.errors import LinkguardError

    with pytest.raises(LinkguardError) as e:
        list(iter_records(_corpus(tmp_path, BAD_LINES["E006"])))
    assert "line 5" in str(e.value) and "Invalid control character at column 24" in str(e.value)


def test_rewrite_to_stdout_checks_the_input_first(small_index, tmp_path):
    index, _, _ = small_index
    queries = _corpus(tmp_path, BAD_LINES["E007"])
    res = CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(index), "--backend", "lexical",
                                   "--no-progress"])
    assert res.exit_code == 1 and res.stdout == ""
    assert "E007" in res.stderr and "line 5" in res.stderr
