"""Where an answer says little, the command says so: an index of at most k
documents (W300), a document whose text is mostly flagged (W301), a rewrite
that is safe only through guarantee mode's redactions (W302)."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex

NOTE = ("The client was visited at the flat on Monday and said that the medication is managed with a weekly "
        "box by the district nurse, who also calls on Thursday.")


@pytest.fixture
def one_doc(tmp_path):
    NgramIndex.build([{"id": "n1", "text": NOTE}], tmp_path / "idx", progress=False, n_process=1)
    (tmp_path / "q.jsonl").write_text(json.dumps({"id": "n1", "text": NOTE}) + "\n")
    return tmp_path / "idx", tmp_path / "q.jsonl"


def test_report_counts_the_flagged_tokens(one_doc):
    index, _ = one_doc
    res = Detector(NgramIndex.load(index), k=2, max_arity=1).detect(NOTE, ["n1"])
    assert res.report["flagged_tokens"] == res.report["rare_tokens"] == res.report["tokens"] > 20  # every word
    res = Detector(NgramIndex.load(index), k=2, max_arity=1).detect("nothing here or anywhere", ["n1"])
    assert res.report["flagged_tokens"] == 0


@pytest.mark.parametrize("command", ["detect", "show"])
def test_a_one_document_index_is_warned_about(one_doc, tmp_path, command):
    index, queries = one_doc
    with pytest.warns(Warning) as record:
        res = CliRunner().invoke(app, [command, str(queries), "--index", str(index), "--no-progress",
                                       "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    messages = [str(w.message) for w in record]
    assert any("[W300]" in m and "holds 1 document(s), no more than k=2" in m for m in messages), messages
    assert any("[W301]" in m and "1 of 1 document(s) have nearly all their text flagged" in m for m in messages)


def test_k_larger_than_the_collection_is_warned_about(small_index, tmp_path):
    index, queries, _ = small_index
    with pytest.warns(Warning, match=r"W300.*holds 16 document\(s\), no more than k=100"):
        res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--k", "100",
                                       "--max-arity", "1", "--no-progress", "-o", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 0, res.output


def test_a_sound_run_warns_nothing(small_index, tmp_path, recwarn):
    index, queries, _ = small_index
    res = CliRunner().invoke(app, ["detect", str(queries), "--index", str(index), "--no-progress",
                                   "-o", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 0, res.output
    assert not [w for w in recwarn if "W30" in str(w.message)]


def test_a_mostly_redacted_rewrite_is_warned_about():
    from spacy_linkguard.cli.release import ReleaseTally

    tally = ReleaseTally(k=2, max_arity=3)
    words = " ".join(["[REDACTED]"] * 8 + ["word"] * 12)
    tally.add_line(json.dumps({"id": "n1", "text": words, "safe": True, "verdict": "source",
                               "forced_redactions": 8}))
    tally.add_line(json.dumps({"id": "n2", "text": "fine " * 20, "safe": True, "verdict": "source",
                               "forced_redactions": 1}))
    with pytest.warns(Warning, match=r"W302.*1 of 2 rewritten.*'n1', 8 redactions in 20 words"):
        tally.warn("q.jsonl", "rewrite", wrote="-")
