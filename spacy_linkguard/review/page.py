"""The review page: a static HTML page (no scripts, no external resources)
of `items.review_item`s, rendered from `review.html.jinja`."""
from pathlib import Path
from typing import Any, Dict, Iterable

TEMPLATE = Path(__file__).with_name("review.html.jinja")


def render_review(items: Iterable[Dict[str, Any]], *, title: str = "spacy-linkguard: review before release",
                  all_paragraphs: bool = False) -> str:
    """The HTML page of `items`, in order.

    all_paragraphs: show the unchanged paragraphs too (default: only their count).
    RETURNS (str): a complete HTML page; every text is escaped.
    """
    import jinja2

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = env.from_string(TEMPLATE.read_text(encoding="utf-8"))
    docs = list(items)
    totals = {
        "docs": len(docs),
        "changed": sum(d["n_changed"] for d in docs),
        "attention": sum(d["n_attention"] for d in docs),
        "check": sum(d.get("n_check", 0) for d in docs),
        "ungrounded": sum(d.get("n_ungrounded", 0) for d in docs),
        "unsafe": sum(d["safe"] is False for d in docs),
        "unchecked": sum(d["safe"] is None for d in docs),
    }
    return template.render(title=title, docs=docs, totals=totals, all_paragraphs=all_paragraphs)
