"""Rendering of the spans flagged by the `linkguard` component, as written.

`spacy_linkguard.render(doc)` draws `doc.spans["linkguard"]` in the style of
displaCy's span visualizer (a colored bar under each span, its label at the
start), but over `doc.text` itself: displaCy's renderer writes every token
followed by a space ("regional office .", "[ REDACTED ]", "Hay - on - Wye"),
so the page would not show the document as written. Here the text is cut at
the spans' character offsets only, and labels are CSS-generated content
(inline before a span's text, so adjacent spans' labels never overlap), so
the page's text (and what a reader copies from it) is exactly `doc.text`.

Overlaps: a COMBO span inside an NGRAM span ("November" in "November 2011")
is not drawn: rewriting the NGRAM span rewrites it too. It stays in
`doc.spans` and in the evidence table (detection is unchanged); other
overlapping spans are drawn on separate lines, as displaCy does.

`render_report(docs)` makes the static HTML page of the `show` command (each
document's spans, then the evidence for every span). The label colors are
also registered for displaCy through the `spacy_displacy_colors` entry point,
so `displacy.render(doc, style="span", ...)` still works (with its spacing).
"""
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

DISPLACY_COLORS: Dict[str, str] = {
    "NGRAM": "#f4a3a3",  # a rare phrase on its own: the strongest signal
    "COMBO": "#f7d27a",  # a phrase that links together with others
}
DEFAULT_SPANS_KEY = "linkguard"
TEMPLATE = Path(__file__).parent / "display.html.jinja"
# displaCy's span geometry (spacy/displacy/render.py SpanRenderer), in px.
TOP_OFFSET, LABEL_OFFSET, OFFSET_STEP = 40, 20, 17
# The labels are generated content, not text: the markup's text is the document's.
STYLE = (
    "<style>.lg-spans{line-height:2.5;white-space:pre-wrap}"
    ".lg-span{font-weight:bold;display:inline-block;position:relative}"
    ".lg-bar{position:absolute;height:4px;left:-1px;width:calc(100% + 2px)}"
    ".lg-start{border-top-left-radius:3px;border-bottom-left-radius:3px}"
    # The labels of the spans starting here, inline before the text: they take
    # their own room, so the labels of adjacent spans never overlap.
    ".lg-span[data-labels]::before{content:attr(data-labels);font-size:0.6em;line-height:1;"
    "padding:1px 3px;margin-right:2px;border-radius:3px;color:#000;vertical-align:super;"
    "background:var(--lg-label-bg)}</style>"
)


def render(
    doc: Any,
    *,
    spans_key: str = DEFAULT_SPANS_KEY,
    page: bool = False,
    jupyter: Optional[bool] = None,
    options: Optional[Dict[str, Any]] = None,
) -> str:
    """Render a Doc's flagged spans over its text as written (module docstring).

    doc (Doc): A Doc processed by the `linkguard` component.
    spans_key (str): The component's `spans_key`.
    page (bool): Return a full HTML page instead of a fragment.
    jupyter (bool): Display in a notebook (None: when running in one).
    options (dict): {"colors": {label: color}} to override ours.
    RETURNS (str): The HTML markup.
    """
    colors = {**DISPLACY_COLORS, **((options or {}).get("colors") or {})}
    html = STYLE + markup_as_written(doc, spans_key=spans_key, colors=colors)
    if page:
        html = f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"></head><body>{html}</body></html>'
    if jupyter is None:
        from spacy.util import is_in_jupyter

        jupyter = is_in_jupyter()
    if jupyter:
        from IPython.display import HTML, display

        display(HTML(html))
    return html


