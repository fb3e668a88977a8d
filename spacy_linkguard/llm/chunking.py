"""Cut a document into chunks of a few sentences for the LLM.

Only chunks that hold flagged spans are sent, so the model sees little text
and cannot touch the rest. A chunk is the text between two sentence
boundaries without surrounding whitespace, so the document's layout (blank
lines between paragraphs) survives every rewrite. Pure functions, no spaCy.
"""
import re
from dataclasses import dataclass, field
from typing import Iterable, List, Sequence, Tuple

from ..errors import Errors, LinkguardError

# Words that end with a period without ending a sentence in court documents.
ABBREVIATIONS = frozenset(
    "no nos art arts mr mrs ms dr prof para paras pp p v vs e.g i.e etc cf ibid op cit "
    "st jr sr co ltd inc nr vol ed eds fig seq seqs sect ch gen col lt sgt rev hon".split()
)
# A sentence ends at . ! ? (plus closing quotes/brackets) before whitespace.
_END_RE = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?=\s)")
_WORD_BEFORE_RE = re.compile(r"([\w.]+)$")


@dataclass(frozen=True)
class ChunkSettings:
    """How documents are cut: at most `sentences_per_chunk` sentences and about
    `max_chunk_chars` characters a chunk (one long sentence stays whole);
    chunks never cross a line break when `split_on_newlines`."""

    sentences_per_chunk: int = 3
    max_chunk_chars: int = 1200
    split_on_newlines: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.sentences_per_chunk, int) or self.sentences_per_chunk < 1:
            raise LinkguardError(
                Errors.E207.format(name="sentences_per_chunk", expected="an integer >= 1",
                                   value=self.sentences_per_chunk)
            )
        if not isinstance(self.max_chunk_chars, int) or self.max_chunk_chars < 50:
            raise LinkguardError(
                Errors.E207.format(name="max_chunk_chars", expected="an integer >= 50",
                                   value=self.max_chunk_chars)
            )


@dataclass(frozen=True)
class Chunk:
    """One chunk of one document.

    doc_index (int): Position of the document in the batch.
    index (int): Position of the chunk in the document.
    start, end (int): Character offsets of the chunk in the document text.
    text (str): The chunk text (= document text[start:end]).
    span_offsets: Flagged spans inside the chunk, offsets relative to `text`.
    whole (bool): The chunk is sent as a whole, without a span list (the
        no-span-list baseline flags every chunk this way).
    context (Tuple[str, str]): Read-only text before and after the chunk
        that a prompt may show (the sentence task: the neighbouring sentences).
    origin (str): The input's text this chunk was rewritten from in earlier
        passes ("" when the chunk is the input's own text, or when a rewrite
        was cut differently since). The sentence backend can rank later
        passes' candidates against it (`rank_against = "input"`), so that a
        sentence rewritten several times stays close to what the input
        said, not only to its last rewrite (`original`).
    """

    doc_index: int
    index: int
    start: int
    end: int
    text: str
    span_offsets: Tuple[Tuple[int, int], ...] = field(default=())
    whole: bool = False
    context: Tuple[str, str] = ("", "")
    origin: str = ""

    @property
    def original(self) -> str:
        """The input's text of this chunk: `origin`, else `text`."""
        return self.origin or self.text

    @property
    def spans(self) -> List[str]:
        """The distinct flagged span texts, in order of first appearance."""
        seen: List[str] = []
        for s, e in self.span_offsets:
            t = self.text[s:e]
            if t not in seen:
                seen.append(t)
        return seen

    @property
    def flagged(self) -> bool:
        return bool(self.span_offsets) or self.whole


