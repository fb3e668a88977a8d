"""`review`: the page shows every rewritten document with its changed
paragraphs; the text on each side of a paragraph, read off the page, is
exactly the input and the output paragraph (html.parser as the oracle);
hostile text stays text; a document the queries lack is a coded error and no
page is written; an empty rewrite is a coded warning."""
import json
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.errors import LinkguardWarning
from spacy_linkguard.paragraphs import paragraph_pairs

INPUTS = [
    {"id": "d1", "text": "PROCEDURE\n\nThe applicant was arrested on [REDACTED] and held for two weeks.\n\n"
                         "The hearing was adjourned."},
    {"id": "d2", "text": "The court did not hear the witness <script>alert(1)</script> & co."},
    {"id": "d3", "text": "Nothing changes here at all."},
]
OUTPUTS = [
    {"id": "d1", "text": "PROCEDURE\n\nThe applicant was detained on [REDACTED] and held for three weeks.\n\n"
                         "The hearing was postponed.", "safe": True, "verdict": "source", "forced_redactions": 1},
    {"id": "d2", "text": "The court heard the witness <script>alert(2)</script> & co.", "safe": False,
     "verdict": "source", "forced_redactions": 0},
    {"id": "d3", "text": "Nothing changes here at all."},
]


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(*args):
    return CliRunner().invoke(app, ["review", *map(str, args), "--no-progress"])


class Columns(HTMLParser):
    """The text of every paragraph's two columns (div.old / div.new), in page order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cols, self.open, self.scripts = [], None, 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class", "")
        if tag == "script":
            self.scripts += 1
        if tag == "div" and cls in ("text old", "text new"):
            self.open = cls.split()[1]
            self.cols.append([self.open, ""])

    def handle_endtag(self, tag):
        if tag == "div":
            self.open = None

    def handle_data(self, data):
        if self.open:
            self.cols[-1][1] += data


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / "q.jsonl", INPUTS), write(tmp_path / "out.jsonl", OUTPUTS), tmp_path


def test_the_page_shows_each_changed_paragraph_exactly(files):
    q, out, tmp = files
    res = run(q, out, "-o", tmp / "page.html")
    assert res.exit_code == 0, res.output
    # "postponed" for "adjourned" is ungrounded (no WordNet synonym): the third paragraph to read first
    assert "3 document(s), 3 changed paragraph(s), 3 to read first (3 with facts changed" in res.output
    page = (tmp / "page.html").read_text(encoding="utf-8")
    parser = Columns()
    parser.feed(page)
    assert parser.scripts == 0  # the input's <script> is text
    expected = []
    for i, o in zip(INPUTS, OUTPUTS):
        a, b, pairs = paragraph_pairs(i["text"], o["text"])
        for x, y in pairs:
            if a[x] != b[y]:
                expected += [["old", a[x]], ["new", b[y]]]
    assert parser.cols == expected
    for doc in ("d1", "d2", "d3"):
        assert f'data-doc-id="{doc}"' in page
    assert "still linkable" in page and "not checked for linkage" in page
    assert "facts dropped:</span> two weeks" in page and "facts added:</span> three weeks" in page
    assert "&lt;script&gt;" in page


def test_all_paragraphs_shows_the_unchanged_ones_too(files):
    q, out, tmp = files
    assert run(q, out, "-o", tmp / "all.html", "--all-paragraphs").exit_code == 0
    parser = Columns()
    parser.feed((tmp / "all.html").read_text(encoding="utf-8"))
    n_paragraphs = sum(len(paragraph_pairs(i["text"], o["text"])[2]) for i, o in zip(INPUTS, OUTPUTS))
    assert len(parser.cols) == 2 * n_paragraphs
    assert ["old", "Nothing changes here at all."] in parser.cols


def test_limit(files):
    q, out, tmp = files
    assert run(q, out, "-o", tmp / "one.html", "--limit", "1").exit_code == 0
    page = (tmp / "one.html").read_text(encoding="utf-8")
    assert 'data-doc-id="d1"' in page and 'data-doc-id="d2"' not in page


def test_a_document_missing_from_the_queries_is_a_coded_error_and_no_page(files):
    q, out, tmp = files
    write(out, OUTPUTS + [{"id": "d9", "text": "Unknown."}])
    res = run(q, out, "-o", tmp / "bad.html")
    assert res.exit_code == 1
    assert "E289" in res.output and "'d9'" in res.output and "line 4" in res.output
    assert not (tmp / "bad.html").exists()


def test_the_page_never_overwrites_an_input(files):
    q, out, tmp = files
    res = run(q, out, "-o", out)
    assert res.exit_code == 1 and "E012" in res.output
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["id"] == "d1"


def test_an_empty_rewrite_is_a_coded_warning(files):
    q, _, tmp = files
    empty = write(tmp / "empty.jsonl", [])
    with pytest.warns(LinkguardWarning, match=r"W004"):
        res = run(q, empty, "-o", tmp / "empty.html")
    assert res.exit_code == 0
    assert 'data-total="docs">0<' in (tmp / "empty.html").read_text(encoding="utf-8")


def test_another_placeholder(files):
    q, _, tmp = files
    out = write(tmp / "other.jsonl", [{"id": "d3", "text": "Nothing <X> changes <X> here."}])
    write(q, [{"id": "d3", "text": "Nothing changes here <X>."}])
    assert run(q, out, "-o", tmp / "x.html", "--placeholder", "<X>").exit_code == 0
    assert "placeholders added:</span> 1" in (tmp / "x.html").read_text(encoding="utf-8")
    assert run(q, out, "-o", tmp / "y.html").exit_code == 0  # [REDACTED]: none added
    assert "placeholders added:" not in (tmp / "y.html").read_text(encoding="utf-8")
