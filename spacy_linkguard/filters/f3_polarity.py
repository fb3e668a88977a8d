"""The polarity guard: a rewrite does not turn a word into its opposite.

A small model asked to replace "inadmissible" writes "admissible"; asked to
replace "right-hander" it writes "left-handed"; "acquitted" becomes
"convicted", "Summer Olympics" the "Winter Olympics". Read on GPU outputs of
Qwen2.5-Coder-1.5B these were among the commonest ways a fluent sentence came
to say the opposite of its input, and no fact of `facts.py` changes. A
candidate is rejected (``polarity_changed``) when it holds a word, not in the
sentence, that is the opposite of a word of the sentence that the candidate
no longer holds:

- by a negating prefix: one word is the other with "in", "im", "il", "ir",
  "un", "non", "non-" or "dis" in front ("admissible" / "inadmissible",
  "lawful" / "unlawful"), the stem at least four letters long, unless the
  longer word is one whose prefix negates nothing (`NOT_NEGATED`:
  "informed" / "formed", "immigration" / "migration");
- by a short list of opposites common in judgments and biographies
  (`OPPOSITES`), compared by word and by a crude stem (a trailing "s", "ed",
  "ing" or "d" removed), so "acquits" / "convicted" and "allows" / "dismissed".

Left out on purpose: "before" / "after", "earlier" / "later" and
"dismissed" / "upheld" ("the appeal was dismissed" is "the decision was
upheld"), which a faithful rewrite swaps when it turns a sentence round.
Words are case-folded. What it does not see: an opposite neither listed nor
made by a prefix ("rejected" -> "welcomed"). Pure function, no model.
"""
import re
from typing import FrozenSet, List, Set, Tuple

PREFIXES = ("non-", "non", "dis", "in", "im", "il", "ir", "un")
MIN_STEM = 4

_PAIRS = [
    ("left", "right"), ("summer", "winter"), ("acquit", "convict"), ("acquittal", "conviction"),
    ("acquitted", "convicted"), ("allow", "dismiss"), ("allowed", "dismissed"), ("uphold", "quash"),
    ("upheld", "quashed"), ("upheld", "overturned"), ("upheld", "reversed"),
    ("grant", "refuse"), ("granted", "refused"), ("granted", "rejected"), ("guilty", "innocent"),
    ("win", "lose"), ("won", "lost"), ("win", "loss"), ("victory", "defeat"), ("first", "last"),
    ("older", "younger"), ("eldest", "youngest"),
    ("increase", "decrease"), ("increased", "reduced"), ("increased", "decreased"), ("higher", "lower"),
    ("maximum", "minimum"), ("major", "minor"), ("male", "female"), ("husband", "wife"), ("son", "daughter"),
    ("father", "mother"), ("brother", "sister"), ("plaintiff", "defendant"), ("prosecution", "defence"),
    ("applicant", "respondent"), ("accepted", "rejected"), ("admitted", "denied"), ("confirmed", "denied"),
    ("legal", "illegal"), ("public", "private"), ("domestic", "foreign"), ("north", "south"), ("east", "west"),
    ("northern", "southern"), ("eastern", "western"), ("entry", "exit"), ("import", "export"),
    ("released", "detained"), ("released", "arrested"), ("born", "died"), ("birth", "death"),
    ("married", "divorced"), ("resigned", "appointed"), ("elected", "defeated"), ("joined", "left"),
    ("offence", "defence"), ("offense", "defense"), ("always", "never"), ("all", "none"),
]
# words that begin with a prefix of PREFIXES without negating what follows it
NOT_NEGATED = frozenset({
    "immigration", "immigrant", "immigrants", "immigrated", "inform", "informed", "informs", "information",
    "invest", "invested", "income", "insight", "install", "installed", "intend", "intended", "indeed", "inside",
    "dismissed", "dismiss", "discharge", "discharged", "discover", "discovered", "display", "displayed",
    "dispose", "disposed", "impose", "imposed", "impress", "impressed", "import", "imported", "unite", "united",
    "involve", "involved", "invalidate", "insure", "insured", "inflict", "inflicted", "irritate",
})
OPPOSITES: FrozenSet[Tuple[str, str]] = frozenset(p for a, b in _PAIRS for p in ((a, b), (b, a)))
_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)


def polarity_flips(sentence: str, candidate: str) -> List[Tuple[str, str]]:
    """(word of the sentence, its opposite in the candidate) for every flip (module docstring)."""
    before = _words(sentence)
    after = _words(candidate)
    gone = before - after
    new = after - before
    flips = []
    for w in sorted(new):
        for v in sorted(gone):
            if _opposite(v, w):
                flips.append((v, w))
    return flips


def _words(text: str) -> Set[str]:
    """The case-folded words of `text`, a hyphenated word also as its parts."""
    out: Set[str] = set()
    for m in _WORD_RE.finditer(text):
        w = m.group().casefold()
        out.add(w)
        if "-" in w:
            out.update(p for p in w.split("-") if p)
    return out


def _opposite(a: str, b: str) -> bool:
    if (a, b) in OPPOSITES or (_stem(a), _stem(b)) in OPPOSITES:
        return True
    for x, y in ((a, b), (b, a)):
        if x in NOT_NEGATED:
            continue
        for p in PREFIXES:
            if x == p + y and len(y) >= MIN_STEM:
                return True
    return False


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "s", "d"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