def drawn_spans(doc: Any, spans_key: str = DEFAULT_SPANS_KEY) -> List[Tuple[Any, int]]:
    """The spans drawn on the page, each with its line (1: nearest the text):
    every span of `doc.spans[spans_key]` but a COMBO inside an NGRAM span."""
    spans = sorted(doc.spans.get(spans_key, []), key=lambda s: (s.start_char, -s.end_char, s.label_))
    ngrams = [s for s in spans if s.label_ == "NGRAM"]
    spans = [s for s in spans if not (s.label_ == "COMBO" and any(
        n.start_char <= s.start_char and s.end_char <= n.end_char for n in ngrams))]
    placed: List[Tuple[Any, int]] = []
    for span in spans:
        taken = {slot for other, slot in placed if other.end_char > span.start_char}
        placed.append((span, next(i for i in range(1, len(placed) + 2) if i not in taken)))
    return placed


def markup_as_written(doc: Any, *, spans_key: str = DEFAULT_SPANS_KEY,
                      colors: Optional[Dict[str, str]] = None) -> str:
    """`doc.text`, HTML-escaped, with a bar under each drawn span (`drawn_spans`);
    the text between tags is exactly `doc.text` (needs `STYLE` on the page)."""
    from markupsafe import escape

    colors = colors or DISPLACY_COLORS
    text = doc.text
    placed = drawn_spans(doc, spans_key)
    cuts = sorted({0, len(text)} | {c for s, _ in placed for c in (s.start_char, s.end_char)})
    parts = []
    for a, b in zip(cuts, cuts[1:]):
        covering = [(s, slot) for s, slot in placed if s.start_char <= a and b <= s.end_char]
        if not covering or not text[a:b].strip():
            parts.append(str(escape(text[a:b])))
            continue
        bars = []
        for span, slot in covering:
            color = escape(colors.get(span.label_, "#ddd"))
            top = TOP_OFFSET + OFFSET_STEP * (slot - 1)
            start = f' lg-start" data-label="{escape(span.label_)}' if span.start_char == a else ""
            bars.append(f'<span class="lg-bar{start}" style="background: {color}; top: {top}px"></span>')
        height = TOP_OFFSET + LABEL_OFFSET + OFFSET_STEP * (max(slot for _, slot in covering) - 1)
        starting = [span for span, _ in covering if span.start_char == a]
        labels = ""
        if starting:
            bg = escape(colors.get(starting[0].label_, "#ddd"))
            names = escape(" ".join(dict.fromkeys(span.label_ for span in starting)))
            labels = f' data-labels="{names}"'
            height_style = f"height: {height}px; --lg-label-bg: {bg}"
        else:
            height_style = f"height: {height}px"
        parts.append(f'<span class="lg-span"{labels} style="{height_style}">{escape(text[a:b])}{"".join(bars)}</span>')
    return f'<div class="lg-spans">{"".join(parts)}</div>'


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


def report_item(doc: Any, position: int = 0, *, spans_key: str = DEFAULT_SPANS_KEY,
                ranked: Optional[bool] = None) -> Dict[str, Any]:
    """What the page shows of one Doc (plain data: `show --workers N` makes
    these in worker processes and sends them back).

    ranked (Optional[bool]): whether the Doc's sources were ranked (the
        component's `rank`): its header then gives `doc._.linkguard_rank`, or
        says its sources are unknown. None: when `doc._.linkguard_rank` is set.
    """
    rank = getattr(doc._, "linkguard_rank", None)
    return {
        "id": doc.user_data.get("id", str(position)),
        "safe": doc._.linkguard_safe,
        "report": doc._.linkguard_report or {},
        "markup": _markup(doc, spans_key),
        "spans": span_evidence(doc, spans_key),
        "ranked": rank is not None if ranked is None else bool(ranked),
        "rank": dict(rank) if rank is not None else None,
    }


def render_items(items: Iterable[Dict[str, Any]], *, title: str = "spacy-linkguard: flagged spans") -> str:
    """The HTML page of `report_item`s, in order."""
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = env.from_string(TEMPLATE.read_text(encoding="utf-8"))
    docs = list(items)
    return template.render(title=title, docs=docs, colors=DISPLACY_COLORS, style=STYLE,
                           any_ranked=any(d.get("ranked") for d in docs))


def _markup(doc: Any, spans_key: str) -> str:
    return markup_as_written(doc, spans_key=spans_key)
