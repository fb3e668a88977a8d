"""Truthful candidates that need no model: drop a flagged detail, or generalize it.

Beside the model's candidates, each flagged sentence gets edits that cannot
lie, made from its parse (spaCy) and WordNet:

- **drop**: the smallest optional constituent that holds a flagged phrase --
  an adjective, adverb, prepositional, appositive, relative-clause or other
  modifier (`OPTIONAL_DEPS`), the subtree of that token -- is deleted, with
  the comma that set it off. A deletion leaves a detail out; it states
  nothing new. "On [REDACTED] the Court, sitting as a Chamber, declared the
  application admissible" -> "On [REDACTED] the Court declared the
  application admissible".
- **generalize**: a common noun of a flagged phrase that heads its noun
  phrase (not a compound's modifier, not capitalized) is replaced by a
  hypernym of its first WordNet sense, one step up ("truncheons" -> "clubs",
  "medal" -> "award", "detention" -> "confinement"), inflected as the word
  was. Verbs and adjectives are left to the model: their hypernyms read
  badly ("beaten" -> "gotten the better of").

A sentence with several flagged phrases gets the combinations of one edit a
phrase (at most `max_candidates`). Every candidate then goes through the same
filters as the model's (`filters/`: facts, grounded words, the index, ...)
and the same ranking, whose fluency term rejects a deletion that leaves a
sentence the model finds garbled; the placeholder stays the last resort
(guarantee mode). Pure given the parser and WordNet; no model.
"""
import itertools
import re
from typing import Any, Callable, Iterable, List, Optional, Tuple

from ..baselines.inflect import indefinite_article, inflect, match_case
from ..baselines.wordnet import UPOS_TO_WORDNET, WordNet
from ..llm.chunking import Chunk

# Dependency labels of a constituent a sentence reads without.
OPTIONAL_DEPS = frozenset({"amod", "advmod", "prep", "appos", "relcl", "acl", "advcl", "npadvmod", "nmod",
                           "quantmod", "compound", "poss", "nummod", "parataxis", "intj", "preconj"})
# The longest constituent dropped, in tokens: a longer one is most of the sentence.
MAX_DROP_TOKENS = 12
HYPERNYM_STEPS = 1
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)])")
_DOUBLE_COMMA = re.compile(r",\s*,")

# An edit of the sentence: (start, end, replacement) in characters.
Edit = Tuple[int, int, str]


class ModelFreeCandidates:
    """Drop or generalize each flagged phrase of a sentence (see the module).

    parse: text -> a spaCy `Doc` with a dependency parse and POS tags.
    wordnet (WordNet): The database.
    max_candidates (int): Candidates a sentence, at most.
    """

    def __init__(self, parse: Callable[[str], Any], wordnet: WordNet, max_candidates: int = 8) -> None:
        self.parse = parse
        self.wordnet = wordnet
        self.max_candidates = max_candidates

    def candidates(self, chunk: Chunk) -> List[str]:
        """The model-free candidates for one flagged sentence, distinct, none equal to it."""
        if not chunk.span_offsets:
            return []
        doc = self.parse(chunk.text)
        options = [self.edits_for(doc, s, e) for s, e in chunk.span_offsets]
        out: List[str] = []
        for combo in itertools.islice(itertools.product(*[o for o in options if o]), 4 * self.max_candidates):
            text = apply_edits(chunk.text, combo)
            if text is not None and text != chunk.text and text not in out:
                out.append(text)
            if len(out) >= self.max_candidates:
                break
        return out

    def edits_for(self, doc: Any, start: int, end: int) -> List[Edit]:
        """The drop and generalize edits of the phrase at [start, end)."""
        out: List[Edit] = []
        drop = smallest_optional(doc, start, end)
        if drop is not None:
            out.append(drop)
        out.extend(self.generalizations(doc, start, end))
        return out

    def generalizations(self, doc: Any, start: int, end: int) -> List[Edit]:
        """Each head noun of the phrase replaced by a hypernym, last noun first."""
        tokens = [t for t in doc if t.idx < end and t.idx + len(t.text) > start and t.pos_ == "NOUN"
                  and t.dep_ != "compound" and t.text[:1].islower()]
        tokens.sort(key=lambda t: -t.i)
        out: List[Edit] = []
        for tok in tokens:
            article = doc[tok.i - 1] if tok.i > 0 and doc[tok.i - 1].lower_ in ("a", "an") else None
            for word in hypernym_words(tok, self.wordnet)[:2]:
                word = match_case(tok.text, word)
                if article is None:
                    out.append((tok.idx, tok.idx + len(tok.text), word))
                else:  # "a teacher" -> "an educator", not "a educator"
                    an = indefinite_article(word, capital=article.text[:1].isupper())
                    out.append((article.idx, tok.idx + len(tok.text), an + " " + word))
        return out


