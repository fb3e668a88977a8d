import json

import pytest

from spacy_linkguard.corpus import iter_records, write_records
from spacy_linkguard.errors import LinkguardError


def test_round_trip(tmp_path):
    p = tmp_path / "c.jsonl"
    write_records([{"id": "a", "text": "x"}, {"id": "b", "text": "y", "meta": {"k": 1}}], p)
    recs = list(iter_records(p))
    assert [(r.id, r.text, r.meta, r.line) for r in recs] == [("a", "x", {}, 1), ("b", "y", {"k": 1}, 2)]


@pytest.mark.parametrize(
    "content,code,line",
    [
        (b'{"id": "a", "text": "x"}\n{"id": "b", "text": \n', "E006", "line 2"),
        (b'{"id": "a"}\n', "E007", "line 1"),
        (b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', "E009", "lines 1 and 2"),
        (b'{"id": "a", "text": "\xff"}\n', "E008", "offset"),
    ],
)
def test_bad_input(tmp_path, content, code, line):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(content)
    with pytest.raises(LinkguardError, match=rf"\[{code}\].*{line}"):
        list(iter_records(p))


def test_missing_file(tmp_path):
    with pytest.raises(LinkguardError, match=r"\[E010\]"):
        list(iter_records(tmp_path / "nope.jsonl"))


def test_int_ids_and_blank_lines(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"id": 7, "text": "t"}) + "\n\n", encoding="utf-8")
    assert [r.id for r in iter_records(p)] == ["7"]
