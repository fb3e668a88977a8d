"""Text normalization before tokenization (SPEC.md, "Tokens, segments, normalization").

A search engine ignores how a text spaces or encodes its words, so the keys of
a text must not depend on it either. `normalize_text` folds, character by
character (a character together with the combining marks that follow it):

- format, control and surrogate characters (categories Cf, Cc other than
  whitespace, Cs: zero-width spaces, soft hyphens, NUL, lone surrogates) are
  dropped, so they neither split a word nor separate a base from its accents;
- every other character (with its marks) becomes its look-alike-folded NFKC
  form (fullwidth letters, ligatures, decomposed accents, curly quotes, dashes);
- a whitespace run holding at most one line break becomes one plain space; a
  run holding two or more ("\\r\\n" counts once) is a segment boundary and
  becomes as many "\\n" as it has characters.

The result comes with an `OffsetMap` back to the original text (None when
every character stayed in place), so tokens found in the normalized text are
reported at their original offsets.

Ordinary text pays little: one vectorized pass finds where work is needed
(characters other than printable ASCII and "\\n", whitespace pairs holding a
space); one-for-one folds there (curly quotes, dashes, accented letters) keep
offsets in place, and only the rest is walked character by character.
"""
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np

NORMALIZATION_VERSION = "nfkc-lookalike-whitespace-v2"

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032`"  # ‘ ’ ‚ ‛ ′ `
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"  # “ ” „ ‟ ″ « »
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # ‐ ‑ ‒ – — ― −

LOOKALIKES: Dict[str, str] = {
    **{c: "'" for c in _SINGLE_QUOTES},
    **{c: '"' for c in _DOUBLE_QUOTES},
    **{c: "-" for c in _DASHES},
}
_TABLE = str.maketrans(LOOKALIKES)
# The line breaks of `str.splitlines`; "\r\n" is one line break.
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

# A lone "\n" (not in a blank line) is one space.
_BLANK_LINES = re.compile(r"(\n\n+)")
# Where per-character work starts, in a short text: a character other than
# printable ASCII and "\n", or a whitespace pair holding a space.
_SEED = re.compile(r"[^\x20-\x7e\n]| [ \n]|\n ")
_SHORT = 256  # below this many characters, `_SEED` is faster than numpy
_SIMPLE: Dict[str, Optional[str]] = {}  # odd span -> its one-for-one fold, or None

_DROP, _SPACE, _MARK, _CHAR = range(4)


@lru_cache(maxsize=1 << 16)
def _kind(c: str) -> int:
    if c.isspace():  # before the category: "\x1c".."\x1f" and "\x85" are Cc
        return _SPACE
    cat = unicodedata.category(c)
    if cat in ("Cf", "Cc", "Cs"):
        return _DROP
    return _MARK if cat[0] == "M" else _CHAR


@lru_cache(maxsize=1 << 16)
def fold_cluster(cluster: str) -> str:
    """The normalized form of one character with its combining marks (no
    dropped characters inside): look-alikes folded, then NFKC, then look-alikes
    again (NFKC can give one, e.g. U+FE58 small em dash -> U+2014)."""
    out = unicodedata.normalize("NFKC", cluster.translate(_TABLE)).translate(_TABLE)
    if not out.isascii():
        out = "".join(c for c in out if _kind(c) != _DROP)
    return out


class OffsetMap:
    """Normalized offsets -> original offsets, as pieces of the normalized text.

    Piece p covers normalized characters `nstarts[p]` up to the next piece and
    comes from original characters `ostarts[p]:oends[p]`. An aligned piece has
    the same length in both (character i of it is character i there); any other
    piece (an expanded or merged character, a collapsed whitespace run) maps
    every character to the whole original range.
    """

    __slots__ = ("nstarts", "ostarts", "oends", "aligned")

    def __init__(self, nstarts: List[int], ostarts: List[int], oends: List[int], aligned: List[bool]) -> None:
        self.nstarts, self.ostarts, self.oends, self.aligned = nstarts, ostarts, oends, aligned

    def start(self, i: int) -> int:
        """Original offset where normalized character `i` begins."""
        p = bisect_right(self.nstarts, i) - 1
        return self.ostarts[p] + (i - self.nstarts[p]) if self.aligned[p] else self.ostarts[p]

    def end(self, j: int) -> int:
        """Original offset where normalized character `j - 1` ends (`j` > 0)."""
        p = bisect_right(self.nstarts, j - 1) - 1
        return self.ostarts[p] + (j - self.nstarts[p]) if self.aligned[p] else self.oends[p]

    def map_tokens(
        self, tokens: Iterable[Tuple[int, int, Optional[str]]]
    ) -> List[Tuple[int, int, Optional[str]]]:
        """Original (start, end, key) of tokens given in normalized offsets, in
        text order; boundary tokens (key None) are passed through unmapped."""
        nstarts, ostarts, oends, aligned = self.nstarts, self.ostarts, self.oends, self.aligned
        last = len(nstarts) - 1
        out = []
        p = q = 0  # pieces of the current token's first and last character
        for s, e, key in tokens:
            if key is None:
                out.append((s, e, None))
                continue
            while p < last and nstarts[p + 1] <= s:
                p += 1
            if q < p:
                q = p
            while q < last and nstarts[q + 1] < e:
                q += 1
            os_ = ostarts[p] + (s - nstarts[p]) if aligned[p] else ostarts[p]
            oe = ostarts[q] + (e - nstarts[q]) if aligned[q] else oends[q]
            out.append((os_, oe, key))
        return out


