"""A word diff of two texts that gives both texts back exactly.

The texts are cut into tokens: a word (letters and digits, with an inner
apostrophe: "applicant's") or one other non-space character, each with the
whitespace that follows it; whitespace before the first word is spacing (an
"equal" stretch of the diff). Tokens are compared without their whitespace,
case-sensitively (difflib's longest matching blocks, no junk heuristic), and
the result is a list of segments whose `old` parts joined are the first text
and whose `new` parts joined are the second. Pure functions, no model.
"""
import re
from difflib import SequenceMatcher
from typing import List, NamedTuple

_TOKEN = re.compile(r"\s+|\w+(?:['’]\w+)*\s*|[^\w\s]\s*", re.UNICODE)


class Segment(NamedTuple):
    """One stretch of the diff.

    op: "equal" (the same words; the whitespace may differ), "delete" (only in
        the first text), "insert" (only in the second) or "replace".
    old, new: the stretch as written in the first and in the second text
        ("" where it has none).
    """

    op: str
    old: str
    new: str


def tokens(text: str) -> List[str]:
    """`text` cut into tokens (module docstring); "".join(tokens(text)) == text."""
    return _TOKEN.findall(text)


def word_diff(old: str, new: str) -> List[Segment]:
    """The segments that turn `old` into `new` (module docstring).

    RETURNS (List[Segment]): in text order, neighbours never of the same op;
        "".join(s.old for s in segments) == old and likewise for new.
    """
    a, b = tokens(old), tokens(new)
    # whitespace before the first word is spacing, never a change of its own
    lead_a = a.pop(0) if a and a[0].isspace() else ""
    lead_b = b.pop(0) if b and b[0].isspace() else ""
    keys_a, keys_b = [t.strip() for t in a], [t.strip() for t in b]
    out: List[Segment] = [Segment("equal", lead_a, lead_b)] if lead_a or lead_b else []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        seg = Segment(op, "".join(a[i1:i2]), "".join(b[j1:j2]))
        if out and out[-1].op == seg.op:
            prev = out.pop()
            seg = Segment(op, prev.old + seg.old, prev.new + seg.new)
        out.append(seg)
    return out
