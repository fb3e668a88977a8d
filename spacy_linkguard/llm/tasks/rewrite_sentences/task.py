"""`RewriteSentencesTask`: the model regenerates each sentence that holds flagged spans.

Splicing short replacements into a sentence, phrase after phrase and pass
after pass, leaves sentences that no longer read. Here each chunk is one
sentence: the model writes the whole sentence again, with the neighbouring
sentences as read-only context and the flagged phrases listed (a JSON object,
as the other task forms send it), told to change only what those phrases
need, and replies `{"sentence": "..."}`. The phrases are also handed to the model as
banned phrases (`banned`): a backend that enforces them while decoding
(`HFChatModel`) cannot write one; the others are checked after generation,
like every reply. A reply is then reviewed by the guards of every task
(length, similarity, echo, invented names and numbers, redaction) and by the
fact guard (`llm/facts.py`: numbers, ordinals, number words, negations and
legal references outside the flagged phrases survive; inside them a number may
only be generalized) with the polarity guard (`filters/f3_polarity.py`: no word
turned into its opposite, "inadmissible" -> "admissible"). When no candidate
of a sentence passes, the rewriter asks once more with
`render(chunk, generalize=True)`: a more general sentence.

With `words_to_change`, the prompt names words instead of phrases: the fewest
words of the sentence that hold a token of every flagged phrase
(`llm/pivots.py`), and the model changes those and keeps the rest. At k = 2 a
judgment's flagged phrases cover most of a sentence; told to avoid them all,
the model writes a new sentence, and says something else. The phrases stay
banned while decoding and checked afterwards, as in the phrase form, and a
candidate that changed other words than those named and their neighbours is
rejected (`words_guard.py`, ``other_words_changed``).
"""
import dataclasses
from functools import lru_cache
from typing import Any, List, Optional, Sequence, Tuple

import jinja2

from ....errors import Errors, LinkguardError
from ....ngrams import NgramSettings, text_segments
from ...chunking import Chunk
from ....filters.f1_reply import check_edit, instruction_ngrams
from ....filters.reasons import OTHER_WORDS_CHANGED, POLARITY_CHANGED
from ...pivots import DocShare, words_to_change
from ....filters.f4_kept_words import dropped_words
from ..rewrite.task import TEMPLATES_DIR, RewriteTask, _dumps
from ..rewrite.util import EXAMPLES_PLACEHOLDER
from .parser import REPLY_FIELD

DEFAULT_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite_sentences.v1.jinja"
DEFAULT_GENERALIZE_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite_sentences_generalize.v1.jinja"
DEFAULT_WORDS_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite_words.v1.jinja"