@dataclass(frozen=True)
class Normalized:
    """A normalized text and the map of its offsets to the original (None: unchanged offsets)."""

    text: str
    offsets: Optional[OffsetMap]

    def original_span(self, start: int, end: int) -> Tuple[int, int]:
        """Original (start, end) of the normalized characters `start:end` (end > start)."""
        if self.offsets is None:
            return start, end
        return self.offsets.start(start), self.offsets.end(end)


def normalize_text(text: str) -> Normalized:
    """Normalize `text` as the module docstring says.

    text (str): Any text (lone surrogates and NUL included).
    RETURNS (Normalized): The normalized text; its whitespace is single " "
        between words and runs of "\\n" at segment boundaries only.
    """
    spans = _odd_spans(text)
    if not spans:  # printable ASCII, single spaces, line breaks, blank lines
        return Normalized(_plain(text), None)
    b = _Builder(text)
    simple = _SIMPLE
    start = 0  # of the text not yet written
    parts: List[str] = []  # text[start:pos], simple spans folded
    pos = 0
    for lo, hi in spans:
        span = text[lo:hi]
        folded = simple.get(span, "")
        if folded == "":
            folded = _simple_fold(span)
            if hi - lo <= 8:
                if len(simple) >= 1 << 16:
                    simple.clear()
                simple[span] = folded
        if folded is not None:  # one character for one: stays in the aligned stretch
            parts.append(text[pos:lo])
            parts.append(folded)
            pos = hi
            continue
        if lo > start:
            parts.append(text[pos:lo])
            b.plain(start, lo, "".join(parts))
        b.odd(lo, hi)
        parts = []
        start = pos = hi
    if start < len(text):
        parts.append(text[pos:])
        b.plain(start, len(text), "".join(parts))
    return b.finish()


def _plain(text: str) -> str:
    """Normalize text of printable ASCII with single spaces, "\\n" and blank lines."""
    if "\n" in text and "\n" in text.replace("\n\n", ""):  # the cheap test misses no lone "\n"
        parts = _BLANK_LINES.split(text)  # odd items: the blank lines
        parts[::2] = [p.replace("\n", " ") for p in parts[::2]]
        text = "".join(parts)
    return text.replace("`", "'") if "`" in text else text


def _simple_fold(span: str) -> Optional[str]:
    """The fold of an odd span that maps one for one (no whitespace, dropped
    characters or marks; every character folds to one), else None."""
    out = []
    for c in span:
        if _kind(c) != _CHAR:
            return None
        f = fold_cluster(c)
        if len(f) != 1 or _kind(f) != _CHAR:
            return None
        out.append(f)
    return "".join(out)


def _seeds(text: str) -> List[int]:
    """Positions where per-character work starts (see `_SEED`), ascending."""
    if len(text) < _SHORT:
        return [m.start() for m in _SEED.finditer(text)]
    c = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    seed = ((c - 0x20) > 0x5E) & (c != 10)  # wraps below 0x20: not printable ASCII
    le = c <= 32
    sp = c == 32
    seed[:-1] |= le[:-1] & le[1:] & (sp[:-1] | sp[1:])
    return np.flatnonzero(seed).tolist()


def _odd_spans(text: str) -> List[Tuple[int, int]]:
    """Disjoint (start, end) ranges that need per-character work, ascending.

    Each holds whole whitespace runs, and a combining mark's base. Between
    them the text is printable ASCII with single spaces, "\\n" and blank lines.
    """
    spans: List[Tuple[int, int]] = []
    n = len(text)
    for p in _seeds(text):
        if spans and p < spans[-1][1]:
            continue
        lo, hi = p, p + 1
        if lo > 0 and _kind(text[lo]) in (_MARK, _DROP):
            lo -= 1  # the base of its marks
        if text[lo].isspace():
            while lo > 0 and text[lo - 1].isspace():
                lo -= 1
        while hi < n and _kind(text[hi]) in (_MARK, _DROP):
            hi += 1
        if text[hi - 1].isspace():
            while hi < n and text[hi].isspace():
                hi += 1
        if spans and lo <= spans[-1][1]:
            lo = spans.pop()[0]
        spans.append((lo, hi))
    return spans


