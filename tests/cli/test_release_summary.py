"""Commands that write text meant for release say, per document, whether it is
safe and under which verdict (or warn that it was not checked), and print one
summary line; an empty input is a coded warning for every command. `rewrite`
runs with the canned-reply model of tests/rewrite/canned.py (no real LLM)."""
import json

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.errors import LinkguardWarning
from spacy_linkguard.index import NgramIndex

from ..pipeline.test_readme_recipe import links_to
from ..rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from ..rewrite.oracle import CORPUS, DictIndex
from .test_detection_options import CONFIG

# Documents of the collection with a name and a date Presidio masks; the rest still links.
DOCS = [{"id": "d0", "text": "Mr John Smith lodged the complaint on 12 March 1997. " + CORPUS[0]},
        {"id": "d1", "text": CORPUS[1]}]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("release")
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], root / "idx",
                     progress=False, n_process=1)
    (root / "q.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (root / "empty.jsonl").write_text("", encoding="utf-8")
    (root / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    return root


def run(*args):
    return CliRunner().invoke(app, [*args])


@pytest.mark.slow  # Presidio and the spaCy pipeline
def test_deidentify_with_an_index_says_per_document_whether_it_is_safe(root):
    out = root / "deid.jsonl"
    res = run("deidentify", str(root / "q.jsonl"), "-o", str(out), "--index", str(root / "idx"))
    assert res.exit_code == 0, res.output
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    oracle = DictIndex(CORPUS)
    for line in lines:
        # the document's id is in the index: judged under source, against itself (a brute-force oracle)
        assert (line["verdict"], line["sources"]) == ("source", [line["id"]])
        assert line["safe"] is (not links_to(line["text"], int(line["id"][1:]), oracle))
    assert "[REDACTED]" in lines[0]["text"] and not lines[1]["safe"]  # masking alone leaves links
    n_safe = sum(line["safe"] for line in lines)
    assert f"{n_safe} of 2 safe at k=2, max_arity=3, verdict source for 2" in res.output


@pytest.mark.slow
def test_deidentify_without_an_index_warns_that_nothing_was_checked(root):
    out = root / "deid_unchecked.jsonl"
    with pytest.warns(LinkguardWarning, match=r"W003.*2 document\(s\).*--index"):
        res = run("deidentify", str(root / "q.jsonl"), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "2 not checked for linkage" in res.output
    assert [json.loads(ln)["safe"] for ln in out.read_text().splitlines()] == [None, None]


def test_deidentify_refuses_an_index_with_another_placeholder(root):
    res = run("deidentify", str(root / "q.jsonl"), "-o", str(root / "x.jsonl"), "--index", str(root / "idx"),
              "--placeholder", "[X]")
    assert res.exit_code == 1 and "E003" in res.output and not (root / "x.jsonl").exists()


def test_rewrite_prints_a_summary_line(root):
    out = root / "rw.jsonl"
    res = run("rewrite", str(root / "q.jsonl"), "--index", str(root / "idx"), "--config", str(root / "rw.cfg"),
              "-o", str(out), "--no-progress")
    assert res.exit_code == 0, res.output
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    forced = sum(line["forced_redactions"] for line in lines)
    assert forced > 0
    assert (f"2 document(s) rewritten, 2 of 2 safe at k=2, max_arity=3, verdict source for 2; {forced} span(s) "
            f"redacted by guarantee mode -> {out}") in res.output


EMPTY_RUNS = {
    "detect": lambda r: ["detect", str(r / "empty.jsonl"), "--index", str(r / "idx"), "--no-progress"],
    "show": lambda r: ["show", str(r / "empty.jsonl"), "--index", str(r / "idx"), "-o", str(r / "e.html"),
                       "--no-progress"],
    "rewrite": lambda r: ["rewrite", str(r / "empty.jsonl"), "--index", str(r / "idx"), "--config",
                          str(r / "rw.cfg"), "-o", str(r / "e_rw.jsonl"), "--no-progress"],
    "deidentify": lambda r: ["deidentify", str(r / "empty.jsonl"), "-o", str(r / "e_deid.jsonl")],
    "paraphrase": lambda r: ["paraphrase", str(r / "empty.jsonl"), "-o", str(r / "e_par.jsonl"), "--no-progress"],
}


@pytest.mark.parametrize("command", sorted(EMPTY_RUNS))
def test_an_empty_input_is_a_coded_warning(root, command):
    with pytest.warns(LinkguardWarning, match=rf"W004.*empty\.jsonl holds no documents.*`{command}`"):
        res = run(*EMPTY_RUNS[command](root))
    assert res.exit_code == 0, res.output
    assert "max_arity=3, verdict (" not in res.output  # an empty verdict, as it was
    if command == "detect":
        assert "0 document(s), 0 safe at k=2, max_arity=3, no verdict" in res.output
    if command == "rewrite":
        assert "0 document(s) rewritten" in res.output
