"""What the review page shows of one rewritten document.

Its paragraphs are paired with the input's (`paragraphs.paragraph_pairs`);
each pair whose text differs is a changed paragraph, shown as a word diff
(`diff.word_diff`), and an input paragraph without a partner is a dropped
one, an output paragraph without a partner an added one. Of a changed
paragraph the page also marks the *ungrounded* words of the output: content
words its input paragraph does not account for (`grounding.Grounder`, the
rule of the ungrounded-words metric, SPEC.md "Metrics"), and counts the
sentences it dropped or added (`dropped_sentences`).

What a reader must check first, in this order (`ParagraphReview.read_key`):

0. a paragraph that dropped or added a fact of `llm.facts` (a number, an
   ordinal, a negation, a legal reference), has an ungrounded word, dropped
   or added a sentence, or is itself dropped or added: these can say
   something the input does not, or lose what it said;
1. a paragraph whose only flag is a placeholder added or left out (guarantee
   mode adds them to most paragraphs it touches; a placeholder left out can
   take a redacted mention with it);
2. anything else (a rewording every word of which is grounded).

Within a rank, more ungrounded words first, then more facts and sentences
changed, then text order. A paragraph of rank 0 or 1 asks for `attention`
(the page's orange bar, its "read first" list); the page still shows the
paragraphs in text order. A paragraph without a flag can still say something
its input does not. Pure functions: the grounder (WordNet) is passed in.
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple

from ..grounding.words import content_words
from ..llm.chunking import sentence_bounds
from ..llm.facts import Span, fact_spans
from ..ngrams import DEFAULT_PLACEHOLDER
from ..paragraphs import align_paragraphs, paragraph_pairs
from .diff import Segment, word_diff

# The ranks of `ParagraphReview.priority` (module docstring).
CHECK, PLACEHOLDERS_ONLY, NOTHING = 0, 1, 2


class Run(NamedTuple):
    """A stretch of the output column: inserted (the diff's `<ins>`) or not,
    as (text, ungrounded) parts; the parts joined are the stretch."""

    inserted: bool
    parts: List[Tuple[str, bool]]


@dataclass
class ParagraphReview:
    """One paragraph of the input beside what the rewrite made of it.

    old, new: the input paragraph and the output paragraph ("" for an added /
        a dropped paragraph).
    segments: the word diff of old and new.
    facts_dropped, facts_added: facts of the input the output lacks, and of
        the output the input lacks, as written ("two weeks", "not"), each as
        often as it is missing.
    placeholders_added: placeholders in new minus those in old (negative: some left out).
    ungrounded: the ungrounded words of new as (start, end) offsets in it, in
        order ([] when no grounder was given, and for an unchanged, dropped
        or added paragraph).
    sentences_dropped, sentences_added: sentences of old that new no longer
        has, and of new that old had not (`dropped_sentences`).
    """

    old: str
    new: str
    segments: List[Segment] = field(default_factory=list)
    facts_dropped: List[str] = field(default_factory=list)
    facts_added: List[str] = field(default_factory=list)
    placeholders_added: int = 0
    ungrounded: List[Tuple[int, int]] = field(default_factory=list)
    sentences_dropped: List[str] = field(default_factory=list)
    sentences_added: List[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """"unchanged" (the same words; the spacing may differ), "changed",
        "dropped" (no output paragraph) or "added" (no input one)."""
        if not self.new:
            return "dropped"
        if not self.old:
            return "added"
        return "unchanged" if all(s.op == "equal" for s in self.segments) else "changed"

    @property
    def ungrounded_words(self) -> List[str]:
        """The ungrounded words of new, as written."""
        return [self.new[s:e] for s, e in self.ungrounded]

    @property
    def priority(self) -> int:
        """CHECK (0): a fact came or went, an ungrounded word, a sentence or the
        paragraph itself dropped or added; PLACEHOLDERS_ONLY (1): only a
        placeholder came or went; NOTHING (2) otherwise (module docstring)."""
        if (self.facts_dropped or self.facts_added or self.ungrounded or self.sentences_dropped
                or self.sentences_added or self.kind in ("dropped", "added")):
            return CHECK
        return PLACEHOLDERS_ONLY if self.placeholders_added else NOTHING

    @property
    def attention(self) -> bool:
        """Whether the paragraph is to be read first (`priority` 0 or 1)."""
        return self.priority < NOTHING

    def read_key(self, position: int) -> Tuple[int, int, int, int]:
        """The sort key of the "read first" order: (priority, fewer ungrounded
        words later, fewer facts and sentences changed later, `position` in the text)."""
        changes = (len(self.facts_dropped) + len(self.facts_added)
                   + len(self.sentences_dropped) + len(self.sentences_added))
        return (self.priority, -len(self.ungrounded), -changes, position)

    @property
    def new_runs(self) -> List[Run]:
        """The output column: the diff's stretches of new, the inserted ones
        without the whitespace that follows them (a stretch of its own), each
        cut where an ungrounded word starts or ends."""
        runs: List[Run] = []
        at = 0
        for seg in self.segments:
            if seg.op == "equal":
                runs.append(Run(False, self._marked(at, seg.new)))
            elif seg.new:
                word = seg.new.rstrip()
                runs.append(Run(True, self._marked(at, word)))
                if len(word) < len(seg.new):
                    runs.append(Run(False, self._marked(at + len(word), seg.new[len(word):])))
            at += len(seg.new)
        return runs

    def _marked(self, start: int, text: str) -> List[Tuple[str, bool]]:
        """`text` (new[start:start + len(text)]) as parts, the ungrounded words marked."""
        parts: List[Tuple[str, bool]] = []
        at = 0
        for s, e in self.ungrounded:
            s, e = max(s - start, at), min(e - start, len(text))
            if s < e:
                if at < s:
                    parts.append((text[at:s], False))
                parts.append((text[s:e], True))
                at = e
        if at < len(text) or not parts:
            parts.append((text[at:], False))
        return parts


def review_paragraph(old: str, new: str, placeholder: str = DEFAULT_PLACEHOLDER,
                     grounder: Optional[Any] = None) -> ParagraphReview:
    """`old` beside `new` (ParagraphReview); either may be "" (a paragraph dropped or added).

    grounder: a `grounding.Grounder` to find the ungrounded words of a
        changed paragraph (made with the same placeholder); None finds none.
    """
    if old == new:  # nothing to diff, no fact can change
        return ParagraphReview(old, new, [Segment("equal", old, new)])
    dropped, added = fact_changes(old, new)
    review = ParagraphReview(
        old, new, word_diff(old, new), facts_dropped=dropped, facts_added=added,
        placeholders_added=new.count(placeholder) - old.count(placeholder) if placeholder else 0,
    )
    if review.kind == "changed":
        review.sentences_dropped, review.sentences_added = dropped_sentences(old, new), dropped_sentences(new, old)
        if grounder is not None:
            review.ungrounded = [(w.start, w.end) for w in grounder.ungrounded(new, grounder.basis(old))]
    return review


def dropped_sentences(text: str, other: str) -> List[str]:
    """The sentences of `text` that `other` lost (`llm.chunking.sentence_bounds`).

    The sentences of both are paired as paragraphs are (`align_paragraphs`:
    by position when they are as many, else by word overlap); a sentence of
    `text` left without a partner is lost when fewer than half of its content
    words (`grounding.content_words`, counted with multiplicity) are anywhere
    in `other`, so a sentence split in two or merged into its neighbour is not.
    """
    mine = [text[s:e] for s, e in sentence_bounds(text)]
    theirs = [other[s:e] for s, e in sentence_bounds(other)]
    paired = {i for i, _ in align_paragraphs(mine, theirs)}
    rest = Counter(w.key for w in content_words(other))
    out = []
    for i, sentence in enumerate(mine):
        if i not in paired:
            bag = Counter(w.key for w in content_words(sentence))
            if 2 * sum((bag & rest).values()) < sum(bag.values()):
                out.append(sentence)
    return out


def fact_changes(old: str, new: str) -> Tuple[List[str], List[str]]:
    """(the facts of `old` that `new` lacks, those of `new` that `old` lacks):
    `missing_facts` both ways, each text's facts read once."""
    spans_old, spans_new = fact_spans(old), fact_spans(new)
    return _missing(old, spans_old, spans_new), _missing(new, spans_new, spans_old)


def missing_facts(text: str, other: str) -> List[str]:
    """The facts of `text` that `other` lacks (a multiset difference of
    canonical facts), each as written in `text`, in text order."""
    return _missing(text, fact_spans(text), fact_spans(other))


def _missing(text: str, spans: List[Span], other_spans: List[Span]) -> List[str]:
    missing = Counter(v for _, _, v in spans) - Counter(v for _, _, v in other_spans)
    out = []
    for start, end, value in spans:
        if missing[value] > 0:
            missing[value] -= 1
            out.append(text[start:end])
    return out


def paragraph_reviews(input_text: str, output_text: str, placeholder: str = DEFAULT_PLACEHOLDER,
                      grounder: Optional[Any] = None) -> List[ParagraphReview]:
    """Every paragraph of the input and of its rewrite, paired, in text order:
    a dropped input paragraph comes before the pair that follows it, an added
    output paragraph likewise (`review_paragraph`)."""
    a, b, pairs = paragraph_pairs(input_text, output_text)
    out: List[ParagraphReview] = []
    i = j = 0
    for pi, pj in pairs + [(len(a), len(b))]:
        out.extend(review_paragraph(p, "", placeholder) for p in a[i:pi])
        out.extend(review_paragraph("", p, placeholder) for p in b[j:pj])
        if pi < len(a):
            out.append(review_paragraph(a[pi], b[pj], placeholder, grounder))
        i, j = pi + 1, pj + 1
    return out


def read_first(paragraphs: List[ParagraphReview]) -> List[int]:
    """The positions of the paragraphs that ask for attention, in the order
    a reader checks them (`ParagraphReview.read_key`)."""
    keys = [(p.read_key(i), i) for i, p in enumerate(paragraphs) if p.attention]
    return [i for _, i in sorted(keys)]


def review_item(input_text: str, output: Mapping[str, Any], *,
                placeholder: str = DEFAULT_PLACEHOLDER, grounder: Optional[Any] = None) -> Dict[str, Any]:
    """What the page shows of one document.

    input_text: the document as the rewrite read it.
    output: its line of the rewrite's output: "id" and "text", and where the
        rewrite wrote them "safe", "verdict" and "forced_redactions".
    grounder: a `grounding.Grounder` (the same for every document: it caches
        WordNet), to mark the ungrounded words; None marks none.
    RETURNS (dict): id, safe (None: not checked), verdict, forced_redactions,
        paragraphs (List[ParagraphReview]), n_changed (paragraphs not
        unchanged), n_attention (priority 0 or 1), n_check (priority 0),
        n_ungrounded (ungrounded words), read_first (`read_first`),
        placeholders_added (whole document).
    """
    paragraphs = paragraph_reviews(input_text, output["text"], placeholder, grounder)
    forced: Optional[int] = output.get("forced_redactions")
    return {
        "id": str(output["id"]),
        "safe": output.get("safe"),
        "verdict": output.get("verdict"),
        "forced_redactions": forced,
        "paragraphs": paragraphs,
        "n_changed": sum(p.kind != "unchanged" for p in paragraphs),
        "n_attention": sum(p.attention for p in paragraphs),
        "n_check": sum(p.priority == CHECK for p in paragraphs),
        "n_ungrounded": sum(len(p.ungrounded) for p in paragraphs),
        "read_first": read_first(paragraphs),
        "placeholders_added": (output["text"].count(placeholder) - input_text.count(placeholder)
                               if placeholder else 0),
    }
