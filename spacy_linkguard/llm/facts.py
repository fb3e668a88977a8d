"""The facts of a text: numbers, ordinals, negations and legal references.

A rewrite may change the words of a sentence, never what it states. The facts
it must keep are collected here as a multiset of canonical strings, so that
the same fact written two ways counts once, the same way. Pure functions, no
model; case-insensitive.

Canonical forms (`kind:value`; the kind tells the guard what may happen to it):

- ``num:N`` -- a number, from digits or words: "2", "two" -> ``num:2``;
  "1,000", "one thousand", "thousand" -> ``num:1000``; "3.50" -> ``num:3.5``; "twenty-one" -> ``num:21``;
  "two hundred and fifty" -> ``num:250``; "5 million", "five million" ->
  ``num:5000000``; "a dozen", "dozen" -> ``num:12``. Digits with other
  separators keep their digits as written: "12345/01" (an application number),
  "12.05.2001" (a date) -> ``num:12345/01``, ``num:12.05.2001``. A year is a
  number ("1998" -> ``num:1998``). "one" is a number even where it is a
  pronoun ("one of the applicants"), except in "no one".
- ``qty:N UNIT`` -- a number with its unit of time or a percentage: "two
  weeks", "2 weeks", "a two-week" -> ``qty:2 week``; "five years'" ->
  ``qty:5 year``; "10 per cent", "10%", "ten percent" -> ``qty:10 percent``.
  The unit is part of the fact: "two weeks" and "two months" are different
  facts (a rewrite that keeps the number and changes its unit changes what
  the sentence states). Such a number is not counted again as ``num``.
- ``decade:D`` -- "1990s" -> ``decade:1990``.
- ``century:C`` -- "the 20th century", "twentieth century" -> ``century:20``.
- ``ord:N`` -- an ordinal: "third", "3rd" -> ``ord:3``; "twenty-first" ->
  ``ord:21``. Ordinals and numbers are different facts ("third" is not "3").
- ``neg`` -- a negation cue (see `NEGATIONS`): "not", "n't", "no", "never",
  "nor", "neither", "none", "nobody", "nothing", "nowhere", "cannot",
  "without", "no one", "no longer" (one cue), "hardly", "scarcely", "barely",
  "lack"/"lacks"/"lacked"/"lacking", "absence"/"absent",
  "fail"/"fails"/"failed"/"failing"/"failure". All are one canonical value:
  "did not" and "never" state the same polarity. "No." / "Nos." before a
  number or a placeholder ("Protocol No. 1", "application no. [REDACTED]")
  and "no" directly before digits ("Protocol No 11") abbreviate "number": no
  negation.
- ``neg:unanimous`` -- "unanimously", "unanimous", "unanimity": the absence
  of dissent, which "by a majority" negates; a separate value so that
  "unanimously" cannot trade for a "not".
- ``ref:...`` -- a legal reference, lower-cased, paragraphs written with "§":
  "Article 6 § 1", "Article 6 para. 1", "Art. 6-1", "Article 6 paragraph 1"
  -> ``ref:art 6 § 1``; "Article 5 § 1 (c)" -> ``ref:art 5 § 1 (c)``;
  "Articles 6 and 13" -> ``ref:art 6``, ``ref:art 13``; the old
  "art. 14+9" (Article 14 taken with Article 9) -> ``ref:art 14``, ``ref:art 9``; "Article 35 §§ 3 and
  4" -> ``ref:art 35 § 3``, ``ref:art 35 § 4``; "Rule 39" -> ``ref:rule 39``;
  "Protocol No. 1" -> ``ref:protocol 1`` (so "Article 1 of Protocol No. 1" is
  two facts: ``ref:art 1``, ``ref:protocol 1``); a lone "§ 3", "para. 3",
  "paragraph 3" -> ``ref:§ 3``. The numbers of a reference are not counted
  again as numbers.

Not facts: vague quantifiers ("several", "some", "a number of", "many",
"few", "hundreds", "dozens"), months and weekdays, names, and the polarity a
word carries in itself ("inadmissible", "unlawful", "dismissed"): a rewrite
of "partly inadmissible" as "inadmissible" keeps every fact of this module.
"""
import re
from collections import Counter
from decimal import Decimal, InvalidOperation
from typing import List, Optional, Tuple

NEGATIONS = frozenset({
    "not", "no", "never", "nor", "neither", "none", "nobody", "nothing", "nowhere", "noone", "cannot",
    "without", "hardly", "scarcely", "barely", "lack", "lacks", "lacked", "lacking", "absence", "absent",
    "fail", "fails", "failed", "failing", "failure",
})
UNANIMITY = frozenset({"unanimously", "unanimous", "unanimity"})

