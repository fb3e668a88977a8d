"""The evaluation report: the paper's table layout, our numbers beside the paper's.

Three tables: linkage (both verdicts, every redaction), meaning kept
(similarity, perplexity also relative to the input's) and edit volume and cost.

`build_tables` turns a results dict (written by `evaluate`) into rows of
formatted cells (pure, tested); the Jinja templates in `templates/` lay
them out as Markdown and HTML; `write_report` writes the whole report folder
(the `report` command).
"""
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..errors import Errors, LinkguardError
from .metrics import ratio_to
from .systems import PAPER_ARITY, systems_for

_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")

REFERENCE_PATH = Path(__file__).parent / "data" / "paper_reference.json"
TEMPLATES = Path(__file__).parent / "templates"
PAPER_SIM_MODELS = ["paraphrase-distilroberta-base-v2", "gte-modernbert-base"]
DPMLM_NOTE = (
    "The paper's DP-MLM baseline (differentially private rewriting with a masked "
    "language model) is not reported: it needs a masked LM fine-tuned for it, and "
    "no such model can be obtained on this machine (no model hub; no package ships "
    "one). We do not substitute another model for it."
)


def load_reference(path: Path = REFERENCE_PATH) -> Dict[str, Any]:
    """The paper's numbers (SPEC.md "Reference results") as a dict."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_results(path: Path) -> Dict[str, Any]:
    """Read a results JSON. RAISES: LinkguardError E256 when missing or invalid."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise LinkguardError(Errors.E256.format(path=path, detail=e)) from None


def fmt(value: Optional[float], digits: int = 3) -> str:
    """A number with `digits` decimals; an en dash for a missing value."""
    if value is None:
        return "\u2013"
    return f"{value:.{digits}f}"


def sim_models(results: Dict[str, Any]) -> List[str]:
    """Similarity columns: our configured models first, then the paper's."""
    ours = [m["name"] for m in results.get("similarity_models", [])]
    return ours + [m for m in PAPER_SIM_MODELS if m not in ours]


VERDICTS = ("source", "any")


