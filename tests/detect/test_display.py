"""Rendering of flagged spans (as written, displaCy's style), checked in headless Chromium."""
import html as htmllib
import re
import shutil
import subprocess

import pytest
import spacy

from spacy_linkguard.display import DISPLACY_COLORS, drawn_marks, render, render_report


@pytest.fixture(scope="module")
def docs(small_index):
    index, queries, _ = small_index
    from spacy_linkguard.corpus import iter_records

    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index)})
    out = []
    for rec in iter_records(queries):
        doc = nlp(rec.text)
        doc.user_data["id"] = rec.id
        out.append(doc)
    return out


def test_render_draws_every_span_with_our_colors(docs):
    import spacy_linkguard

    doc = next(d for d in docs if len(d.spans["linkguard"]) > 1)
    html = spacy_linkguard.render(doc)
    assert html == render(doc)
    # Each drawn span's label once, at its start.
    labels = re.findall(r'lg-start" data-label="(\w+)"', html)
    assert sorted(labels) == sorted(m.label_ for m in drawn_marks(doc))
    for label in set(labels):
        assert DISPLACY_COLORS[label] in html


def _visible_text(markup):
    """The text a browser shows for our markup: tags dropped, entities decoded."""
    body = re.search(r'<div class="lg-spans">(.*?)</div>', markup, re.S).group(1)
    return htmllib.unescape(re.sub(r"<[^>]+>", "", body))


def _doc_with_spans(text, spans):
    from spacy.tokens import Span

    from spacy_linkguard.pipeline.linkguard import install_extensions

    install_extensions()
    doc = spacy.blank("en")(text)
    doc.spans["linkguard"] = [doc.char_span(text.index(t), text.index(t) + len(t), label=label, alignment_mode="expand")
                              for t, label in spans]
    doc._.linkguard_safe = False
    return doc


def test_page_shows_the_document_as_written():
    text = "He left the regional office.\nIt was <[REDACTED]> & Hay-on-Wye, in November 2011."
    doc = _doc_with_spans(text, [("regional office", "COMBO"), ("[REDACTED]> & Hay-on-Wye", "NGRAM"),
                                 ("November 2011", "NGRAM")])
    page = render_report([doc])
    assert _visible_text(page) == text
    assert _visible_text(render(doc, jupyter=False)) == text  # not "office .", "[ REDACTED ]", "Hay - on - Wye"


def test_a_combo_inside_an_ngram_is_listed_but_not_drawn():
    text = "It happened in November 2011 in Vienna."
    doc = _doc_with_spans(text, [("November 2011", "NGRAM"), ("November", "COMBO"), ("2011 in Vienna", "COMBO")])
    drawn = {(text[m.start_char:m.end_char], m.label_, m.slot) for m in drawn_marks(doc)}
    assert drawn == {("November 2011", "NGRAM", 1), ("2011 in Vienna", "COMBO", 2)}  # overlap: its own line
    page = render_report([doc])
    assert len(re.findall(r'<tr class="span-row"', page)) == 3  # the evidence keeps all three
    assert len(doc.spans["linkguard"]) == 3


def test_colors_are_registered_for_displacy(docs):
    from spacy import displacy

    doc = next(d for d in docs if len(d.spans["linkguard"]))
    html = displacy.render(doc, style="span", options={"spans_key": "linkguard"})
    assert any(color in html for color in DISPLACY_COLORS.values())


def test_report_lists_evidence(docs):
    html = render_report(docs)
    rows = re.findall(r'<tr class="span-row" data-label="(\w+)">', html)
    assert len(rows) == sum(len(d.spans["linkguard"]) for d in docs)
    combo = next(s for d in docs for s in d.spans["linkguard"] if s.label_ == "COMBO")
    partner = combo._.linkguard_examples[0]["partners"][0]["key"]
    assert partner in html


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("Chromium is not installed: run `make sysdeps` (Debian package chromium)")


