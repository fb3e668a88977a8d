"""The report: table layout from a results dict, Markdown and HTML (HTML checked in headless Chromium)."""
import re
import shutil
import subprocess

import pytest

from spacy_linkguard.experiments.report import build_tables, load_reference, render_report, table_labels
from spacy_linkguard.experiments.systems import SYSTEMS


def make_results(dataset="echr"):
    rows = []
    for i, s in enumerate(SYSTEMS):
        rows.append({
            "key": s.key, "label": s.label, "paper_key": s.paper_key, "model": f"model-{s.key}",
            "file": "none.jsonl", "n_docs": 2,
            "linkable_prop_a1": 0.1 * i, "linkable_prop_a3": 0.05 * i,
            "linkage_rate_a1": 0.5, "linkage_rate_a3": 1.0,
            "linkage_rate_a1_source": 0.25, "linkage_rate_a3_source": 0.75,
            "verdict": "source" if s.key.startswith(("llm_a", "lexical")) else None,
            "verdict_counts": {"source": 2} if s.key.startswith(("llm_a", "lexical")) else {},
            "n_without_sources": 0, "placeholder": "[REDACTED]", "placeholders_added": 1.5 * i,
            "similarity": {"all-MiniLM-L6-v2": 0.9, "paraphrase-distilroberta-base-v2": None},
            "perplexity": 20.0 + i, "edit_volume": 0.01 * i, "llm_calls": 3.0, "prompt_tokens": 100.0,
            "completion_tokens": 50.0, "passes": 2.0, "forced_redactions": 0.0, "seconds_per_doc": 1.25,
        })
    return {
        "dataset": dataset, "version": "0", "created": "now", "n_docs": 2,
        "similarity_models": [{"name": "all-MiniLM-L6-v2", "available": True},
                              {"name": "paraphrase-distilroberta-base-v2", "available": False, "reason": "not installed"}],
        "perplexity_model": {"name": "gemma3-270m", "file": "models/gemma"},
        "index": {"n_docs": 4},
        "settings": {"k": 2, "queries": "q.jsonl", "collection": "c.jsonl", "llm_config": "configs/rewrite_cpu.cfg"},
        "systems": rows, "per_doc": {},
    }


def test_tables_have_every_row_and_the_papers_numbers_beside_ours():
    t = build_tables(make_results(), load_reference())
    for name in ("linkage", "quality", "cost"):
        assert [r[0]["ours"] for r in t[name]] == [s.label for s in SYSTEMS], name
    i = SYSTEMS.index(next(s for s in SYSTEMS if s.key == "llm_a1"))
    link = dict(zip(t["linkage_header"], t["linkage"][i]))
    assert link["linkable prop. arity 1"] == {"ours": "0.300", "paper": "0.001"}
    assert link["linkable prop. arity <= 3"] == {"ours": "0.150", "paper": "0.432"}
    header = t["quality_header"]
    row = dict(zip(header, t["quality"][i]))
    assert row["similarity paraphrase-distilroberta-base-v2"] == {"ours": "unavailable", "paper": "0.987"}
    assert row["similarity gte-modernbert-base"]["paper"] == "0.978"
    assert row["seconds / doc"] == {"ours": "1.2", "paper": "15.5"}
    assert row["model"]["ours"] == "model-llm_a1"
    wordnet = dict(zip(t["linkage_header"], t["linkage"][2]))
    assert wordnet["linkable prop. arity 1"]["paper"] is None  # the paper has no such row


def test_missing_rows_are_shown_as_not_run():
    res = make_results()
    res["systems"] = res["systems"][:2]
    t = build_tables(res, load_reference())
    # Rows of the paper's table are shown as not run; an optional comparison
    # row (the arity <= 3 loop under the any verdict) only when it ran.
    assert len(t["quality"]) == len([s for s in SYSTEMS if not s.optional]) == len(SYSTEMS) - 4
    assert "any verdict" not in " ".join(r[0]["ours"] for r in t["quality"])
    assert "smoke" not in " ".join(r[0]["ours"] for r in t["quality"])
    assert t["quality"][3][1]["ours"] == "not run"
    assert t["linkage"][3][2]["ours"] == "\u2013"