def build_tables(results: Dict[str, Any], reference: Dict[str, Any]) -> Dict[str, Any]:
    """Rows of formatted cells for the linkage, quality and cost tables.

    results (dict): As written by `evaluate` (keys "dataset", "systems", ...);
        results written before the verdicts (no `linkage_rate_a<m>_source`,
        `verdict`, `placeholders_added`) show an en dash there.
    reference (dict): `load_reference()`.
    RETURNS (dict): {"linkage_header": [...], "linkage": [[cell, ...], ...],
        "quality_header", "quality", "cost_header", "cost", "sim_models",
        "max_arity", "k", "n_without_sources", "n_docs", "placeholder"}; each cell is a dict
        {"ours": str, "paper": str or None}. Linkage: the row's verdict, the
        linkable proportions (the paper's metric), the document linkage rate
        under source and under any (arity 1 and <= m), the linkable
        proportions before forced redaction, the share of documents guarantee
        mode redacted, forced redactions and placeholders added per document.
        Quality: model, similarities, perplexity and perplexity relative to
        the input d' ("1.49x"), paragraph similarity (mean, p10, share below
        0.8), facts kept and new facts per paragraph, ungrounded words per
        changed paragraph and the share of changed paragraphs with 3 or more,
        seconds per document.
    """
    dataset = results.get("dataset", "")
    paper_rows = reference.get("datasets", {}).get(dataset, {})
    models = sim_models(results)
    avail = {m["name"]: m.get("available", False) for m in results.get("similarity_models", [])}
    by_label = {r["label"]: r for r in results.get("systems", [])}
    k = results.get("settings", {}).get("k", 2)
    arities = sorted({1, report_arity(results)})
    input_ppl = next((r.get("perplexity") for r in results.get("systems", []) if r.get("key") == "input"), None)
    linkage_header = (
        ["approach", "verdict"]
        + [f"linkable prop. {arity_words(m)}" for m in arities]
        + [f"doc. linkage rate, {v} (k={k}, {arity_words(m)})" for v in VERDICTS for m in arities]
        + [f"linkable prop. {arity_words(m)} before forced redaction" for m in arities]
        + ["share of documents guarantee mode redacted", "forced redactions / doc", "placeholders added / doc"]
    )
    attackers = ranking_attackers(results)
    linkage_header += ranking_header(attackers)
    quality_header = (
        ["approach", "model"]
        + [f"similarity {m}" for m in models]
        + ["perplexity", "perplexity vs input"]
        + PARAGRAPH_HEADER
        + ["seconds / doc"]
    )
    cost_header = ["approach", "edit volume", "passes", "LLM calls / doc", "prompt tokens / doc",
                   "completion tokens / doc", "seconds / doc", "seconds / pass"]
    linkage: List[List[Dict[str, Any]]] = []
    quality: List[List[Dict[str, Any]]] = []
    cost: List[List[Dict[str, Any]]] = []
    for system in systems_for(arities[-1]):
        row = by_label.get(system.label)
        paper = paper_rows.get(system.paper_key or system.label, {})
        if row is None and system.optional:
            continue
        if row is None:
            row = {"label": system.label, "model": "not run", "similarity": {}}
        label = {"ours": row["label"] + (" (re-scored)" if row.get("provenance") else ""), "paper": None}
        linkage.append([
            label,
            {"ours": verdict_words(row), "paper": None},
            *[_cell(row.get(f"linkable_prop_a{m}"), paper.get(f"linkable_prop_a{m}")) for m in arities],
            *[_cell(row.get(f"linkage_rate_a{m}{'' if v == 'any' else '_' + v}"), None) for v in VERDICTS for m in arities],
            *[_cell(row.get(f"linkable_prop_a{m}_before"), None) for m in arities],
            _cell(row.get("unsafe_before_guarantee"), None),
            _cell(row.get("forced_redactions"), None, 1),
            _cell(row.get("placeholders_added"), None, 1),
        ])
        linkage[-1] += ranking_cells(row, attackers)
        sims = row.get("similarity") or {}
        cells = [dict(label), {"ours": row.get("model") or "", "paper": reference.get("llm") if paper else None}]
        for m in models:
            ours = sims.get(m)
            cell = _cell(ours, (paper.get("similarity") or {}).get(m))
            if ours is None and not avail.get(m, False):
                cell["ours"] = "unavailable"
            cells.append(cell)
        cells.append(_cell(row.get("perplexity"), paper.get("perplexity"), 1))
        rel = row.get("perplexity_vs_input", ratio_to(row.get("perplexity"), input_ppl))
        cells.append({"ours": times(rel), "paper": None})
        cells.extend(paragraph_cells(row))
        cells.append(_cell(row.get("seconds_per_doc"), paper.get("seconds_per_doc"), 1))
        quality.append(cells)
        cost.append([
            dict(label),
            _cell(row.get("edit_volume"), None),
            _cell(row.get("passes"), None, 1),
            _cell(row.get("llm_calls"), None, 1),
            _cell(row.get("prompt_tokens"), None, 0),
            _cell(row.get("completion_tokens"), None, 0),
            _cell(row.get("seconds_per_doc"), paper.get("seconds_per_doc"), 1),
            _cell(row.get("seconds_per_pass"), None, 2),
        ])
    return {"linkage_header": linkage_header, "linkage": linkage, "quality_header": quality_header,
            "quality": quality, "cost_header": cost_header, "cost": cost, "sim_models": models,
            "origins": row_origins(results),
            "max_arity": arities[-1], "k": k, "n_without_sources": n_without_sources(results),
            "n_docs": results.get("n_docs"),
            "placeholder": next((r["placeholder"] for r in results.get("systems", []) if r.get("placeholder")), None)}


RANK_KS = (1, 10)
ATTACKER_WORDS = {"bm25": "BM25", "embedding": "embedding"}