@pytest.mark.browser
def test_report_page_draws_spans_in_chromium(docs, tmp_path):
    html_path = tmp_path / "report.html"
    html_path.write_text(render_report(docs), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([_chromium(), *flags, "--dump-dom", html_path.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    sections = re.findall(r'<section class="doc"[^>]*data-spans="(\d+)"', dom)
    assert [int(n) for n in sections] == [len(d.spans["linkguard"]) for d in docs]
    # The browser parsed the span markup: one label per drawn span.
    n_labels = len(re.findall(r'class="lg-bar lg-start" data-label="(?:NGRAM|COMBO)"', dom))
    assert n_labels == sum(len(drawn_marks(d)) for d in docs) > 0
    # And drew it: the span colors appear on screen.
    from PIL import Image

    shot = tmp_path / "shot.png"
    subprocess.run([_chromium(), *flags, f"--screenshot={shot}", "--window-size=1200,2400", html_path.as_uri()],
                   capture_output=True, timeout=120)
    pixels = Image.open(shot).convert("RGB").getdata()
    ngram = tuple(int(DISPLACY_COLORS["NGRAM"][i : i + 2], 16) for i in (1, 3, 5))
    assert sum(1 for p in pixels if p == ngram) > 100


def test_overlapping_combos_are_one_mark_with_one_label():
    """Overlapping or touching COMBO spans are one phrase on the page: one label
    before it (not "COMBO at COMBO the flat on"), its spans named in the tooltip."""
    text = "She was seen at the flat on Monday. Medication is managed with a weekly box."
    doc = _doc_with_spans(text, [("at the flat", "COMBO"), ("the flat on", "COMBO"), ("Medication is", "COMBO"),
                                 ("is managed", "COMBO"), ("managed with a weekly", "COMBO")])
    marks = drawn_marks(doc)
    assert [(text[m.start_char:m.end_char], m.label_, m.slot) for m in marks] == [
        ("at the flat on", "COMBO", 1), ("Medication is managed with a weekly", "COMBO", 1)]
    html = render(doc, jupyter=False)
    assert _visible_text(html) == text
    assert len(re.findall(r'data-labels="COMBO"', html)) == 2
    assert len(re.findall(r'lg-start" data-label=', html)) == 2
    assert "“at the flat”, “the flat on”" in htmllib.unescape(html)
    # Spans separated by a line break stay two marks.
    doc = _doc_with_spans("at the flat\non Monday", [("at the flat", "COMBO"), ("on Monday", "COMBO")])
    assert len(drawn_marks(doc)) == 2


def _long_document(n_words=30_000, seed=46):
    import random

    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7)) for _ in range(20_000)]
    words = []
    for i in range(n_words):
        words.append(rng.choice(vocab) + ("." if i % 15 == 14 else ""))
    return " ".join(words)


def _with_overlapping_combos(doc, step=2, width=3):
    """doc's spans plus a COMBO span over every `width` tokens starting at every `step`-th."""
    from spacy.tokens import Span

    spans = list(doc.spans.get("linkguard", []))
    spans += [Span(doc, i, i + width, label="COMBO") for i in range(0, len(doc) - width, step)]
    doc.spans["linkguard"] = spans
    return doc


@pytest.mark.slow
def test_show_page_of_a_long_document_is_fast_and_linear(tmp_path):
    """A 30,000-word document with about 27,000 flagged spans (NGRAM, and COMBO
    spans overlapping them and each other) renders in a few times the time
    that detection took (it took minutes: every piece of text scanned every
    span), and the page grows linearly with the spans."""
    import time

    from spacy_linkguard.corpus import Record
    from spacy_linkguard.index import NgramIndex

    text = _long_document()
    other = _long_document(3_000, seed=7)
    index = tmp_path / "index"
    NgramIndex.build([Record(id="long", text=text), Record(id="other", text=other)], index, progress=False)
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index), "k": 2, "max_arity": 1})
    doc = nlp.make_doc(text)
    start = time.perf_counter()
    doc = nlp.get_pipe("linkguard")(doc)
    detect_s = time.perf_counter() - start
    n_detected = len(doc.spans["linkguard"])
    assert 25_000 <= n_detected <= 30_000
    start = time.perf_counter()
    page = render_report([doc])
    render_s = time.perf_counter() - start
    assert render_s <= 3 * detect_s + 1.0, (render_s, detect_s)
    assert _visible_text(page) == text
    # Overlapping COMBO spans: still fast, one label per merged phrase.
    half = _with_overlapping_combos(nlp.make_doc(text[: len(text) // 2]))
    whole = _with_overlapping_combos(nlp.make_doc(text))
    start = time.perf_counter()
    pages = [render_report([d]) for d in (half, whole)]
    assert time.perf_counter() - start <= 3 * detect_s + 1.0
    sizes = [len(p.encode("utf-8")) for p in pages]
    n_spans = [len(d.spans["linkguard"]) for d in (half, whole)]
    assert 1.7 <= sizes[1] / sizes[0] <= 2.3  # twice the spans, twice the page
    assert sizes[1] / n_spans[1] < 400  # bytes per span, evidence row included
