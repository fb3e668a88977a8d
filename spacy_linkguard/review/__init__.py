"""Reviewing a rewrite before release: each changed paragraph beside its
input, the words that changed and the ungrounded ones marked, and what a
reader must check first (facts, ungrounded words, sentences or paragraphs
dropped or added; then placeholders alone: `items.py`).

    from spacy_linkguard.review import review_item, render_review
    page = render_review([review_item(input_text, output_record)])

`diff.py` the word diff, `items.py` what the page shows of one document,
`page.py` the HTML page. The command: `python -m spacy_linkguard review`.
"""
from .diff import Segment, word_diff
from .items import ParagraphReview, review_item
from .page import render_review

__all__ = ["Segment", "word_diff", "ParagraphReview", "review_item", "render_review"]