def sentence_bounds(text: str, *, split_on_newlines: bool = True) -> List[Tuple[int, int]]:
    """Character spans of the sentences of `text`, without surrounding whitespace.

    A sentence ends at . ! or ? followed by whitespace, except after a known
    abbreviation ("no.", "Art.") or a single-letter initial; a line break
    always ends one when `split_on_newlines`.
    RETURNS (List[Tuple[int, int]]): Non-empty, ordered, non-overlapping spans.
    """
    cuts = {0, len(text)}
    if split_on_newlines:
        for m in re.finditer(r"\n", text):
            cuts.add(m.end())
    for m in _END_RE.finditer(text):
        before = _WORD_BEFORE_RE.search(text, 0, m.start())
        if text[m.start()] == "." and before:
            word = before.group(1).lower()
            if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
            # "12. The applicant ..." at the start of a line is a paragraph number.
            line_start = text.rfind("\n", 0, before.start()) + 1
            if word.isdigit() and not text[line_start : before.start()].strip():
                continue
        cuts.add(m.end())
    out: List[Tuple[int, int]] = []
    points = sorted(cuts)
    for a, b in zip(points, points[1:]):
        s, e = _strip_bounds(text, a, b)
        if s < e:
            out.append((s, e))
    return out


def make_chunks(
    text: str,
    spans: Iterable[Tuple[int, int]],
    settings: ChunkSettings = ChunkSettings(),
    *,
    doc_index: int = 0,
) -> List[Chunk]:
    """Cut `text` into chunks and attach the flagged spans to them.

    text (str): The document text.
    spans (Iterable[Tuple[int, int]]): Flagged (start_char, end_char) offsets.
    settings (ChunkSettings): Chunk sizes.
    doc_index (int): Stored on each chunk, to map replies back across a batch.
    RETURNS (List[Chunk]): All chunks in text order; chunks of sentences that
        a span crosses are merged, so every span lies inside one chunk.
    """
    spans = sorted((int(s), int(e)) for s, e in spans if e > s)
    groups = _group_sentences(text, sentence_bounds(text, split_on_newlines=settings.split_on_newlines), settings)
    # Merge neighbouring groups that a span crosses (defensive: N-grams never
    # cross punctuation or line breaks, but a caller's spans might).
    merged: List[List[int]] = []
    for s, e in groups:
        if merged and any(se > merged[-1][1] and ss < s for ss, se in spans):
            merged[-1][1] = e
        else:
            merged.append([s, e])
    chunks: List[Chunk] = []
    j = 0
    for i, (s, e) in enumerate(merged):
        own: List[Tuple[int, int]] = []
        while j < len(spans) and spans[j][0] < e:
            if spans[j][0] >= s:
                own.append((spans[j][0] - s, min(spans[j][1], e) - s))
            j += 1
        chunks.append(Chunk(doc_index, i, s, e, text[s:e], tuple(own)))
    return chunks


def apply_chunk_edits(text: str, edits: Sequence[Tuple[int, int, str]]) -> str:
    """Replace text[start:end] by new text for each (start, end, new) edit.

    Edits must not overlap; they are applied right to left so earlier offsets
    stay valid. RETURNS (str): The edited text.
    """
    out = text
    last = len(text) + 1
    for s, e, new in sorted(edits, key=lambda x: x[0], reverse=True):
        if e > last:
            raise LinkguardError(Errors.E207.format(name="chunk edits", expected="non-overlapping offsets",
                                                    value=f"{s}-{e} overlaps the next edit at {last}"))
        out = out[:s] + new + out[e:]
        last = s
    return out


def _group_sentences(text: str, sents: List[Tuple[int, int]], settings: ChunkSettings) -> List[Tuple[int, int]]:
    groups: List[Tuple[int, int]] = []
    cur_s = cur_e = -1
    n = 0
    for s, e in sents:
        breaks_line = settings.split_on_newlines and cur_e >= 0 and "\n" in text[cur_e:s]
        too_long = cur_e >= 0 and (e - cur_s) > settings.max_chunk_chars
        if cur_e < 0 or n >= settings.sentences_per_chunk or breaks_line or too_long:
            if cur_e >= 0:
                groups.append((cur_s, cur_e))
            cur_s, cur_e, n = s, e, 1
        else:
            cur_e, n = e, n + 1
    if cur_e >= 0:
        groups.append((cur_s, cur_e))
    return groups


def _strip_bounds(text: str, s: int, e: int) -> Tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e
