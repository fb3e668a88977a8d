"""What a reader checks first: the ungrounded words of a changed paragraph
(the real `Grounder`) are marked on the page and listed in its notes, and the
"read first" order puts facts, ungrounded words and dropped or added text
before placeholders alone (html.parser reads the page back)."""
import random
from html.parser import HTMLParser

import pytest

from spacy_linkguard.review import render_review, review_item
from spacy_linkguard.review.items import (CHECK, NOTHING, PLACEHOLDERS_ONLY, ParagraphReview, dropped_sentences,
                                          paragraph_reviews, read_first, review_paragraph)

P = "[REDACTED]"
PLACEHOLDERS = ("The applicant lodged a complaint with the prosecutor in Sofia.",
                "The applicant lodged a complaint with the prosecutor in [REDACTED].")
UNGROUNDED = ("The Court declared the application admissible on that same day.",
              "The Court determined the application to be valid on that same day.")
REWORDED = ("The applicant drove his car to the police station in the morning.",
            "The applicant drove his vehicle to the police station in the morning.")
UNCHANGED = "The Government did not submit observations."


def _doc(*paragraphs):
    return "\n\n".join(paragraphs)


def test_priorities(grounder):
    assert review_paragraph(*PLACEHOLDERS, P, grounder).priority == PLACEHOLDERS_ONLY
    r = review_paragraph(*UNGROUNDED, P, grounder)
    assert r.priority == CHECK and r.ungrounded_words == ["determined", "valid"]
    assert review_paragraph(*REWORDED, P, grounder).priority == NOTHING  # a hypernym is grounded
    assert review_paragraph(UNCHANGED, UNCHANGED, P, grounder).priority == NOTHING
    assert review_paragraph(UNCHANGED, "", P, grounder).priority == CHECK  # dropped
    # without a grounder nothing is ungrounded: the old page's flags
    assert review_paragraph(*UNGROUNDED, P).priority == NOTHING


def test_ungrounded_words_come_before_placeholders_alone(grounder):
    item = review_item(_doc(PLACEHOLDERS[0], REWORDED[0], UNGROUNDED[0], UNCHANGED),
                       {"id": "d", "text": _doc(PLACEHOLDERS[1], REWORDED[1], UNGROUNDED[1], UNCHANGED)},
                       placeholder=P, grounder=grounder)
    assert item["read_first"] == [2, 0]  # the ungrounded paragraph, then the placeholder one; not the reworded one
    assert (item["n_attention"], item["n_check"], item["n_ungrounded"]) == (2, 1, 2)


def test_the_order_is_the_documented_key():
    rng = random.Random(0)
    paragraphs = []
    for _ in range(40):
        p = ParagraphReview("old text", "new text", facts_dropped=["two"] * rng.randint(0, 1),
                            placeholders_added=rng.randint(-1, 2), ungrounded=[(0, 3)] * rng.randint(0, 3),
                            sentences_dropped=["A sentence."] * rng.randint(0, 1))
        paragraphs.append(p)
    order = read_first(paragraphs)
    assert sorted(order) == [i for i, p in enumerate(paragraphs) if p.priority < NOTHING]
    keys = [(paragraphs[i].priority, -len(paragraphs[i].ungrounded)) for i in order]
    assert keys == sorted(keys)
    ranks = [paragraphs[i].priority for i in order]
    assert ranks == sorted(ranks) and set(ranks) <= {CHECK, PLACEHOLDERS_ONLY}


def test_dropped_and_added_sentences():
    old = "The applicant was arrested. He was held in a cell. The court released him."
    assert dropped_sentences(old, "The applicant was arrested. The court released him.") == ["He was held in a cell."]
    # a sentence merged into its neighbour is not dropped
    assert dropped_sentences(old, "The applicant was arrested and was held in a cell. The court released him.") == []
    new = "The applicant was arrested. He was held in a cell. The court released him. He sued the police."
    assert dropped_sentences(new, old) == ["He sued the police."]
    r = review_paragraph(old, new, P)
    assert r.sentences_added == ["He sued the police."] and r.priority == CHECK


@pytest.mark.parametrize("seed", range(20))
def test_the_output_column_gives_the_text_back(seed, grounder):
    rng = random.Random(seed)
    words = ["court", "valid", "the", "applicant", "[REDACTED]", "determined", "car", "vehicle", "of", ".", ","]
    old = " ".join(rng.choices(words, k=rng.randint(1, 12)))
    new = " ".join(rng.choices(words, k=rng.randint(1, 12)))
    for r in paragraph_reviews(old, new, P, grounder):
        runs = r.new_runs
        assert "".join(t for run in runs for t, _ in run.parts) == r.new
        assert [t for run in runs for t, m in run.parts if m] == r.ungrounded_words


class Marks(HTMLParser):
    """The text of every mark.ungrounded (with the class of the column it is in), and of each read-first item."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.marks, self.items, self.heads = [], [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a))
        if tag == "mark":
            columns = [c.get("class") for t, c in self.stack if t == "div" and "text" in c.get("class", "")]
            column = columns[-1] if columns else None
            self.marks.append([column, a.get("class"), a.get("title"), ""])
        if tag == "li":
            self.items.append([a.get("data-para"), ""])
        if tag == "div" and a.get("class") == "head":
            self.heads.append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        tags = [t for t, _ in self.stack]
        if "mark" in tags:
            self.marks[-1][3] += data
        if "li" in tags:
            self.items[-1][1] += data
        if any(t == "div" and c.get("class") == "head" for t, c in self.stack):
            self.heads[-1] += data


def test_the_page_marks_and_lists_the_ungrounded_words(grounder):
    item = review_item(_doc(PLACEHOLDERS[0], UNGROUNDED[0]), {"id": "d", "text": _doc(PLACEHOLDERS[1], UNGROUNDED[1])},
                       placeholder=P, grounder=grounder)
    page = render_review([item])
    parser = Marks()
    parser.feed(page)
    doc_marks = [m for m in parser.marks if m[0] is not None]  # the legend's example is outside any column
    assert doc_marks == [["text new", "ungrounded", "not grounded in the input", "determined"],
                         ["text new", "ungrounded", "not grounded in the input", "valid"]]
    # the read-first list: the ungrounded paragraph (the 2nd) before the placeholder one (the 1st)
    assert [i for i, _ in parser.items] == ["2", "1"]
    assert "ungrounded: determined, valid" in parser.items[0][1] and "placeholders only" in parser.items[1][1]
    assert "ungrounded: determined, valid" in parser.heads[1]
    assert 'id="doc-1-p-2"' in page and 'href="#doc-1-p-2"' in page
    # the diff's marks are still there, the ungrounded ones inside them
    assert '<ins><mark class="ungrounded" title="not grounded in the input">determined</mark></ins>' in page


def test_a_page_without_ungrounded_words_renders_the_diff_as_before():
    item = review_item(REWORDED[0], {"id": "d", "text": REWORDED[1]}, placeholder=P)
    page = render_review([item])
    assert "his <ins>vehicle</ins> to" in page and '<ol class="read-first">' not in page
