"""Spacing and encoding tricks do not change the verdict (issue 15, item 1).

A verbatim collection document, re-spaced or re-encoded the ways a search
engine ignores, must give the plain text's spans: same keys, offsets that cut
the flagged phrase out of the hostile text itself, and the oracle's answer.
"""
import unicodedata

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.ngrams import normalize_text, text_segments

from .checks import check_against_oracle
from .echr import echr_slice
from .memindex import MemoryIndex

CHARS = 1500


def fullwidth(text):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def soft_hyphens(text):
    return " ".join(w[:3] + "\u00ad" + w[3:] if len(w) > 5 else w for w in text.split(" "))


VARIANTS = {
    "zero-width after every space": lambda t: t.replace(" ", " \u200b"),
    "fullwidth": fullwidth,
    "no-break spaces": lambda t: t.replace(" ", "\u00a0"),
    "double spaces": lambda t: t.replace(" ", "  "),
    "tabs": lambda t: t.replace(" ", "\t"),
    "line breaks": lambda t: t.replace(" ", "\r\n"),
    "decomposed accents": lambda t: unicodedata.normalize("NFD", t),
    "soft hyphens": soft_hyphens,
    "word joiners and BOMs": lambda t: t.replace("e", "e\u2060").replace(".", "\ufeff."),
    "NUL and a lone surrogate": lambda t: t.replace(" ", " \x00", 20).replace(" the ", " the\udc80 "),
}


@pytest.fixture(scope="module")
def echr():
    collection, _ = echr_slice()
    index = MemoryIndex(collection)
    # a collection document verbatim: linkable all over
    plain = collection[0][1][:CHARS]
    plain = plain[: plain.rfind(" ")]
    return index, plain


def signature(res):
    return [(s.label, s.key, s.df) for s in res.spans], res.safe


def check_offsets(det, text, res):
    """Every span cuts its own phrase out of the hostile text."""
    for s in res.spans:
        phrase = text[s.start_char : s.end_char]
        assert " ".join(k for seg in text_segments(phrase, det.settings) for k in seg.keys) == s.key
        # no dropped character hangs at either edge of a span
        assert normalize_text(phrase[0]).text and normalize_text(phrase[-1]).text, repr(phrase)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_gives_the_plain_texts_spans(echr, name):
    index, plain = echr
    text = VARIANTS[name](plain)
    assert text != plain
    det = Detector(index, k=2, max_arity=2)
    want = det.detect(plain)
    assert not want.safe and len(want.spans) > 20
    got = det.detect(text)
    assert signature(got) == signature(want)
    check_offsets(det, text, got)


@pytest.mark.parametrize("name", ["zero-width after every space", "fullwidth", "no-break spaces",
                                  "decomposed accents", "NUL and a lone surrogate"])
def test_variant_matches_the_oracle(echr, name):
    index, plain = echr
    text = VARIANTS[name](plain)
    for arity in (1, 2):
        check_against_oracle(Detector(index, k=2, max_arity=arity), text, index.doc_keys)


def test_redacted_variant_is_judged_like_its_normalized_copy(echr):
    # The second trick: redact what the detector saw, and a
    # whitespace-normalized copy must not find more.
    index, plain = echr
    det = Detector(index, k=2, max_arity=1)
    text = VARIANTS["no-break spaces"](plain).replace(".", ".  ")
    res = det.detect(text)
    redacted = text
    for s in sorted(res.spans, key=lambda s: -s.start_char):
        redacted = redacted[: s.start_char] + "[REDACTED]" + redacted[s.end_char :]
    copy = " ".join(redacted.split())
    again, copied = det.detect(redacted), det.detect(copy)
    assert signature(again) == signature(copied)
    assert again.safe
