"""A character-by-character reference of SPEC.md's normalization, written
independently of `spacy_linkguard.ngrams.normalize` (no fast paths, no
offset pieces): one list entry per normalized character with its original range.
"""
import unicodedata
from typing import List, Tuple

QUOTES_1 = "\u2018\u2019\u201a\u201b\u2032`"
QUOTES_2 = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def lookalike(c: str) -> str:
    if c in QUOTES_1:
        return "'"
    if c in QUOTES_2:
        return '"'
    if c in DASHES:
        return "-"
    return c


def dropped(c: str) -> bool:
    return not c.isspace() and unicodedata.category(c) in ("Cf", "Cc", "Cs")


def mark(c: str) -> bool:
    return unicodedata.category(c).startswith("M")


def reference_normalize(text: str) -> List[Tuple[str, int, int]]:
    """(normalized character, original start, original end) in order. A blank
    line is one "\\n" here (the implementation keeps its length)."""
    kept = [(i, c) for i, c in enumerate(text) if not dropped(c)]
    units: List[Tuple[str, int, int]] = []  # characters before whitespace collapsing
    k = 0
    while k < len(kept):
        i, c = kept[k]
        if c.isspace():
            units.append((c, i, i + 1))
            k += 1
            continue
        cluster = c
        end = i + 1
        k += 1
        while k < len(kept) and mark(kept[k][1]):
            cluster += kept[k][1]
            end = kept[k][0] + 1
            k += 1
        folded = "".join(lookalike(x) for x in cluster)
        folded = "".join(lookalike(x) for x in unicodedata.normalize("NFKC", folded))
        for x in folded:
            if not dropped(x):
                units.append((x, i, end))
    out: List[Tuple[str, int, int]] = []
    k = 0
    while k < len(units):
        c, s, e = units[k]
        if not c.isspace():
            out.append(units[k])
            k += 1
            continue
        run = ""
        start, stop = s, e
        while k < len(units) and units[k][0].isspace():
            run += units[k][0]
            stop = max(stop, units[k][2])
            k += 1
        n_breaks = sum(1 for x in run if x in BREAKS) - run.count("\r\n")
        out.append(("\n" if n_breaks >= 2 else " ", start, stop))
    return out
