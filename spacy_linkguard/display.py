"""displaCy rendering of the spans flagged by the `linkguard` component.

`spacy_linkguard.render(doc)` draws `doc.spans["linkguard"]` with displaCy's
span style; `render_report(docs)` makes the static HTML page of the `show`
command (each document's spans, then the evidence for every span). The label
colors are also registered for displaCy through the `spacy_displacy_colors`
entry point, so `displacy.render(doc, style="span", ...)` uses them too.
"""
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

DISPLACY_COLORS: Dict[str, str] = {
    "NGRAM": "#f4a3a3",  # a rare phrase on its own: the strongest signal
    "COMBO": "#f7d27a",  # a phrase that links together with others
}
DEFAULT_SPANS_KEY = "linkguard"
TEMPLATE = Path(__file__).parent / "display.html.jinja"


def render(
    doc: Any,
    *,
    spans_key: str = DEFAULT_SPANS_KEY,
    page: bool = False,
    jupyter: Optional[bool] = None,
    options: Optional[Dict[str, Any]] = None,
) -> str:
    """Render a Doc's flagged spans with displaCy (style "span").

    doc (Doc): A Doc processed by the `linkguard` component.
    spans_key (str): The component's `spans_key`.
    page (bool): Return a full HTML page instead of a fragment.
    jupyter (bool): Display in a notebook (None: detect).
    options (dict): More displaCy options (override ours).
    RETURNS (str): The HTML markup.
    """
    from spacy import displacy

    opts = {"spans_key": spans_key, "colors": dict(DISPLACY_COLORS)}
    opts.update(options or {})
    return displacy.render(doc, style="span", options=opts, page=page, jupyter=jupyter)


def span_evidence(doc: Any, spans_key: str = DEFAULT_SPANS_KEY) -> List[Dict[str, Any]]:
    """The evidence of every flagged span of `doc`, as plain dicts (for reports)."""
    out = []
    for span in doc.spans.get(spans_key, []):
        out.append(
            {
                "text": span.text,
                "label": span.label_,
                "start_char": span.start_char,
                "end_char": span.end_char,
                "df": span._.linkguard_df,
                "linked_ids": span._.linkguard_linked_ids or [],
                "n_broken": span._.linkguard_n_broken or 0,
                "examples": span._.linkguard_examples or [],
            }
        )
    return out


def render_report(
    docs: Iterable[Any], *, spans_key: str = DEFAULT_SPANS_KEY, title: str = "spacy-linkguard: flagged spans"
) -> str:
    """A static HTML page: for each Doc its id, verdict, drawn spans and evidence.

    docs (Iterable[Doc]): Docs processed by `linkguard`; `doc.user_data["id"]`
        names a document (else its position).
    RETURNS (str): A complete HTML page (no scripts, no external resources).
    """
    return render_items([report_item(doc, i, spans_key=spans_key) for i, doc in enumerate(docs)], title=title)


def report_item(doc: Any, position: int = 0, *, spans_key: str = DEFAULT_SPANS_KEY) -> Dict[str, Any]:
    """What the page shows of one Doc (plain data: `show --workers N` makes
    these in worker processes and sends them back)."""
    return {
        "id": doc.user_data.get("id", str(position)),
        "safe": doc._.linkguard_safe,
        "report": doc._.linkguard_report or {},
        "markup": _markup(doc, spans_key),
        "spans": span_evidence(doc, spans_key),
    }


def render_items(items: Iterable[Dict[str, Any]], *, title: str = "spacy-linkguard: flagged spans") -> str:
    """The HTML page of `report_item`s, in order."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = env.from_string(TEMPLATE.read_text(encoding="utf-8"))
    return template.render(title=title, docs=list(items), colors=DISPLACY_COLORS)


def _markup(doc: Any, spans_key: str) -> str:
    # displaCy warns (W117) on a Doc without spans; a safe document is just its text.
    if len(doc.spans.get(spans_key, [])):
        return render(doc, spans_key=spans_key, jupyter=False)
    from markupsafe import escape

    return f'<div class="spans" style="line-height: 2.5">{escape(doc.text)}</div>'