def ranking_attackers(results: Dict[str, Any]) -> List[str]:
    """The ranking attackers the results were scored with, BM25 first ([] for results without ranks)."""
    names = set(results.get("ranking_attackers") or [])
    for row in results.get("systems", []):
        names.update((row.get("ranking") or {}).keys())
    return sorted(names, key=lambda n: (n != "bm25", n))


def ranking_header(attackers: Sequence[str]) -> List[str]:
    return [f"source top-{k}, {ATTACKER_WORDS.get(a, a)}" for a in attackers for k in RANK_KS]


def ranking_cells(row: Dict[str, Any], attackers: Sequence[str]) -> List[Dict[str, Any]]:
    """Per attacker and k, the share of documents whose source is ranked in the top k, with its 95% Wilson interval."""
    cells = []
    for a in attackers:
        for k in RANK_KS:
            r = ((row.get("ranking") or {}).get(a) or {}).get(f"top{k}") or {}
            if r.get("rate") is None:
                cells.append({"ours": fmt(None), "paper": None})
            else:
                cells.append({"ours": f"{fmt(r['rate'])} [{fmt(r['low'])}, {fmt(r['high'])}]", "paper": None})
    return cells


PARAGRAPH_HEADER = ["paragraph sim. mean", "paragraph sim. p10", "paragraph sim. < 0.8",
                    "facts kept", "new facts / paragraph",
                    "ungrounded words / changed paragraph", "changed paragraphs with three or more ungrounded"]


def paragraph_cells(row: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A row's paragraph similarity (mean, 10th percentile, share below 0.8),
    facts kept / new facts per paragraph and ungrounded words per changed
    paragraph (mean, share with 3 or more), in `PARAGRAPH_HEADER` order; an
    en dash where missing (results written before these metrics, no
    sentence-transformers model for the similarities, no changed paragraph)."""
    return [_cell(row.get("para_sim_mean"), None), _cell(row.get("para_sim_p10"), None),
            _cell(row.get("para_sim_below_0_8"), None), _cell(row.get("facts_kept"), None),
            _cell(row.get("new_facts_per_para"), None, 2), _cell(row.get("ungrounded_per_changed_para"), None, 2),
            _cell(row.get("share_changed_paras_ungrounded_ge3"), None)]


PROVENANCE_FIELDS = ("model", "machine", "commit", "date", "command", "note")


def row_origins(results: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Where each row's outputs come from, for the report: [{"label", "origin",
    "details": [(field, value), ...]}] in table order. origin: "this run";
    "re-scored" (outputs committed by an earlier run, e.g. on a GPU, scored
    again by this run's `evaluate`; details from their PROVENANCE.json); or
    "smoke test" (a live run over a few documents, scored over those only)."""
    out = []
    for row in results.get("systems", []):
        prov = row.get("provenance")
        if prov:
            details = [("file", prov.get("file"))] + [(f, prov[f]) for f in PROVENANCE_FIELDS if prov.get(f)]
            if row.get("n_docs") != results.get("n_docs"):
                details.append(("documents", f"{row.get('n_docs')} of {results.get('n_docs')} (the others were not rewritten by that run)"))
            out.append({"label": row["label"] + " (re-scored)", "origin": "re-scored", "details": details})
        elif row.get("smoke"):
            out.append({"label": row["label"], "origin": "smoke test",
                        "details": [("documents", row.get("n_docs")), ("model", row.get("model")), ("file", row.get("file"))]})
        else:
            out.append({"label": row["label"], "origin": "this run", "details": []})
    return out


def verdict_words(row: Dict[str, Any]) -> str:
    """A row's verdict for the table: "source", "any", "mixed (3 source, 1 any)",
    or an en dash (the input, rows without detection, results written before
    rows stated it)."""
    verdict = row.get("verdict")
    if "verdict" not in row and row.get("forced_redactions") is not None:
        return "any"  # a rewrite-loop row of results written before rows stated it: detected under any
    if not verdict:
        return "\u2013"
    counts = row.get("verdict_counts") or {}
    if verdict == "mixed" and counts:
        return "mixed (" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) + ")"
    return str(verdict)


