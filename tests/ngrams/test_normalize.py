"""Normalization (SPEC.md, "Tokens, segments, normalization") and its offsets.

`reference.py` is an independent character-by-character version of the
definition; generated hostile texts must give its normalized text, its
original offsets per character, and spaCy's tokens of it at those offsets.
"""
import random
import re

import pytest

from spacy_linkguard.ngrams import NgramSettings, normalize_text, query_key, text_segments
from spacy_linkguard.ngrams.segments import spacy_tokens, tokens_to_segments

from .reference import reference_normalize

S = NgramSettings()

# Words, odd characters and odd spacing, each as a search engine folds it.
ATOMS = [
    "the", "Court", "applicant", "M\u00fcller", "Mu\u0308ller", "e\u0301te\u0301", "Mr.", "[REDACTED]", "no.",
    "36110/97", ",", ".", "(", ")", "\u200b", "\u00ad", "\u00a0", "\t", " ", "  ", "\n", "\n\n", "\r\n",
    "\r\n\r\n", "\r", "\u2028", "\u2029", "\uff21\uff42\uff43", "\ufb01ne", "\u00a8", "\u00bd", "\u2026",
    "\u201cq\u201d", "it\u2019s", "non\u2011pecuniary", "\x00", "\udc80", "\u0301", "u\u200b\u0308", "`",
    "\u3000", "\u2033", "\ufeff", "\x7f", "\x1c", "\x85", "\u2060", "x\u0327\u0301", "\ufe58", "\u216b",
    "\u00df", "\u0130", "\u200d", "\u2009", "\u202f", "[REDACTED]\u2019s",
]
GLUE = ["", " ", " ", " ", "\u200b", "\u00a0", "  ", "\n"]


def hostile_texts(n, seed, atoms=40):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(ATOMS) + rng.choice(GLUE) for _ in range(rng.randint(0, atoms)))


def reference_segments(text):
    ref = reference_normalize(text)
    norm = "".join(c for c, _, _ in ref)
    tokens = [(ref[s][1], ref[e - 1][2], k) if k is not None else (s, e, None)
              for s, e, k in spacy_tokens(norm, S.placeholder)]
    return tokens_to_segments(tokens)


def check_against_reference(text):
    got = normalize_text(text)
    ref = reference_normalize(text)
    # The implementation keeps a blank line's length; the reference writes one "\n".
    assert re.sub("\n+", "\n", got.text) == "".join(c for c, _, _ in ref), repr(text)
    mine = [got.original_span(i, i + 1) for i, c in enumerate(got.text) if not c.isspace()]
    theirs = [(s, e) for c, s, e in ref if not c.isspace()]
    assert mine == theirs, repr(text)
    assert text_segments(text, S) == reference_segments(text), repr(text)


@pytest.mark.parametrize("seed,atoms", [(0, 12), (1, 40), (2, 150)])  # 150: long texts (numpy seeds)
def test_hostile_texts_match_the_reference(seed, atoms):
    for text in hostile_texts(250 if atoms < 100 else 60, seed, atoms):
        check_against_reference(text)


@pytest.mark.parametrize("text", [
    "", " ", "\n", "\n\n", "a", "\u0301", "\u0301a", "a\u0301", "\u200b", "\u200b\u0301", " \u0301 ",
    "a\u00a8b", "\u00a8\u00a8", "\r\n", "\r\u200b\n\n", "\r\r", "a\r\nb", "a\r\n\r\nb", "x" * 300 + "\u00a0 y",
    "x " * 200 + "\u200b", "\t" * 300, "A\u200b\u200b \u200b\u200bB",
])
def test_edge_cases_match_the_reference(text):
    check_against_reference(text)


def test_plain_text_keeps_its_offsets():
    for text in ("The Court held.", "line one\nline two\n\nnext paragraph\n", "it`s"):
        assert normalize_text(text).offsets is None
    assert normalize_text("a\nb\n\nc\n").text == "a b\n\nc "
    assert normalize_text("it`s").text == "it's"
    # one-for-one folds keep offsets too
    out = normalize_text("\u201cthe Court\u201d, non\u2011pecuniary \uff21 \u00a7 6")
    assert out.offsets is None
    assert out.text == '"the Court", non-pecuniary A \u00a7 6'


def test_whitespace_runs():
    assert normalize_text("a  \t\u00a0\u3000\u2009b").text == "a b"
    assert normalize_text("a \n b").text == "a b"
    assert normalize_text("a\r\nb").text == "a b"  # "\r\n" is one line break
    assert normalize_text("a\n \nb").text == "a\n\n\nb"  # a blank line keeps its length
    assert normalize_text("a\u2028\u2029b").text == "a\n\nb"
    assert normalize_text("a \u200b b").text == "a b"  # dropped characters join the run


def test_dropped_characters_and_marks():
    assert normalize_text("Smi\u00adth\u200b \ufeffv\u2060").text == "Smith v"
    assert normalize_text("Mu\u0308ller").text == "M\u00fcller"
    assert normalize_text("Mu\u200b\u0308ller").text == "M\u00fcller"  # a mark across a dropped character
    assert normalize_text("\uff2d\uff55\uff4c\uff4c\uff45\uff52").text == "Muller"
    assert normalize_text("\ufb01ne \u2026 \u00bd").text == "fine ... 1\u20442"
    assert normalize_text("a\x00b\udc80c\x7f").text == "abc"
    assert normalize_text("\u2033x\u2033 \ufe58").text == '"x" -'  # look-alikes before and after NFKC


def test_offsets_point_at_the_original_characters():
    text = "\u200bThe \ufb01ne  M\u00fc\u0301ller\u00ad's\u200b car"
    segs = text_segments(text, S)
    assert [s.keys for s in segs] == [("the", "fine", "m\u01d8ller", "'s", "car")]
    seg = segs[0]
    assert [text[a:b] for a, b in zip(seg.starts, seg.ends)] == [
        "The", "\ufb01ne", "M\u00fc\u0301ller", "'s", "car"]


def test_hostile_variants_give_the_same_keys():
    plain = "The applicant, Mr M\u00fcller, was born in 1960 and lives in R\u00e9union."
    variants = [
        plain.replace(" ", " \u200b"),
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in plain),  # fullwidth
        plain.replace(" ", "\u00a0"),
        plain.replace(" ", "  "),
        plain.replace(" ", "\t"),
        plain.replace(" ", "\n"),
        plain.replace("\u00fc", "u\u0308").replace("\u00e9", "e\u0301"),
        plain.replace("applicant", "appli\u00adcant").replace("M\u00fcller", "M\u00fcl\u00adler"),
    ]
    expected = [s.keys for s in text_segments(plain, S)]
    for text in variants:
        segs = text_segments(text, S)
        assert [s.keys for s in segs] == expected, repr(text)
        for seg in segs:
            for key, a, b in zip(seg.keys, seg.starts, seg.ends):
                assert normalize_text(text[a:b]).text.casefold() == key


def test_query_keys_fold_the_same_way():
    assert query_key("The\u00a0\u00a0Court\u200b", S) == query_key("the court", S)
    assert query_key("\uff34\uff48\uff45 court", S) == "the court"
