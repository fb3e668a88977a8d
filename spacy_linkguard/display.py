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
`doc.spans` and in the evidence table (detection is unchanged). Spans of one
label that overlap or touch ("at the flat", "the flat on") are drawn as one
mark with one label, its spans named in its tooltip: a label before each of
them would cut the phrase apart ("COMBO at COMBO the flat on"). Marks of
different labels that overlap are drawn on separate lines, as displaCy does.
The page is drawn in one sweep over the sorted span boundaries, so a long
document with tens of thousands of spans renders in about a second.

`render_report(docs)` makes the static HTML page of the `show` command (each
document's spans, then the evidence for every span). The label colors are
also registered for displaCy through the `spacy_displacy_colors` entry point,
so `displacy.render(doc, style="span", ...)` still works (with its spacing).
"""
import heapq
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

DISPLACY_COLORS: Dict[str, str] = {
    "NGRAM": "#f4a3a3",  # a rare phrase on its own: the strongest signal
    "COMBO": "#f7d27a",  # a phrase that links together with others
}
DEFAULT_SPANS_KEY = "linkguard"
TEMPLATE = Path(__file__).parent / "display.html.jinja"
# A mark's tooltip names at most this many of its spans, each cut to this length.
TITLE_MEMBERS, TITLE_CHARS = 8, 40
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


@dataclass
class Mark:
    """One bar on the page: a flagged span, or several of one label that
    overlap or touch (their labels would otherwise cut one phrase apart)."""

    start_char: int
    end_char: int
    label_: str
    members: List[Any] = field(default_factory=list)  # the spans, in text order
    slot: int = 1  # its line under the text (1: nearest)


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


def drawn_marks(doc: Any, spans_key: str = DEFAULT_SPANS_KEY) -> List[Mark]:
    """The marks drawn on the page, in text order, each with its line (`slot`,
    1: nearest the text): the spans of `doc.spans[spans_key]` but a COMBO
    inside an NGRAM span, those of one label that overlap or touch (only
    spaces between) merged into one mark. O(n log n) in the spans."""
    text = doc.text
    spans = sorted(doc.spans.get(spans_key, []), key=lambda s: (s.start_char, -s.end_char, s.label_))
    ngrams = [s for s in spans if s.label_ == "NGRAM"]
    starts = [s.start_char for s in ngrams]
    reach = list(accumulate((s.end_char for s in ngrams), max))  # the furthest end of the NGRAMs so far

    def inside_ngram(span: Any) -> bool:
        i = bisect_right(starts, span.start_char) - 1
        return i >= 0 and reach[i] >= span.end_char

    marks: List[Mark] = []
    last: Dict[str, Mark] = {}  # the latest mark of each label (a label's marks never overlap)
    for span in spans:
        if span.label_ == "COMBO" and inside_ngram(span):
            continue
        mark = last.get(span.label_)
        if mark is not None and (span.start_char <= mark.end_char or _joins(text[mark.end_char:span.start_char])):
            mark.end_char = max(mark.end_char, span.end_char)
            mark.members.append(span)
            continue
        mark = Mark(span.start_char, span.end_char, span.label_, [span])
        last[span.label_] = mark
        marks.append(mark)
    # Lines: each mark takes the lowest line that no mark still open at its start holds.
    open_marks: List[Tuple[int, int]] = []  # (end_char, slot)
    free: List[int] = []
    n_slots = 0
    for mark in marks:
        while open_marks and open_marks[0][0] <= mark.start_char:
            heapq.heappush(free, heapq.heappop(open_marks)[1])
        if free:
            mark.slot = heapq.heappop(free)
        else:
            n_slots += 1
            mark.slot = n_slots
        heapq.heappush(open_marks, (mark.end_char, mark.slot))
    return marks


def _joins(gap: str) -> bool:
    """Whether two marks of one label with `gap` between them are drawn as one:
    only spaces between them, no line break."""
    return not gap.strip() and "\n" not in gap


def markup_as_written(doc: Any, *, spans_key: str = DEFAULT_SPANS_KEY,
                      colors: Optional[Dict[str, str]] = None) -> str:
    """`doc.text`, HTML-escaped, with a bar under each drawn mark (`drawn_marks`);
    the text between tags is exactly `doc.text` (needs `STYLE` on the page).
    One sweep over the marks' boundaries: time O(n log n) and size O(n) in the spans."""
    from markupsafe import escape

    colors = colors or DISPLACY_COLORS
    text = doc.text
    marks = drawn_marks(doc, spans_key)
    cuts = sorted({0, len(text)} | {c for m in marks for c in (m.start_char, m.end_char)})
    titles = {id(m): _title(m) for m in marks}
    parts = []
    active: List[Mark] = []
    i = 0  # the next mark to open (marks are in start order)
    for a, b in zip(cuts, cuts[1:]):
        active = [m for m in active if m.end_char > a]
        while i < len(marks) and marks[i].start_char == a:
            active.append(marks[i])
            i += 1
        if not active or not text[a:b].strip():
            parts.append(str(escape(text[a:b])))
            continue
        bars = []
        for mark in active:
            color = escape(colors.get(mark.label_, "#ddd"))
            top = TOP_OFFSET + OFFSET_STEP * (mark.slot - 1)
            start = f' lg-start" data-label="{escape(mark.label_)}' if mark.start_char == a else ""
            bars.append(f'<span class="lg-bar{start}" style="background: {color}; top: {top}px"></span>')
        height = TOP_OFFSET + LABEL_OFFSET + OFFSET_STEP * (max(m.slot for m in active) - 1)
        starting = [m for m in active if m.start_char == a]
        labels = ""
        height_style = f"height: {height}px"
        if starting:
            bg = escape(colors.get(starting[0].label_, "#ddd"))
            labels = f' data-labels="{escape(" ".join(dict.fromkeys(m.label_ for m in starting)))}"'
            height_style += f"; --lg-label-bg: {bg}"
        title = escape(" | ".join(titles[id(m)] for m in active))
        parts.append(f'<span class="lg-span"{labels} title="{title}" style="{height_style}">'
                     f'{escape(text[a:b])}{"".join(bars)}</span>')
    return f'<div class="lg-spans">{"".join(parts)}</div>'


def _title(mark: Mark) -> str:
    """The tooltip of a mark: its label and its spans (at most TITLE_MEMBERS
    of them, each cut to TITLE_CHARS characters, so the page stays linear)."""
    names = []
    for span in mark.members[:TITLE_MEMBERS]:
        t = " ".join(span.text.split())
        names.append(f"“{t[:TITLE_CHARS]}…”" if len(t) > TITLE_CHARS else f"“{t}”")
    more = len(mark.members) - TITLE_MEMBERS
    tail = f" and {more} more" if more > 0 else ""
    n = len(mark.members)
    return f"{mark.label_}, {n} span{'s' if n > 1 else ''}: {', '.join(names)}{tail}"


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
