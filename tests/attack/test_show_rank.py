"""`show --rank`: each document's header gives its sources' best BM25 rank (checked
against the brute-force BM25 of test_bm25.py; --rank-model none leaves the
embedding rank out), and the page draws it in headless Chromium."""
import html as htmllib
import json
import re
import subprocess

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import Record
from spacy_linkguard.index import NgramIndex

from .test_bm25 import WORDS, words_of
from .test_component_rank import bm25_oracle, make_corpus

pytest.importorskip("bm25s")

HEADER = re.compile(r'<section class="doc"[^>]*data-doc-id="([^"]*)"[^>]*>\s*<h2>(.*?)</h2>', re.S)
RANK = re.compile(r'<span class="rank[^"]*" data-bm25="(\d*)" data-embedding="(\d*)"[^>]*>([^<]*)</span>')


@pytest.fixture(scope="module")
def collection():
    return make_corpus(seed=13, n=16)


@pytest.fixture(scope="module")
def files(collection, tmp_path_factory):
    root = tmp_path_factory.mktemp("show_rank")
    NgramIndex.build([Record(id=i, text=t) for i, t in collection.items()], root / "idx", progress=False,
                     n_process=1)
    ids = list(collection)
    lines = []
    for n, doc_id in enumerate(ids[:8]):
        words = collection[doc_id].split()
        text = " ".join(words[::2]) + " [REDACTED]."
        if n == 3:  # words of other documents only: its sources rank below them
            absent = set(WORDS) - set(words_of(collection[doc_id])) - set(words_of(collection[ids[-4]]))
            text = " ".join(sorted(absent)[:2]) + "."
        if n % 2:  # ranked by its given sources
            lines.append({"id": f"q{n}", "text": text, "sources": [doc_id, ids[-1 - n]]})
        else:  # ranked by its own id
            lines.append({"id": doc_id, "text": text})
    lines.append({"id": "unknown", "text": "court fine london."})
    q = root / "q.jsonl"
    q.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
    return root / "idx", q, lines


def show(files, tmp_path, *args):
    index, q, _ = files
    out = tmp_path / f"page{len(list(tmp_path.glob('page*')))}.html"
    res = CliRunner().invoke(app, ["show", str(q), "--index", str(index), "-o", str(out), "--no-progress", *args])
    assert res.exit_code == 0, res.output
    return out.read_text(encoding="utf-8")


def header_ranks(page):
    """doc id -> (bm25, embedding, text) of its header's rank, or None without one."""
    out = {}
    for doc_id, h2 in HEADER.findall(page):
        m = RANK.search(h2)
        out[htmllib.unescape(doc_id)] = None if m is None else (m.group(1), m.group(2), m.group(3))
    return out


def expected_sources(line, collection):
    return line.get("sources") or ([line["id"]] if line["id"] in collection else None)


def test_show_rank_puts_the_sources_ranks_in_each_header(files, collection, tmp_path):
    _, _, lines = files
    page = show(files, tmp_path, "--rank", "--rank-model", "none")
    ranks = header_ranks(page)
    assert list(ranks) == [o["id"] for o in lines]
    seen = set()
    for line in lines:
        bm25, emb, text = ranks[line["id"]]
        sources = expected_sources(line, collection)
        if sources is None:
            assert (bm25, emb) == ("", "") and "sources unknown" in text
            continue
        want = bm25_oracle(collection, line["text"], sources)
        assert int(bm25) == want and emb == ""
        assert f"BM25 {want}," in text and "embedding not ranked" in text
        seen.add(want)
    assert 1 in seen and len(seen) > 1  # the check tells ranks apart
    # The same sources and ranks as `detect --rank`.
    index, q, _ = files
    out = tmp_path / "detect.jsonl"
    res = CliRunner().invoke(app, ["detect", str(q), "--index", str(index), "-o", str(out), "--rank",
                                   "--rank-model", "none", "--no-progress"])
    assert res.exit_code == 0, res.output
    for obj in map(json.loads, out.read_text().splitlines()):
        shown = ranks[obj["id"]][0]
        assert (int(shown) if shown else None) == obj["rank"]["bm25"]


def test_show_without_rank_has_no_rank_in_headers(files, tmp_path):
    page = show(files, tmp_path)
    assert set(header_ranks(page).values()) == {None}
    assert 'class="rank' not in page and "search engine" not in page


def test_verdict_any_still_ranks_by_the_known_sources(files, collection, tmp_path):
    _, _, lines = files
    ranked = header_ranks(show(files, tmp_path, "--rank", "--rank-model", "none"))
    page = show(files, tmp_path, "--rank", "--rank-model", "none", "--verdict", "any")
    assert header_ranks(page) == ranked
    assert "judged under verdict any" in page and "judged under verdict source" not in page


@pytest.mark.browser
def test_ranked_page_in_chromium(files, collection, tmp_path):
    from PIL import Image

    from ..detect.test_display import _chromium

    page = tmp_path / "ranked.html"
    page.write_text(show(files, tmp_path, "--rank", "--rank-model", "none"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([_chromium(), *flags, "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    in_browser = header_ranks(dom)
    assert in_browser == header_ranks(page.read_text(encoding="utf-8")) and len(in_browser) == 9
    n_top = sum(1 for r in in_browser.values() if r and r[0] == "1")
    assert n_top >= 1
    shot = tmp_path / "shot.png"
    subprocess.run([_chromium(), *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120)
    img = Image.open(shot).convert("RGB")
    # A source ranked first is drawn on the rank-top color (#9fc5f8) in its header.
    top = sum(1 for px in img.getdata() if px == (0x9F, 0xC5, 0xF8))
    assert top > 50


def test_show_rank_with_two_workers(files, tmp_path):
    one = header_ranks(show(files, tmp_path, "--rank", "--rank-model", "none"))
    assert header_ranks(show(files, tmp_path, "--rank", "--rank-model", "none", "--workers", "2")) == one