def n_without_sources(results: Dict[str, Any]) -> Optional[int]:
    """Queries without known sources (counted under any in the source rates);
    None for results written before the verdicts."""
    n = results.get("n_without_sources")
    if n is None:
        n = next((r.get("n_without_sources") for r in results.get("systems", []) if "n_without_sources" in r), None)
    return n


def times(value: Optional[float]) -> str:
    """A ratio as "1.49x"; an en dash when missing."""
    return "\u2013" if value is None else f"{value:.2f}x"


def report_arity(results: Dict[str, Any]) -> int:
    """The evaluation's max_arity m (its settings; 3 for results written before it was recorded)."""
    m = results.get("settings", {}).get("max_arity")
    return int(m) if isinstance(m, int) else PAPER_ARITY


def arity_words(m: int) -> str:
    return "arity 1" if m == 1 else f"arity <= {m}"


def _cell(ours: Optional[float], paper: Optional[float], digits: int = 3) -> Dict[str, Any]:
    return {"ours": fmt(ours, digits), "paper": fmt(paper, digits) if paper is not None else None}


def md_safe(value: Any) -> Any:
    """A value for Markdown: every '<' that could open an HTML tag or comment becomes '&lt;'."""
    if isinstance(value, str):
        return _TAG_START.sub("&lt;", value)
    return value


def _env(html_page: bool = True):
    from jinja2 import FileSystemLoader, select_autoescape
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(enabled_extensions=("html.jinja",), default_for_string=False),
        # Markdown viewers render raw HTML: no value may open a tag there.
        finalize=None if html_page else md_safe,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def md_cell(cell: Dict[str, Any]) -> str:
    """A Markdown cell: ours, then the paper's value in parentheses."""
    text = str(cell["ours"]).replace("|", "\\|")
    if cell.get("paper") is not None:
        text += f" (paper {cell['paper']})"
    return text


def md_text(text: str) -> str:
    """Text for Markdown: HTML-escaped (Markdown viewers render raw HTML) and link brackets escaped."""
    return md_safe(str(text)).replace("[", "\\[").replace("]", "\\]")


def render_report(results: Dict[str, Any], reference: Dict[str, Any], *, figures: Dict[str, Optional[str]],
                  doc_links: Dict[str, List[Dict[str, str]]], semantic: Optional[Dict[str, Any]] = None) -> Dict[str, str]:
    """Render the report as {"md": ..., "html": ...}.

    figures: {"figure2": relative PNG path or None, "figure3": ...}.
    doc_links: system label -> [{"id", "href"}] of displaCy pages.
    semantic: the semantic-linkage result (for a table under Figure 3).
    """
    tables = build_tables(results, reference)
    ctx = {
        "results": results,
        "reference": reference,
        "tables": tables,
        "figures": figures,
        "doc_links": doc_links,
        "semantic": semantic,
        "dpmlm_note": DPMLM_NOTE,
        "md_cell": md_cell,
        "md_text": md_text,
        "fmt": fmt,
        "settings": results.get("settings", {}),
        "input_ppl": next((r.get("perplexity") for r in results.get("systems", []) if r.get("key") == "input"), None),
    }
    return {
        "md": _env(html_page=False).get_template("report.md.jinja").render(**ctx),
        "html": _env().get_template("report.html.jinja").render(**ctx),
    }