class _Builder:
    """Assembles the normalized text and its `OffsetMap` left to right."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts: List[str] = []
        self.n = 0  # normalized characters so far
        self.nstarts: List[int] = []
        self.ostarts: List[int] = []
        self.oends: List[int] = []
        self.aligned: List[bool] = []
        self.ws_start = -1  # the whitespace run not yet written (-1: none)
        self.ws_end = 0
        self.ws_breaks = 0
        self.ws_cr = False  # the run's last character was "\r"

    def piece(self, o0: int, o1: int, out: str, aligned: bool) -> None:
        if self.ws_start >= 0:
            self.flush()
        if aligned and self.aligned and self.aligned[-1] and self.oends[-1] == o0:
            self.oends[-1] = o1  # continues the previous aligned piece
        else:
            self.nstarts.append(self.n)
            self.ostarts.append(o0)
            self.oends.append(o1)
            self.aligned.append(aligned)
        self.parts.append(out)
        self.n += len(out)

    def space(self, o0: int, o1: int, chars: str) -> None:
        breaks = sum(1 for c in chars if c in LINE_BREAKS)
        if breaks:
            breaks -= chars.count("\r\n")
            if self.ws_cr and chars[0] == "\n" and self.ws_start >= 0:
                breaks -= 1
        if self.ws_start < 0:
            self.ws_start, self.ws_end, self.ws_breaks = o0, o1, 0
            self.ws_cr = False
        else:
            self.ws_end = max(self.ws_end, o1)
        self.ws_breaks += breaks
        self.ws_cr = chars[-1] == "\r"

    def flush(self) -> None:
        o0, o1 = self.ws_start, self.ws_end
        self.ws_start, self.ws_cr = -1, False
        if self.ws_breaks >= 2:  # a boundary; keeping its length keeps offsets aligned
            self.piece(o0, o1, "\n" * (o1 - o0), True)
        else:
            self.piece(o0, o1, " ", o1 - o0 == 1)

    def plain(self, a: int, z: int, text: str) -> None:
        """Original characters a:z, given as `text` of the same length: printable
        ASCII or one-for-one folds, single " " or "\\n", blank lines."""
        body = text.lstrip(" \n")
        lead = len(text) - len(body)
        if lead:
            self.space(a, a + lead, text[:lead])
        body = body.rstrip(" \n")
        if body:
            self.piece(a + lead, a + lead + len(body), _plain(body), True)
            trail = len(text) - lead - len(body)
            if trail:
                self.space(z - trail, z, text[len(text) - trail :])

    def odd(self, a: int, z: int) -> None:
        """Any characters, one cluster (character and its marks) at a time."""
        text = self.text
        if text[a].isspace() and text[a:z].isspace():
            self.space(a, z, text[a:z])
            return
        n = len(text)
        i = a
        while i < z:
            c = text[i]
            kind = _kind(c)
            if kind == _DROP:
                i += 1
                continue
            if kind == _SPACE:
                self.space(i, i + 1, c)
                i += 1
                continue
            j = end = i + 1
            dropped = False
            while j < n:  # marks, across dropped characters
                k = _kind(text[j])
                if k == _MARK:
                    j += 1
                    end = j
                elif k == _DROP:
                    j += 1
                    dropped = True
                else:
                    break
            cluster = text[i:end]
            if dropped:
                cluster = "".join(ch for ch in cluster if _kind(ch) != _DROP)
            self.emit(i, end, fold_cluster(cluster))
            i = end

    def emit(self, o0: int, o1: int, out: str) -> None:
        if not out:
            return
        if not any(c.isspace() for c in out):
            self.piece(o0, o1, out, len(out) == 1 and o1 - o0 == 1)
            return
        # NFKC gave whitespace (e.g. U+00A8 diaeresis -> " " + U+0308)
        for m in re.finditer(r"\s+|\S+", out):
            part = m.group()
            if part[0].isspace():
                self.space(o0, o1, part)
            else:
                self.piece(o0, o1, part, False)

    def finish(self) -> Normalized:
        if self.ws_start >= 0:
            self.flush()
        out = "".join(self.parts)
        # one aligned piece from 0 of the full length: every character stayed in place
        in_place = not self.nstarts or (len(self.nstarts) == 1 and self.aligned[0] and self.ostarts[0] == 0)
        if in_place and self.n == len(self.text):
            return Normalized(out, None)
        return Normalized(out, OffsetMap(self.nstarts, self.ostarts, self.oends, self.aligned))


def normalize_lookalikes(text: str) -> str:
    """Return `text` with look-alike quotes and dashes replaced by ASCII (one
    character by one; part of `normalize_text`).

    text (str): Any text.
    RETURNS (str): A string of the same length; offsets are unchanged.
    """
    return text.translate(_TABLE)


def token_key(token_text: str) -> str:
    """The index key of one token: its (already normalized) text case-folded."""
    return token_text.casefold()
