"""The report shows paragraph similarity and facts kept / new facts per row,
in the meaning-kept table beside perplexity vs input (Markdown and HTML)."""
from spacy_linkguard.experiments.report import PARAGRAPH_HEADER, build_tables, load_reference, render_report
from spacy_linkguard.experiments.systems import SYSTEMS

from .test_report import make_results


def _results():
    res = make_results()
    for i, row in enumerate(res["systems"]):
        row.update(para_sim_mean=0.9 - 0.01 * i, para_sim_p10=0.7 - 0.01 * i, para_sim_below_0_8=0.05 * i,
                   facts_kept=1.0 - 0.02 * i, new_facts_per_para=0.125 * i)
    res["paragraph_model"] = "all-MiniLM-L6-v2"
    return res


def test_quality_table_has_the_paragraph_columns_after_perplexity_vs_input():
    t = build_tables(_results(), load_reference())
    header = t["quality_header"]
    at = header.index("perplexity vs input")
    assert header[at + 1 : at + 1 + len(PARAGRAPH_HEADER)] == PARAGRAPH_HEADER
    i = [s.key for s in SYSTEMS].index("llm_a1")  # the fourth row: i == 3
    row = {h: c["ours"] for h, c in zip(header, t["quality"][i])}
    assert (row["paragraph sim. mean"], row["paragraph sim. p10"], row["paragraph sim. < 0.8"],
            row["facts kept"], row["new facts / paragraph"]) == (f"{0.9 - 0.03:.3f}", f"{0.7 - 0.03:.3f}",
                                                                 f"{0.15:.3f}", f"{0.94:.3f}", f"{0.375:.2f}")


def test_results_without_the_paragraph_metrics_show_dashes():
    t = build_tables(make_results(), load_reference())  # written before these metrics
    for cells in t["quality"]:
        row = {h: c["ours"] for h, c in zip(t["quality_header"], cells)}
        assert all(row[h] == "\u2013" for h in PARAGRAPH_HEADER)


def test_markdown_and_html_show_the_columns_and_name_the_model():
    pages = render_report(_results(), load_reference(), figures={"figure2": None, "figure3": None}, doc_links={})
    md = pages["md"]
    assert "| perplexity vs input | paragraph sim. mean | paragraph sim. p10 | paragraph sim. < 0.8 | facts kept | new facts / paragraph |" in md
    label = next(s.label for s in SYSTEMS if s.key == "llm_a1")
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {label} | model-llm_a1"))
    assert "| 0.870 | 0.670 | 0.150 | 0.940 | 0.38 |" in line
    assert "(all-MiniLM-L6-v2)" in md and "**facts kept**" in md
    quality = pages["html"].split('id="quality"', 1)[1].split("</table>", 1)[0]
    assert "<th>paragraph sim. &lt; 0.8</th>" in quality and "<th>new facts / paragraph</th>" in quality
    assert '<span class="ours">0.940</span>' in quality


def test_the_ungrounded_words_columns_follow_the_facts():
    res = _results()
    for i, row in enumerate(res["systems"]):
        row.update(ungrounded_per_changed_para=0.5 * i, share_changed_paras_ungrounded_ge3=0.1 * i, n_changed_paras=10)
    t = build_tables(res, load_reference())
    header = t["quality_header"]
    at = header.index("new facts / paragraph")
    assert header[at + 1 : at + 3] == ["ungrounded words / changed paragraph",
                                       "changed paragraphs with three or more ungrounded"]
    i = [s.key for s in SYSTEMS].index("llm_a1")
    row = {h: c["ours"] for h, c in zip(header, t["quality"][i])}
    assert (row["ungrounded words / changed paragraph"],
            row["changed paragraphs with three or more ungrounded"]) == ("1.50", "0.300")
    pages = render_report(res, load_reference(), figures={"figure2": None, "figure3": None}, doc_links={})
    assert ("| facts kept | new facts / paragraph | ungrounded words / changed paragraph "
            "| changed paragraphs with three or more ungrounded |") in pages["md"]
    assert "**ungrounded words / changed paragraph**" in pages["md"]
    quality = pages["html"].split('id="quality"', 1)[1].split("</table>", 1)[0]
    assert "<th>changed paragraphs with three or more ungrounded</th>" in quality
    assert '<span class="ours">1.50</span>' in quality