def test_markdown_report(tmp_path):
    pages = render_report(make_results(), load_reference(), figures={"figure2": "figure2.png", "figure3": None},
                          doc_links={"LLM rewrite, spans of arity 1": [{"id": "d1", "href": "docs/llm_a1/d1.html", "n_spans": "0"}]})
    md = pages["md"]
    labels = table_labels(md)
    for s in SYSTEMS:
        assert labels.count(s.label) == 3  # linkage, quality and cost tables
    assert "0.300 (paper 0.001)" in md
    assert "DP-MLM" in md and "masked" in md
    assert "![Figure 2" in md and "(figure2.png)" in md
    assert "[d1](docs/llm_a1/d1.html)" in md
    assert "| llm_config | `configs/rewrite_cpu.cfg` |" in md
    # every Markdown table row has as many cells as its header
    for block in re.findall(r"(?:^\|.*\n)+", md, flags=re.M):
        widths = {line.count("|") - line.count("\\|") for line in block.strip().splitlines()}
        assert len(widths) == 1, block


@pytest.mark.browser
def test_html_report_in_headless_chromium(tmp_path):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    res = make_results()
    pages = render_report(res, load_reference(), figures={"figure2": None, "figure3": None},
                          doc_links={"LLM rewrite, spans of arity 1": [{"id": "d<1>", "href": "docs/a.html", "n_spans": "2"}]})
    page = tmp_path / "report.html"
    page.write_text(pages["html"], encoding="utf-8")
    dom = dump_dom(chromium, page, tmp_path)
    for name in ("linkage", "quality", "cost"):
        table = dom.split(f'id="{name}"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        assert len(rows) == 1 + len(SYSTEMS), name
        for s in SYSTEMS:
            assert s.label.replace("<", "&lt;") in table
    linkage = dom.split('id="linkage"', 1)[1].split("</table>", 1)[0]
    assert "paper 0.432" in linkage
    assert "doc. linkage rate, source (k=2, arity &lt;= 3)" in linkage and "placeholders added / doc" in linkage
    quality = dom.split('id="quality"', 1)[1].split("</table>", 1)[0]
    assert "<th>perplexity vs input</th>" in quality and "1.05x" in quality  # 21.0 / 20.0
    assert 'id="cost"' in dom and 'id="settings"' in dom and 'id="dpmlm"' in dom
    assert "d&lt;1&gt;" in dom  # ids are escaped, not injected


def dump_dom(chromium, page, tmp_path):
    out = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'chrome-profile'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_tables_follow_the_evaluations_max_arity():
    from spacy_linkguard.experiments.systems import systems_for

    res = make_results()
    res["settings"]["max_arity"] = 2
    for row, system in zip(res["systems"], systems_for(2)):
        row.update(key=system.key, label=system.label, paper_key=system.paper_key)
        row["linkable_prop_a2"], row["linkage_rate_a2"] = row.pop("linkable_prop_a3"), row.pop("linkage_rate_a3")
        row["linkage_rate_a2_source"] = row.pop("linkage_rate_a3_source")
    t = build_tables(res, load_reference())
    header = t["linkage_header"]
    assert "linkable prop. arity <= 2" in header
    assert "doc. linkage rate, source (k=2, arity <= 2)" in header and "doc. linkage rate, any (k=2, arity <= 2)" in header
    assert not any("3" in h for h in header + t["quality_header"] + t["cost_header"])
    assert "linkable prop. arity <= 2 before forced redaction" in header
    assert [r[0]["ours"] for r in t["linkage"]] == [s.label for s in systems_for(2)]
    for cells in t["linkage"]:
        row = dict(zip(header, cells))
        assert row["linkable prop. arity <= 2"]["ours"] != "\u2013"
        assert row["doc. linkage rate, any (k=2, arity <= 2)"]["ours"] == "1.000"
        assert row["doc. linkage rate, source (k=2, arity <= 2)"]["ours"] == "0.750"
    llm = dict(zip(header, t["linkage"][4]))
    assert llm["linkable prop. arity <= 2"]["paper"] is None  # the paper has no arity-2 row


def test_linkage_table_shows_both_verdicts_and_every_redaction():
    res = make_results()
    res["n_without_sources"] = 1
    rows = {r["key"]: r for r in res["systems"]}
    rows["llm_a3"].update(linkage_rate_a1=0.0, linkage_rate_a3=0.125, linkage_rate_a1_source=0.0,
                          linkage_rate_a3_source=0.0, linkable_prop_a1_before=0.028, linkable_prop_a3_before=0.293,
                          unsafe_before_guarantee=0.78, forced_redactions=7.25, placeholders_added=9.5,
                          verdict="mixed", verdict_counts={"source": 3, "any": 1})
    rows["input"]["perplexity"] = 8.4
    rows["llm_a3"]["perplexity"] = 12.6  # 1.50x the input's
    t = build_tables(res, load_reference())
    i = [s.key for s in SYSTEMS].index("llm_a3")
    link = {h: c["ours"] for h, c in zip(t["linkage_header"], t["linkage"][i])}
    assert link == {
        "approach": "LLM rewrite, spans of arity <= 3", "verdict": "mixed (3 source, 1 any)",
        "linkable prop. arity 1": "0.400", "linkable prop. arity <= 3": "0.200",
        "doc. linkage rate, source (k=2, arity 1)": "0.000", "doc. linkage rate, source (k=2, arity <= 3)": "0.000",
        "doc. linkage rate, any (k=2, arity 1)": "0.000", "doc. linkage rate, any (k=2, arity <= 3)": "0.125",
        "linkable prop. arity 1 before forced redaction": "0.028",
        "linkable prop. arity <= 3 before forced redaction": "0.293",
        "share of documents guarantee mode redacted": "0.780",
        "forced redactions / doc": "7.2", "placeholders added / doc": "9.5",
    }
    quality = {h: c for h, c in zip(t["quality_header"], t["quality"][i])}
    assert quality["perplexity"] == {"ours": "12.6", "paper": "15.0"}
    assert quality["perplexity vs input"] == {"ours": "1.50x", "paper": None}
    inp = {h: c["ours"] for h, c in zip(t["linkage_header"], t["linkage"][0])}
    assert inp["verdict"] == "\u2013" and inp["placeholders added / doc"] == "0.0"
    assert {h: c["ours"] for h, c in zip(t["linkage_header"], t["linkage"][3])}["verdict"] == "source"

    md = render_report(res, load_reference(), figures={"figure2": None, "figure3": None}, doc_links={})["md"]
    line = next(ln for ln in md.splitlines() if ln.startswith("| LLM rewrite, spans of arity <= 3 | mixed"))
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    assert cells == ["LLM rewrite, spans of arity <= 3", "mixed (3 source, 1 any)", "0.400 (paper 0.002)",
                     "0.200 (paper 0.002)", "0.000", "0.000", "0.000", "0.125", "0.028", "0.293", "0.780", "7.2", "9.5"]
    header = next(ln for ln in md.splitlines() if ln.startswith("| approach | verdict"))
    assert "doc. linkage rate, source (k=2, arity <= 3) | doc. linkage rate, any (k=2, arity 1)" in header
    assert "| forced redactions / doc | placeholders added / doc |" in header
    assert "| perplexity | perplexity vs input |" in md
    assert "| 12.6 (paper 15.0) | 1.50x |" in md
    assert "1 of 2 queries have none known; they count under any in the source columns" in md
    assert "occurrences of\n  `[REDACTED]` in the output minus those in d'" in md


def test_results_written_before_the_verdicts_still_render():
    res = make_results()
    for row in res["systems"]:
        for key in ("linkage_rate_a1_source", "linkage_rate_a3_source", "verdict", "verdict_counts",
                    "n_without_sources", "placeholder", "placeholders_added"):
            row.pop(key)
    t = build_tables(res, load_reference())
    i = [s.key for s in SYSTEMS].index("llm_a1")
    link = {h: c["ours"] for h, c in zip(t["linkage_header"], t["linkage"][i])}
    assert link["doc. linkage rate, any (k=2, arity <= 3)"] == "1.000"
    assert link["doc. linkage rate, source (k=2, arity <= 3)"] == "\u2013"
    assert link["placeholders added / doc"] == "\u2013"
    assert link["verdict"] == "any"  # a rewrite-loop row (forced redactions) from before the verdicts
    assert t["n_without_sources"] is None
    md = render_report(res, load_reference(), figures={"figure2": None, "figure3": None}, doc_links={})["md"]
    assert "not evaluated (results written before the verdicts: any only)" in md