class RewriteSentencesTask(RewriteTask):
    """Regenerate whole sentences under banned phrases (see the module).

    generalize_template (str): The prompt of the last round, which asks for a
        more general sentence.
    fact_guard (bool): Reject a candidate that drops, changes or invents a
        fact (`facts.check_facts`) or turns a word into its opposite
        (`polarity_guard.polarity_flips`).
    words_to_change (bool): The prompt names the words to change
        (`pivots.words_to_change`, input key "change") instead of the phrases;
        the template must be one for that form (`rewrite_words.v1.jinja`).
    Other arguments: `RewriteTask`'s (chunking: one sentence a chunk).
    """

    def __init__(self, *, generalize_template: str, fact_guard: bool = True, words_to_change: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._generalize_template = generalize_template
        self._fact_guard = bool(fact_guard)
        self._words_to_change = bool(words_to_change)

    # --- the loop's API (plain text) ------------------------------------
    def chunks(self, text: str, spans: Any, doc_index: int = 0) -> List[Chunk]:
        """The sentences of `text` (as chunks, `sentences_per_chunk` a chunk),
        each with the text of its neighbours as `context`."""
        chunks = super().chunks(text, spans, doc_index=doc_index)
        out = []
        for i, c in enumerate(chunks):
            before = chunks[i - 1].text if i > 0 and _same_paragraph(text, chunks[i - 1], c) else ""
            after = chunks[i + 1].text if i + 1 < len(chunks) and _same_paragraph(text, c, chunks[i + 1]) else ""
            out.append(dataclasses.replace(c, context=(before, after)))
        return out

    def words_for(self, chunk: Chunk, doc_share: Optional[DocShare] = None) -> Optional[List[str]]:
        """The words the prompt names for `chunk` (`pivots.words_to_change`),
        or None in the phrase form.

        doc_share: token keys -> share of the collection's documents holding
            each, which the choice weighs words by (None: all alike).
        """
        if not self._words_to_change:
            return None
        return words_to_change(chunk.text, chunk.span_offsets, NgramSettings(placeholder=self._placeholder), doc_share)

    def render(self, chunk: Chunk, *, generalize: bool = False, change: Optional[Sequence[str]] = None) -> str:
        """The prompt for one flagged sentence; `generalize`: the last round's,
        which asks for a more general sentence (it names the phrases in both
        forms: the words were changed in vain).

        change: in the words form, the words to name (default: `words_for(chunk)`).
        RAISES: LinkguardError E205 when the template cannot be rendered.
        """
        words = self._words_to_change and not generalize
        template = self._generalize_obj() if generalize else self._template_obj()
        before, after = chunk.context
        ph = self._placeholder
        examples = []
        for eg in self._prompt_examples:
            sentence = eg.sentence.replace(EXAMPLES_PLACEHOLDER, ph)
            eg_change = list(eg.change or _example_words(sentence, tuple(eg.phrases), ph)) if words else None
            examples.append({
                "input_json": _input_json(sentence, eg.before.replace(EXAMPLES_PLACEHOLDER, ph),
                                          eg.after.replace(EXAMPLES_PLACEHOLDER, ph), eg.phrases, change=eg_change),
                "output_json": _dumps({REPLY_FIELD: eg.rewritten.replace(EXAMPLES_PLACEHOLDER, ph)}),
            })
        if words:
            change = self.words_for(chunk) if change is None else change
        else:
            change = None
        try:
            return template.render(
                input_json=_input_json(chunk.text, before, after, self.banned(chunk), change=change),
                sentence=chunk.text, before=before, after=after, phrases=self.banned(chunk), change=change or [],
                placeholder=ph, prompt_examples=examples,
            ).strip()
        except jinja2.TemplateError as e:
            raise LinkguardError(Errors.E205.format(detail=e)) from None

    def banned(self, chunk: Chunk) -> List[str]:
        """The phrases the rewritten sentence must not contain: its flagged
        spans, less those that contain another flagged span (token-wise: a
        sentence without the shorter one has neither)."""
        settings = NgramSettings(placeholder=self._placeholder)
        keys = {p: tuple(k for seg in text_segments(p, settings) for k in seg.keys) for p in chunk.spans}
        return [p for p in chunk.spans if not any(q != p and _inside(keys[q], keys[p]) for q in chunk.spans)]

    def parse(self, reply: Any) -> Optional[str]:
        """The rewritten sentence in one reply, or None (through `parse_responses`)."""
        parsed = list(self._parse_responses(self, [[None]], [[reply]]))  # type: ignore[list-item]
        return list(parsed[0])[0] if parsed else None

    def review(self, chunk: Chunk, prompt: str, reply: Any,
               change: Optional[Sequence[str]] = None) -> Tuple[Optional[str], Optional[str]]:
        """Parse a reply and `check` it.

        RETURNS (Tuple[Optional[str], Optional[str]]): (sentence, None) when
            accepted, (None, reason) when rejected (see `filters.reasons.REASONS`).
        """
        edited = self.parse(reply)
        reason = self.check(chunk, prompt, edited, change=change)
        return (edited, None) if reason is None else (None, reason)

    def check(self, chunk: Chunk, prompt: str, edited: Optional[str],
              change: Optional[Sequence[str]] = None) -> Optional[str]:
        """The task's filters on a candidate sentence (`filters/`, 1-4): the
        reply guards (`f1_reply.py`), the fact guard (`f2_facts.py`) with the
        polarity guard (`f3_polarity.py`) and, given `change` (the words the
        prompt named), the words guard (`f4_kept_words.py`: every other word
        of the sentence kept).

        prompt: the prompt the candidate answers ("" for a model-free candidate).
        RETURNS (Optional[str]): None when accepted, else the reason.
        """
        forbidden = instruction_ngrams(prompt, chunk.text, self._guards.echo_ngram) if prompt else set()
        reason = check_edit(chunk.text, edited, chunk.spans, self._guards, forbidden=forbidden,
                            placeholder=self._placeholder)
        if reason is None and self._fact_guard:
            reason = _fact_reason(chunk, edited)  # type: ignore[arg-type]
        if reason is None and change is not None and dropped_words(chunk.text, change, edited, self._placeholder):
            reason = OTHER_WORDS_CHANGED
        return reason

    @property
    def words_to_change(self) -> bool:
        """Whether the prompt names words to change instead of phrases."""
        return self._words_to_change

    @property
    def _cfg_keys(self) -> List[str]:
        return ["_template", "_generalize_template", "_placeholder", "_field", "_spans_key", "_words_to_change"]

    def _generalize_obj(self) -> jinja2.Template:
        return self._compile(self._generalize_template)


def _fact_reason(chunk: Chunk, edited: str) -> Optional[str]:
    """The fact guard's verdict, then the polarity guard's (a word turned into its opposite)."""
    from ....filters.f2_facts import check_facts
    from ....filters.f3_polarity import polarity_flips

    reason = check_facts(chunk.text, edited, chunk.span_offsets)
    if reason is None and polarity_flips(chunk.text, edited):
        reason = POLARITY_CHANGED
    return reason


def _inside(small: Tuple[str, ...], big: Tuple[str, ...]) -> bool:
    """Whether the token keys `small` occur as a run in `big`."""
    n = len(small)
    return 0 < n <= len(big) and any(big[i : i + n] == small for i in range(len(big) - n + 1))


def _input_json(sentence: str, before: str, after: str, phrases: Sequence[str],
                change: Optional[Sequence[str]] = None) -> str:
    """The prompt's input object: JSON-encoded, so that document text cannot
    close it and pose as instructions; the sentence and its phrases (or, given
    `change`, the words to change instead) first, the context last (a small
    model otherwise starts copying the context); empty context left out."""
    obj: dict = {"sentence": sentence}
    if change is None:
        obj["phrases"] = list(phrases)
    else:
        obj["change"] = list(change)
    if before:
        obj["before"] = before
    if after:
        obj["after"] = after
    return _dumps(obj)


@lru_cache(maxsize=256)
def _example_words(sentence: str, phrases: Tuple[str, ...], placeholder: str) -> Tuple[str, ...]:
    """The words to change of an example without its own `change` list, chosen
    from its phrases as for a document (once per example, not once per prompt)."""
    return tuple(words_to_change(sentence, _offsets(sentence, phrases), NgramSettings(placeholder=placeholder)))


def _offsets(sentence: str, phrases: Sequence[str]) -> List[Tuple[int, int]]:
    """Where each phrase of an example first occurs in its sentence (case-folded;
    validated examples hold every phrase)."""
    folded = sentence.casefold()
    out = []
    for p in phrases:
        i = folded.find(p.casefold())
        if i >= 0:
            out.append((i, i + len(p)))
    return out


def _same_paragraph(text: str, a: Chunk, b: Chunk) -> bool:
    """Whether chunk `b` follows `a` in the same paragraph (no blank line between)."""
    return "\n\n" not in text[a.end : b.start].replace("\r", "")