NEG = "neg"
UNANIMOUS = "neg:unanimous"

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ORD_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
_ORD_TENS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
             "seventieth": 70, "eightieth": 80, "ninetieth": 90}
_ORD_SCALES = {"hundredth": 100, "thousandth": 1000, "millionth": 10**6}

# Tokens: digit groups (with separators and an ordinal or plural suffix),
# words (with an inner apostrophe: "didn't", "applicant's"), "§"/"§§", or
# any other single character.
_TOKEN_RE = re.compile(r"\d+(?:[.,/]\d+)*(?:(?i:st|nd|rd|th|s))?\b|[^\W\d_]+(?:['’][^\W\d_]+)*|§+|\S", re.UNICODE)
_ORD_DIGITS_RE = re.compile(r"^(\d+)(st|nd|rd|th)$")
_DECADE_RE = re.compile(r"^(\d*0)s$")
_HYPHENS = {"-", "‐", "‑", "–"}
_PARA_WORDS = {"para", "paras", "paragraph", "paragraphs"}
_ART_HEADS = {"article": False, "art": False, "articles": True, "arts": True}
_RULE_HEADS = {"rule": False, "rules": True}
_PROTOCOL_HEADS = {"protocol": False, "protocols": True}
_PLACEHOLDER_START = "["
# units that make a number a quantity (``qty:N unit``), by their written forms
_QTY_UNITS = {
    **{w: u for u in ("second", "minute", "hour", "day", "week", "month", "year") for w in (u, u + "s")},
    "percent": "percent", "%": "percent",
}

# the first words of every fact that does not start with a digit, "§" or end in "n't"
_TRIGGERS = frozenset().union(
    NEGATIONS, UNANIMITY, _UNITS, _TENS, _SCALES, _ORD_UNITS, _ORD_TENS, _ORD_SCALES, _PARA_WORDS, _ART_HEADS,
    _RULE_HEADS, _PROTOCOL_HEADS, {"dozen", "no", "nos"})

Span = Tuple[int, int, str]


def facts_of(text: str) -> "Counter[str]":
    """The facts of `text` as a multiset of canonical strings (module docstring).

    text (str): Any text.
    RETURNS (Counter[str]): Canonical fact -> how often the text states it.
    """
    return Counter(value for _, _, value in fact_spans(text))


def fact_spans(text: str) -> List[Span]:
    """The facts of `text` with where they are written.

    text (str): Any text.
    RETURNS (List[Tuple[int, int, str]]): (start, end, canonical value) in
        text order; start/end are character offsets of the words stating the
        fact (a list of references gives one span per reference).
    """
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN_RE.finditer(text)]
    return _Scanner(tokens).run()


