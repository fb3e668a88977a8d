"""`detect --rank`: each line's sources' BM25 rank (checked against the brute-force BM25 of
test_bm25.py) and embedding rank (left out here: --rank-model none)."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import Record
from spacy_linkguard.index import NgramIndex

from .test_bm25 import brute_force_rank, brute_force_scores

pytest.importorskip("bm25s")

COLLECTION = {"a": "court applicant detention prison. ankara father.", "b": "court government tax fine.",
              "c": "court applicant land property. vienna.", "d": "witness lawyer hearing appeal."}
QUERIES = [{"id": "a", "text": "court applicant prison."},            # ranked by its own id
           {"id": "x", "text": "land property court.", "sources": ["c", "b"]},
           {"id": "y", "text": "court fine."}]                          # no known source


def test_detect_rank_writes_bm25_ranks(tmp_path):
    NgramIndex.build([Record(id=i, text=t) for i, t in COLLECTION.items()], tmp_path / "idx", progress=False,
                     n_process=1)
    q = tmp_path / "q.jsonl"
    q.write_text("".join(json.dumps(o) + "\n" for o in QUERIES), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["detect", str(q), "--index", str(tmp_path / "idx"), "-o", str(out), "--rank",
                                   "--rank-model", "none", "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    docs, ids = list(COLLECTION.values()), list(COLLECTION)
    for obj, query in zip(lines, QUERIES):
        src = query.get("sources") or ([query["id"]] if query["id"] in COLLECTION else None)
        if src is None:
            assert obj["rank"] == {"bm25": None, "embedding": None, "sources": None}
            continue
        scores = brute_force_scores(docs, query["text"])
        assert obj["rank"]["bm25"] == min(brute_force_rank(scores, ids.index(s)) for s in src)
        assert obj["rank"]["embedding"] is None and obj["rank"]["sources"] == src
    assert lines[0]["rank"]["bm25"] == 1
    # Without --rank the lines are as before.
    res = CliRunner().invoke(app, ["detect", str(q), "--index", str(tmp_path / "idx"), "-o", str(out),
                                   "--no-progress"])
    assert res.exit_code == 0 and all("rank" not in json.loads(x) for x in out.read_text().splitlines())


def test_a_missing_input_is_e010_before_the_rankers_are_built(tmp_path, monkeypatch):
    """Building the rankers takes minutes on a real collection: a mistyped input
    path must be said first, not after them."""
    from spacy_linkguard.jobs.detection import DetectJob

    NgramIndex.build([Record(id=i, text=t) for i, t in COLLECTION.items()], tmp_path / "idx", progress=False,
                     n_process=1)

    def setup(self):
        raise AssertionError("the detector and its rankers were set up before the input was checked")

    monkeypatch.setattr(DetectJob, "setup", setup)
    res = CliRunner().invoke(app, ["detect", str(tmp_path / "missing.jsonl"), "--index", str(tmp_path / "idx"),
                                   "--rank", "--no-progress"])
    assert res.exit_code == 1
    assert "[E010]" in res.output and "missing.jsonl" in res.output, res.output


@pytest.mark.parametrize("command", ["detect", "show"])
def test_the_summary_counts_sources_ranked_first(tmp_path, command):
    """A document safe under the exact verdict can still be found first by a
    search engine: with --rank the summary line says for how many."""
    NgramIndex.build([Record(id=i, text=t) for i, t in COLLECTION.items()], tmp_path / "idx", progress=False,
                     n_process=1)
    q = tmp_path / "q.jsonl"
    q.write_text("".join(json.dumps(o) + "\n" for o in QUERIES), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, [command, str(q), "--index", str(tmp_path / "idx"), "-o", str(out), "--rank",
                                   "--rank-model", "none", "--no-progress"])
    assert res.exit_code == 0, res.output
    detected = CliRunner().invoke(app, ["detect", str(q), "--index", str(tmp_path / "idx"), "--rank",
                                        "--rank-model", "none", "--no-progress"])
    lines = [json.loads(x) for x in detected.stdout.splitlines()]
    first = [o for o in lines if o["rank"]["bm25"] == 1]
    n_safe = sum(o["safe"] for o in first)
    assert first and (f"source ranked first for {len(first)} (BM25 {len(first)}, embedding 0), "
                      f"{n_safe} of them safe") in res.stderr
