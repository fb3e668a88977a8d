"""`paraphrase` on the command line (real spaCy pipeline, WordNet and all-MiniLM-L6-v2)."""
import difflib
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app

pytestmark = pytest.mark.slow  # loads the spaCy pipeline and the sentence-transformers model

DOCS = [
    {"id": "a", "text": "The applicant lodged a complaint with the regional court in [REDACTED]. "
                        "The judges quickly rejected the complaint as unfounded."},
    {"id": "b", "text": "The lawyers examined the documents carefully and found serious errors.",
     "meta": {"source": "test"}},
]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _run(args):
    result = CliRunner().invoke(app, ["paraphrase", *args, "--no-progress"])
    return result


def test_whole_document_mode_is_seeded(tmp_path):
    queries = _write(tmp_path / "q.jsonl", DOCS)
    out1, out2, out3 = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "3.jsonl"
    assert _run([str(queries), "-o", str(out1), "--rate", "1.0", "--seed", "4"]).exit_code == 0
    assert _run([str(queries), "-o", str(out2), "--rate", "1.0", "--seed", "4"]).exit_code == 0
    lines = _read(out1)
    assert [line["id"] for line in lines] == ["a", "b"]
    assert lines == [{**x, "seconds": y["seconds"]} for x, y in zip(_read(out2), lines)]
    assert lines[1]["meta"] == {"source": "test"}
    for line, doc in zip(lines, DOCS):
        assert line["text"] != doc["text"]
        assert line["llm_calls"] == 0 and line["seconds"] > 0 and line["mode"] == "document"
        assert (line["safe"], line["verdict"]) == (None, None)  # no --index: not checked (W281)
        assert (line["system"], line["k"], line["max_arity"]) == ("wordnet", None, None)
        assert line["model"].startswith("WordNet + ") and line["model"].endswith("(no LLM)")
        assert line["stats"]["n_edited"] == len(line["edits"]) > 0
        assert line["text"].count("[REDACTED]") == doc["text"].count("[REDACTED]")
        # The edits, applied to the input, give the output.
        text = doc["text"]
        for e in sorted(line["edits"], key=lambda e: -e["start"]):
            assert text[e["start"]:e["end"]] == e["original"]
            text = text[:e["start"]] + e["replacement"] + text[e["end"]:]
        assert text == line["text"]
    # rate 0: nothing changes.
    assert _run([str(queries), "-o", str(out3), "--rate", "0"]).exit_code == 0
    assert [line["text"] for line in _read(out3)] == [d["text"] for d in DOCS]


def test_spans_only_from_a_detect_file(tmp_path):
    queries = _write(tmp_path / "q.jsonl", DOCS)
    text = DOCS[0]["text"]
    s = text.index("regional court")
    spans = _write(tmp_path / "spans.jsonl", [
        {"id": "a", "safe": False, "spans": [{"start_char": s, "end_char": s + len("regional court"),
                                              "label": "NGRAM"}]},
        {"id": "b", "safe": True, "spans": []},
    ])
    out = tmp_path / "out.jsonl"
    result = _run([str(queries), "-o", str(out), "--spans-only", "--spans", str(spans)])
    assert result.exit_code == 0, result.output
    assert "W280" not in result.output  # the one span had candidates
    a, b = _read(out)
    assert b["text"] == DOCS[1]["text"] and b["stats"]["n_phrases"] == 0
    assert a["text"] != text and "regional court" not in a["text"]
    matcher = difflib.SequenceMatcher(a=text, b=a["text"], autojunk=False)
    for op, i1, i2, _, _ in matcher.get_opcodes():
        if op != "equal":
            assert s - 3 <= i1 and i2 <= s + len("regional court") + 1


COLLECTION = [
    {"id": "a", "text": "The applicant lodged a complaint with the regional court in Vienna. "
                        "The judges quickly rejected the complaint as unfounded."},
    {"id": "b", "text": "The lawyers examined the documents carefully and found serious errors."},
    {"id": "c", "text": "The applicant lodged a complaint. The judges rejected the complaint."},
    {"id": "d", "text": "The lawyers examined the documents and found errors with the court."},
]


