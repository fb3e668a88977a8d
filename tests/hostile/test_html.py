"""Issue 15, item 4: hostile ids and texts never run as script in any page we write (headless Chromium)."""
import json
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import write_records
from spacy_linkguard.experiments.report import load_reference, render_report, write_displacy_pages

from .conftest import TEXTS

MARK = "pwned-marker"
JS = f"document.body.appendChild(document.createElement('{MARK}'))"
HOSTILE = [
    f"<script>{JS}</script>",
    f"\"><img src=x onerror=\"{JS}\">",
    f"'><svg onload='{JS}'>",
    f"</title><script>{JS}</script>",
]
IDS = HOSTILE + ["a/b", "a.b", "a_b"]


def dump_dom(page, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
    out = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=2000",
         f"--user-data-dir={tmp_path / 'chrome-profile'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def assert_no_script_ran(page, tmp_path):
    dom = dump_dom(page, tmp_path)
    assert f"<{MARK}" not in dom, f"a script ran in {page.name}"
    return dom


@pytest.mark.browser
def test_the_check_sees_a_script_that_runs(tmp_path):
    page = tmp_path / "control.html"
    page.write_text(f"<!DOCTYPE html><html><body>{HOSTILE[0]}{HOSTILE[1]}</body></html>")
    assert dump_dom(page, tmp_path).count(f"<{MARK}") == 2


@pytest.mark.browser
def test_show_page_with_hostile_ids_and_texts(hostile_index, tmp_path):
    index, _ = hostile_index
    queries = tmp_path / "q.jsonl"
    # Collection text (flagged spans drawn by displaCy) around hostile markup.
    write_records([{"id": doc_id, "text": f"{TEXTS[0]} {HOSTILE[i % len(HOSTILE)]} {TEXTS[2]}"}
                   for i, doc_id in enumerate(IDS)], queries)
    out = tmp_path / "show.html"
    res = CliRunner().invoke(app, ["show", str(queries), "--index", str(index), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    dom = assert_no_script_ran(out, tmp_path)
    assert dom.count('<section class="doc"') == len(IDS)
    assert "&lt;script&gt;" in dom


def _results(tmp_path):
    outputs = tmp_path / "out.jsonl"
    texts = {doc_id: f"{TEXTS[0]} {HOSTILE[i % len(HOSTILE)]}" for i, doc_id in enumerate(IDS)}
    write_records([{"id": k, "text": v} for k, v in texts.items()], outputs)
    spans = [[[4, 13, f"<b onmouseover=\"{JS}\">NGRAM"]] for _ in IDS]
    return {
        "systems": [{"key": "llm_a1", "label": f"LLM <i>{HOSTILE[0]}</i>", "file": str(outputs)}],
        "per_doc": {"llm_a1": {"ids": IDS, "remaining_spans_a3": spans}},
    }


@pytest.mark.browser
def test_report_document_pages_escape_ids_and_never_share_a_file(tmp_path):
    out_dir = tmp_path / "report"
    links = write_displacy_pages(_results(tmp_path), out_dir, max_docs=len(IDS))
    entries = next(iter(links.values()))
    hrefs = [e["href"] for e in entries]
    assert [e["id"] for e in entries] == IDS
    assert len(set(hrefs)) == len(IDS)  # 'a/b', 'a.b' and 'a_b' get three files
    for href in hrefs:
        page = out_dir / href
        assert page.is_file() and page.resolve().is_relative_to(out_dir.resolve())
    for href in hrefs[: len(HOSTILE)]:
        assert_no_script_ran(out_dir / href, tmp_path)


@pytest.mark.browser
def test_report_index_page_escapes_ids(tmp_path):
    from tests.experiments.test_report import make_results

    res = make_results()
    res["dataset"] = HOSTILE[0]
    res["settings"]["queries"] = HOSTILE[1]
    links = {HOSTILE[3]: [{"id": doc_id, "href": f"docs/{i}.html", "n_spans": "1"} for i, doc_id in enumerate(IDS)]}
    pages = render_report(res, load_reference(), figures={"figure2": None, "figure3": None}, doc_links=links)
    page = tmp_path / "report.html"
    page.write_text(pages["html"], encoding="utf-8")
    assert_no_script_ran(page, tmp_path)
    assert "<script" not in pages["md"] and "<img" not in pages["md"]
    assert json.dumps(pages["md"])  # the Markdown is plain text
