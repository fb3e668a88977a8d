"""`paraphrase --workers 2` writes the lines of one process (each worker loads
the spaCy pipeline and the sentence model once)."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app

from .conftest import COLLECTION, QUERIES

pytestmark = pytest.mark.slow  # loads the spaCy pipeline and all-MiniLM-L6-v2 in each process


def untimed(path):
    """The lines without their wall-time fields ("seconds", at any depth)."""
    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k != "seconds"}
        return [drop(v) for v in x] if isinstance(x, list) else x

    return [drop(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("mode", ["document", "document-index", "spans-index"])
def test_paraphrase_with_two_workers_writes_the_same_lines(tmp_path, mode):
    from spacy_linkguard.index import NgramIndex

    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps({"id": f"q{i}", "text": t}) + "\n" for i, t in enumerate(QUERIES * 2)))
    extra = ["--rate", "1.0"]  # --rate acts in whole-document mode only (E287 with --spans-only)
    if mode != "document":
        NgramIndex.build([{"id": i, "text": t} for i, t in COLLECTION], tmp_path / "idx", progress=False)
    if mode == "document-index":  # each paraphrased document is checked in its worker
        extra += ["--index", str(tmp_path / "idx")]
    if mode == "spans-index":  # the lexical rewrite loop
        extra = ["--spans-only", "--index", str(tmp_path / "idx")]
    for w in ("1", "2"):
        res = CliRunner().invoke(app, ["paraphrase", str(queries), "-o", str(tmp_path / f"o{w}.jsonl"),
                                       "--seed", "3", "--no-progress", "--workers", w, *extra])
        assert res.exit_code == 0, res.output
    one = untimed(tmp_path / "o1.jsonl")
    assert one == untimed(tmp_path / "o2.jsonl")
    assert [x["id"] for x in one] == [f"q{i}" for i in range(6)] and any(x.get("edits") or x.get("passes") for x in one)
    if mode == "document":
        assert all((x["safe"], x["verdict"]) == (None, None) for x in one)  # no --index: not checked (W281)
    else:
        assert all(isinstance(x["safe"], bool) and x["verdict"] in ("any", "source") for x in one)