@pytest.mark.parametrize("guarantee", [False, True])
def test_spans_only_with_an_index_runs_the_rewrite_loop(tmp_path, guarantee):
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex

    index = tmp_path / "idx"
    NgramIndex.build(COLLECTION, index, progress=False)
    queries = _write(tmp_path / "q.jsonl", DOCS)
    out = tmp_path / "out.jsonl"
    flag = "--guarantee" if guarantee else "--no-guarantee"
    result = _run([str(queries), "-o", str(out), "--spans-only", "--index", str(index), "--passes", "2", flag])
    assert result.exit_code == 0, result.output
    det = Detector(NgramIndex.load(index), k=2, max_arity=3)
    for line, doc in zip(_read(out), DOCS):
        assert not det.detect(doc["text"]).safe
        assert 1 <= len(line["passes"]) <= 2
        assert all(p["llm_calls"] == 0 and p["spans_sent"] > 0 for p in line["passes"])
        assert (line["system"], line["k"], line["max_arity"]) == ("lexical", 2, 3)
        assert line["llm_calls"] == 0 and line["mode"] == "spans"
        assert line["text"] != doc["text"]
        # --verdict auto: each document's id is in the collection, so it is its own source.
        assert det.has_document(doc["id"]) and (line["verdict"], line["sources"]) == ("source", [doc["id"]])
        final = det.detect(line["text"], [doc["id"]])
        assert line["safe"] == final.safe
        if guarantee:
            assert final.safe and line["remaining_spans"] == 0
        else:
            assert line["forced_redactions"] == 0 and line["remaining_spans"] == len(final.spans)
            assert line["text"].count("[REDACTED]") == doc["text"].count("[REDACTED]")
        assert line["stats"]["n_edited"] > 0


def test_unchangeable_spans_from_a_file_warn(tmp_path):
    text = "It was on [REDACTED] in Paris."
    queries = _write(tmp_path / "q.jsonl", [{"id": "p", "text": text}])
    s = text.index("in Paris")
    spans = _write(tmp_path / "spans.jsonl", [{"id": "p", "spans": [[s, s + len("in Paris")]]}])
    out = tmp_path / "out.jsonl"
    with pytest.warns(Warning, match="W280"):
        result = _run([str(queries), "-o", str(out), "--spans-only", "--spans", str(spans)])
    assert result.exit_code == 0, result.output
    (line,) = _read(out)
    assert line["text"] == text and line["stats"]["n_unchanged"] == 1


def test_coded_errors(tmp_path):
    queries = _write(tmp_path / "q.jsonl", DOCS)
    out = tmp_path / "out.jsonl"
    result = _run([str(queries), "-o", str(out), "--spans-only"])
    assert result.exit_code == 1 and "E286" in result.output
    result = _run([str(queries), "-o", str(out), "--wordnet", str(tmp_path)])
    assert result.exit_code == 1 and "E280" in result.output and "apt-get install wordnet-base" in result.output
    result = _run([str(queries), "-o", str(out), "--rate", "2"])
    assert result.exit_code == 1 and "E283" in result.output
    assert not out.exists()


def test_whole_document_mode_checks_safety_with_an_index(tmp_path):
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex

    index = tmp_path / "idx"
    NgramIndex.build(COLLECTION, index, progress=False)
    queries = _write(tmp_path / "q.jsonl", DOCS)
    out = tmp_path / "out.jsonl"
    result = _run([str(queries), "-o", str(out), "--index", str(index), "--rate", "0.2", "--verdict", "any"])
    assert result.exit_code == 0, result.output
    assert "W281" not in result.output
    det = Detector(NgramIndex.load(index), k=2, max_arity=3)
    lines = _read(out)
    for line in lines:
        final = det.detect(line["text"])
        assert (line["safe"], line["verdict"], line["remaining_spans"]) == (final.safe, "any", len(final.spans))
    assert f"{sum(line['safe'] for line in lines)} safe at k=2" in result.output


def test_unchecked_output_warns(tmp_path):
    queries = _write(tmp_path / "q.jsonl", DOCS[:1])
    with pytest.warns(Warning, match="W281"):
        result = _run([str(queries), "-o", str(tmp_path / "out.jsonl"), "--rate", "0"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args,flag", [
    (["--spans", "s.jsonl"], "--spans"),  # without --spans-only
    (["--passes", "2"], "--passes"),  # whole-document mode
    (["--spans-only", "--index", "idx", "--rate", "0.3"], "--rate"),
    (["--spans-only", "--spans", "s.jsonl", "--k", "3"], "--k"),  # nothing is detected
])
def test_an_option_the_mode_ignores_is_an_error(tmp_path, args, flag):
    queries = _write(tmp_path / "q.jsonl", DOCS)
    result = _run([str(queries), "-o", str(tmp_path / "out.jsonl"), *args])
    assert result.exit_code == 1 and "[E287]" in result.output and f"{flag} does nothing" in result.output
    assert not (tmp_path / "out.jsonl").exists()