class _Scanner:
    def __init__(self, tokens: List[Tuple[int, int, str]]) -> None:
        self.tokens = tokens
        self.low = [t[2].casefold() for t in tokens]
        self.out: List[Span] = []

    def run(self) -> List[Span]:
        i, low = 0, self.low
        while i < len(self.tokens):
            t = low[i]
            if not (t in _TRIGGERS or t[:1].isdigit() or t[:1] == "§" or t.endswith(("n't", "n’t"))):
                i += 1  # most tokens start no fact
                continue
            for match in (self._reference, self._negation, self._numeric, self._words):
                n_out = len(self.out)
                j = match(i)
                if j is not None:
                    i = self._quantity(j) if len(self.out) == n_out + 1 else j
                    break
            else:
                i += 1
        return self.out

    # --- helpers over tokens
    def _tok(self, i: int) -> str:
        return self.low[i] if 0 <= i < len(self.low) else ""

    def _emit(self, i: int, j: int, value: str) -> None:
        self.out.append((self.tokens[i][0], self.tokens[j - 1][1], value))

    def _int_at(self, i: int) -> Optional[str]:
        t = self._tok(i)
        return str(int(t)) if t.isdigit() else None

    def _skip_dot(self, i: int) -> int:
        return i + 1 if self._tok(i) == "." else i

    def _number_abbrev(self, i: int) -> Optional[int]:
        """If token i is "no"/"nos" abbreviating "number", the index after it
        (and after its dot): "No. 1", "no. [REDACTED]", "Nos. 1 and 4", "No 11"."""
        t = self._tok(i)
        if t not in ("no", "nos"):
            return None
        dotted = self._tok(i + 1) == "."
        j = i + 2 if dotted else i + 1
        nxt = self._tok(j)
        if dotted and (nxt[:1].isdigit() or nxt == _PLACEHOLDER_START or t == "nos"):
            return j
        if not dotted and nxt.isdigit():
            return j
        return None

    def _quantity(self, j: int) -> int:
        """After a fact that ended at token j: when it is a number followed by a
        unit ("two weeks", "two-week", "10 per cent"), make it ``qty:N unit``;
        RETURNS the index after what is now consumed."""
        start, _, value = self.out[-1]
        if not value.startswith("num:"):
            return j
        k = j + 1 if self._tok(j) in _HYPHENS else j
        unit, end = _QTY_UNITS.get(self._tok(k)), k + 1
        if unit is None and self._tok(k) == "per" and self._tok(k + 1) == "cent":
            unit, end = "percent", k + 2
        if unit is None:
            return j
        self.out[-1] = (start, self.tokens[end - 1][1], f"qty:{value[4:]} {unit}")
        return end

    # --- matchers: each returns the index after what it consumed, or None
    def _reference(self, i: int) -> Optional[int]:
        t = self._tok(i)
        if t in _ART_HEADS:
            return self._numbered_ref(i, "art", plural=_ART_HEADS[t], hyphen_para=not _ART_HEADS[t])
        if t in _RULE_HEADS:
            return self._numbered_ref(i, "rule", plural=_RULE_HEADS[t], hyphen_para=False)
        if t in _PROTOCOL_HEADS:
            k = self._number_abbrev(i + 1)
            start = k if k is not None else i + 1
            if self._int_at(start) is None:
                return None
            return self._ref_list(i, start, "protocol", plural=_PROTOCOL_HEADS[t], hyphen_para=False,
                                  paragraphs=False)
        if t.startswith("§") or t in _PARA_WORDS:
            j = self._skip_dot(i + 1) if t in _PARA_WORDS else i + 1
            plural = t in ("§§", "paras", "paragraphs")
            if self._int_at(j) is None:
                return None
            end, paras = self._paragraphs(j, plural)
            for a, b, p in paras:
                self.out.append((self.tokens[i if a == j else a][0], self.tokens[b - 1][1], f"ref:§ {p}"))
            return end
        return None

    def _numbered_ref(self, i: int, kind: str, plural: bool, hyphen_para: bool) -> Optional[int]:
        j = self._skip_dot(i + 1)
        if self._int_at(j) is None:
            return None
        return self._ref_list(i, j, kind, plural, hyphen_para, paragraphs=True)

    def _ref_list(self, head: int, j: int, kind: str, plural: bool, hyphen_para: bool,
                  paragraphs: bool) -> int:
        first = True
        while True:
            start = head if first else j
            num = self._int_at(j)
            j += 1
            subs: List[Tuple[int, int, str]] = []
            if hyphen_para and self._tok(j) in _HYPHENS and self._int_at(j + 1) is not None:
                subs = [(j, j + 2, self._int_at(j + 1) + self._letter(j + 2)[1])]
                j = self._letter(j + 2)[0]
            elif paragraphs and (self._tok(j).startswith("§") or self._tok(j) in _PARA_WORDS):
                p = self._tok(j)
                k = self._skip_dot(j + 1) if p in _PARA_WORDS else j + 1
                if self._int_at(k) is not None:
                    j, subs = self._paragraphs(k, p in ("§§", "paras", "paragraphs"))
            elif plural and self._tok(j) in _HYPHENS and self._int_at(j + 1) is not None:
                # "Articles 8-11": a range; both ends are named
                self._emit(start, j, f"ref:{kind} {num}")
                start, num, j = j + 1, self._int_at(j + 1), j + 2
            else:
                j, letter = self._letter(j)
                num = num + letter
            if subs:
                for n, (a, b, p) in enumerate(subs):
                    self._emit(start if n == 0 else a, b, f"ref:{kind} {num} § {p}")
            else:
                self._emit(start, j, f"ref:{kind} {num}")
            first = False
            if not plural and not (self._tok(j) == "+" and self._int_at(j + 1) is not None):
                return j
            sep = self._tok(j)
            if sep in (",", "and", "or", "+") and self._int_at(j + 1) is not None:
                j += 1
            elif sep == "," and self._tok(j + 1) in ("and", "or") and self._int_at(j + 2) is not None:
                j += 2
            else:
                return j

    def _letter(self, j: int) -> Tuple[int, str]:
        """A sub-paragraph letter "(c)" at j: (index after it, " (c)"), else (j, "")."""
        if self._tok(j) == "(" and self._tok(j + 2) == ")" and re.fullmatch(r"[a-z]", self._tok(j + 1)):
            return j + 3, f" ({self._tok(j + 1)})"
        return j, ""

    def _paragraphs(self, k: int, plural: bool) -> Tuple[int, List[Tuple[int, int, str]]]:
        """Paragraph numbers from token k: (index after them, [(start, end, "1 (c)")])."""
        out = []
        while True:
            num = self._int_at(k)
            end, letter = self._letter(k + 1)
            if plural and self._tok(end) in _HYPHENS and self._int_at(end + 1) is not None:
                out.append((k, end, num + letter))
                k = end + 1
                continue
            out.append((k, end, num + letter))
            if not plural:
                return end, out
            sep = self._tok(end)
            if sep in (",", "and", "or") and self._int_at(end + 1) is not None:
                k = end + 1
            else:
                return end, out

    def _negation(self, i: int) -> Optional[int]:
        t = self._tok(i)
        if t in UNANIMITY:
            self._emit(i, i + 1, UNANIMOUS)
            return i + 1
        if t in ("no", "nos") and self._number_abbrev(i) is not None:
            return self._number_abbrev(i)
        if t == "no" and self._tok(i + 1) == "one":
            self._emit(i, i + 2, NEG)
            return i + 2
        if t in NEGATIONS or t.endswith("n't") or t.endswith("n’t"):
            self._emit(i, i + 1, NEG)
            return i + 1
        return None

    def _numeric(self, i: int) -> Optional[int]:
        t = self._tok(i)
        if not t[:1].isdigit():
            return None
        m = _ORD_DIGITS_RE.match(t)
        if m:
            n = int(m.group(1))
            if self._tok(i + 1) in ("century", "centuries"):
                self._emit(i, i + 2, f"century:{n}")
                return i + 2
            self._emit(i, i + 1, f"ord:{n}")
            return i + 1
        m = _DECADE_RE.match(t)
        if m:
            self._emit(i, i + 1, f"decade:{int(m.group(1))}")
            return i + 1
        value = _digits_value(t)
        if value is None:
            self._emit(i, i + 1, f"num:{t}")
            return i + 1
        j = i + 1
        if self._tok(j) in _SCALES:
            value *= _SCALES[self._tok(j)]
            j += 1
        self._emit(i, j, f"num:{_fmt(value)}")
        return j

    def _words(self, i: int) -> Optional[int]:
        """Number words ("twenty-one", "two hundred and fifty", "a dozen") and ordinals."""
        total, current, j, last, seen = 0, 0, i, i, False
        ordinal = None
        while True:
            t = self._tok(j)
            if t in _UNITS or t in _TENS or t == "dozen":
                current += _UNITS.get(t, _TENS.get(t, 12))
            elif t in _SCALES and (seen or t != "billion"):
                current = max(current, 1) * _SCALES[t]
                if _SCALES[t] >= 1000:
                    total, current = total + current, 0
            elif t in _ORD_UNITS or t in _ORD_TENS or t in _ORD_SCALES:
                if t in _ORD_SCALES:
                    current = max(current, 1) * _ORD_SCALES[t]
                else:
                    current += _ORD_UNITS.get(t, _ORD_TENS.get(t))
                ordinal, last, seen = total + current, j + 1, True
                break
            else:
                break
            seen, last = True, j + 1
            nxt = self._tok(j + 1)
            # "twenty-one", "two hundred and fifty": continue over a hyphen / "and"
            if nxt in _HYPHENS or (nxt == "and" and t in _SCALES):
                after = self._tok(j + 2)
                if after in _UNITS or after in _TENS or after in _ORD_UNITS or after in _ORD_TENS:
                    j += 2
                    continue
            j += 1
        if not seen:
            return None
        if ordinal is not None:
            if self._tok(last) in ("century", "centuries"):
                self._emit(i, last + 1, f"century:{ordinal}")
                return last + 1
            self._emit(i, last, f"ord:{ordinal}")
            return last
        self._emit(i, last, f"num:{total + current}")
        return last


def _digits_value(t: str) -> Optional[Decimal]:
    """The value of a digit group: "1,000" -> 1000, "3.50" -> 3.5; None for
    other separators ("12345/01", "12.05.2001") and a trailing "s"."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", t):
        try:
            return Decimal(t.replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the pattern admits only digits
            return None
    return None


def _fmt(value: Decimal) -> str:
    return format(Decimal(value).normalize(), "f")


def kind(value: str) -> str:
    """The kind of a canonical fact: "num", "qty", "decade", "century", "ord", "neg" or "ref"."""
    return value.split(":", 1)[0]


def is_negation(value: str) -> bool:
    """True for a negation cue (``neg`` or ``neg:unanimous``)."""
    return kind(value) == NEG


def year_of(value: str) -> Optional[int]:
    """The year a ``num`` fact may be (an integer 1000-2999), else None."""
    if kind(value) != "num":
        return None
    body = value.split(":", 1)[1]
    if body.isdigit() and 1000 <= int(body) <= 2999:
        return int(body)
    return None