def smallest_optional(doc: Any, start: int, end: int) -> Optional[Edit]:
    """The deletion of the smallest optional constituent that holds the
    characters [start, end) whole, with its setting-off comma; None when none."""
    best: Optional[Tuple[int, int]] = None
    for tok in doc:
        if tok.dep_ not in OPTIONAL_DEPS or tok.head is tok:
            continue
        left, right = tok.left_edge, tok.right_edge
        a, b = left.idx, right.idx + len(right.text)
        if a <= start and end <= b and right.i - left.i + 1 <= MAX_DROP_TOKENS:
            if best is None or b - a < best[1] - best[0]:
                best = (a, b)
    if best is None:
        return None
    a, b = best
    text = doc.text
    # the comma that sets the constituent off: ", sitting as a Chamber," -> one comma less
    before = text[:a].rstrip()
    after = text[b:].lstrip()
    if before.endswith(",") and after.startswith(","):
        a, b = len(before) - 1, len(text) - len(after) + 1
    elif before.endswith(",") and (after[:1] in ".;:!?" or not after):
        a = len(before) - 1
    elif after.startswith(",") and not before.endswith(","):
        b = len(text) - len(after) + 1
    return (a, b, "")


def hypernym_words(token: Any, wordnet: WordNet) -> List[str]:
    """Hypernyms (`HYPERNYM_STEPS` steps up) of the token's first WordNet
    sense, inflected as the token; single words first."""
    pos = UPOS_TO_WORDNET.get(token.pos_)
    if pos is None:
        return []
    lemma = token.lemma_.lower()
    if not wordnet.has_lemma(lemma, pos):
        forms = wordnet.morphy(token.text, pos)
        if not forms:
            return []
        lemma = forms[0]
    senses = wordnet.synsets(lemma, pos)
    if not senses:
        return []
    out: List[str] = []
    for synset in wordnet.hypernym_closure(senses[0], HYPERNYM_STEPS):
        for name in synset.lemmas[:1]:
            form = inflect(name, token.tag_) if token.tag_ else name
            if form and form.lower() != token.text.lower() and form not in out:
                out.append(form)
    return sorted(out, key=lambda w: (" " in w, 0))


def apply_edits(text: str, edits: Iterable[Edit]) -> Optional[str]:
    """`text` with non-overlapping `edits` applied and spacing tidied; None
    when two edits overlap or the sentence is left empty."""
    edits = sorted(set(edits))
    for (a1, b1, _), (a2, b2, _) in zip(edits, edits[1:]):
        if a2 < b1:
            return None
    out, pos = [], 0
    for a, b, rep in edits:
        out.append(text[pos:a])
        out.append(rep)
        pos = b
    out.append(text[pos:])
    new = _DOUBLE_COMMA.sub(",", _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", "".join(out)))).strip()
    if not any(c.isalnum() for c in new):
        return None
    return new[:1].upper() + new[1:] if text[:1].isupper() else new