def write_report(results_path: Path, out_dir: Path, *, figure2: Optional[Path] = None,
                 figure3: Optional[Path] = None, semantic: Optional[Path] = None,
                 max_doc_pages: int = 5) -> Dict[str, Path]:
    """Write OUT_DIR/report.md and OUT_DIR/report.html from the results of
    `evaluate`, with the figures copied beside them (a missing figure is left
    out), the `semantic-linkage` results and `max_doc_pages` displaCy pages
    per approach.

    RETURNS (dict): {"md": path, "html": path}.
    RAISES: LinkguardError E256 (missing or invalid results JSON).
    """
    import os
    import shutil

    res = load_results(results_path)
    sem = load_results(semantic) if semantic else None
    out_dir.mkdir(parents=True, exist_ok=True)
    figures: Dict[str, Optional[str]] = {}
    for name, path in (("figure2", figure2), ("figure3", figure3)):
        if path is None or not path.is_file():
            figures[name] = None
            continue
        target = out_dir / f"{name}.png"
        if path.resolve() != target.resolve():
            shutil.copyfile(path, target)
        figures[name] = os.path.relpath(target, out_dir)
    links = write_displacy_pages(res, out_dir, max_docs=max_doc_pages)
    pages = render_report(res, load_reference(), figures=figures, doc_links=links, semantic=sem)
    written = {}
    for kind in ("md", "html"):
        written[kind] = out_dir / f"report.{kind}"
        written[kind].write_text(pages[kind], encoding="utf-8")
    return written


def write_displacy_pages(results: Dict[str, Any], out_dir: Path, *, max_docs: int = 5,
                         arity_key: Optional[str] = None) -> Dict[str, List[Dict[str, str]]]:
    """One displaCy page per approach and document: the output text with the
    spans that still link it (none on a safe document) highlighted.

    RETURNS (dict): system label -> [{"id", "href", "n_spans"}], hrefs relative to out_dir's parent.
    """
    from spacy import displacy

    from .systems import read_output_objects

    arity_key = arity_key or f"remaining_spans_a{report_arity(results)}"
    links: Dict[str, List[Dict[str, str]]] = {}
    per_doc = results.get("per_doc", {})
    for row in results.get("systems", []):
        key = row["key"]
        docs = per_doc.get(key, {})
        spans_by_doc = docs.get(arity_key)
        # evaluate keeps the spans of a row's first documents only (--span-docs): pages for those
        ids = docs.get("ids", [])[:max_docs if spans_by_doc is None else min(max_docs, len(spans_by_doc))]
        spans_by_doc = spans_by_doc or [[] for _ in ids]
        path = Path(row["file"])
        texts = read_output_objects(path) if path.is_file() else {}
        entries = []
        for i, doc_id in enumerate(ids):
            obj = texts.get(doc_id)
            if obj is None:
                continue
            text = obj["text"]
            # displaCy escapes the text but not the title or labels: we do.
            spans = [{"start": s, "end": e, "label": escape(str(lab))} for s, e, lab in spans_by_doc[i]]
            page = displacy.render(
                {"text": text, "ents": spans, "title": escape(f"{row['label']} \u2013 {doc_id}")},
                style="ent", manual=True, page=True, minify=True,
                options={"colors": {"NGRAM": "#f4a582", "COMBO": "#92c5de"}},
            )
            rel = Path("docs") / page_name(str(key)) / f"{page_name(doc_id)}.html"
            (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (out_dir / rel).write_text(page, encoding="utf-8")
            entries.append({"id": doc_id, "href": rel.as_posix(), "n_spans": str(len(spans))})
        links[row["label"]] = entries
    return links


def escape(text: str) -> str:
    """HTML-escape text for element content and quoted attributes (quotes included)."""
    return html.escape(text, quote=True)


def page_name(name: str) -> str:
    """A file name for `name`: its safe characters (at most 60) and a hash of the
    whole name, so different names never share a file ('a/b' vs 'a.b')."""
    slug = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in name)[:60]
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{slug}-{digest}"


def table_labels(markdown: str) -> List[str]:
    """First-column labels of every Markdown table row (used by tests and checks)."""
    labels = []
    for line in markdown.splitlines():
        if line.startswith("|") and not line.startswith("|---") and not line.startswith("| approach"):
            labels.append(line.split("|")[1].strip())
    return labels


def required_labels(max_arity: int = PAPER_ARITY) -> Sequence[str]:
    return [s.label for s in systems_for(max_arity) if not s.optional]
