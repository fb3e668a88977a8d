"""`RewriteSpansTask`: the model returns one replacement per flagged span; we edit the chunk.

Writing the whole chunk back is most of a v1 reply's tokens, and a small model
drifts while copying it (drops clauses, repeats sentences). Here it writes
only `{"replacements": [{"span": ..., "replacement": ...}]}` with the chunk as
context, and `apply_replacements` puts them in place, so the rest of the chunk
cannot change. Overlapping or adjacent flagged spans are merged into one
region first (`merge_spans`): the model is asked for one replacement per
region, so no two replacements compete for the same words. The edited chunk
then passes the same guards as a v1 reply (against the original spans).
Everything else (chunks, prompts from a sandboxed template, the spacy-llm
API) is `RewriteTask`'s.
"""
from typing import Any, List, Optional, Sequence, Tuple

import jinja2

from ....errors import Errors, LinkguardError
from ...chunking import Chunk
from ....filters.f1_reply import check_edit, instruction_ngrams
from ..rewrite.task import TEMPLATES_DIR, RewriteTask, _dumps
from ..rewrite.util import EXAMPLES_PLACEHOLDER
from .parser import REPLACEMENT_KEY, REPLY_FIELD, SPAN_KEY, Replacement, apply_replacements, merge_spans

DEFAULT_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite_spans.v1.jinja"


class RewriteSpansTask(RewriteTask):
    """Rewrite flagged spans through one replacement per span (see the module)."""

    def render(self, chunk: Chunk) -> str:
        """The prompt for one flagged chunk: its merged regions are the spans listed.

        RAISES: LinkguardError E205 when the template cannot be rendered.
        """
        return self._render(chunk.text, self.regions(chunk))

    @staticmethod
    def regions(chunk: Chunk) -> List[str]:
        """The distinct texts of the chunk's merged span regions, in order."""
        seen: List[str] = []
        for s, e in merge_spans(chunk.text, chunk.span_offsets):
            if chunk.text[s:e] not in seen:
                seen.append(chunk.text[s:e])
        return seen

    def parse(self, reply: Any) -> Optional[List[Replacement]]:  # type: ignore[override]
        """The replacements in one reply, or None (through `parse_responses`)."""
        parsed = list(self._parse_responses(self, [[None]], [[reply]]))  # type: ignore[list-item]
        return list(parsed[0])[0] if parsed else None

    def edit(self, chunk: Chunk, reply: Any) -> Tuple[Optional[str], int]:
        """The chunk with the reply's replacements in place (None: unparsable
        reply) and how many replacements were applied; with the guard
        `reject_redaction`, a replacement that writes the placeholder is left out."""
        items = self.parse(reply)
        if items is None:
            return None, 0
        refuse = self._placeholder if self._guards.reject_redaction else ""
        return apply_replacements(chunk.text, merge_spans(chunk.text, chunk.span_offsets), items, refuse=refuse)

    def review(self, chunk: Chunk, prompt: str, reply: Any) -> Tuple[Optional[str], Optional[str]]:
        """Parse a reply, apply it to `chunk` and check the result with the guards.

        RETURNS (Tuple[Optional[str], Optional[str]]): (edited chunk, None) when
            accepted, (None, reason) when rejected (see `filters.reasons.REASONS`).
        """
        edited, _ = self.edit(chunk, reply)
        forbidden = instruction_ngrams(prompt, chunk.text, self._guards.echo_ngram)
        reason = check_edit(chunk.text, edited, chunk.spans, self._guards, forbidden=forbidden,
                            placeholder=self._placeholder)
        return (edited, None) if reason is None else (None, reason)

    def _render(self, text: str, spans: Sequence[str]) -> str:
        ph = self._placeholder
        examples = []
        for eg in self._prompt_examples:
            news = [r.replace(EXAMPLES_PLACEHOLDER, ph) for r in eg.replacements]
            examples.append({
                "input_json": _dumps({"text": eg.text.replace(EXAMPLES_PLACEHOLDER, ph), "spans": eg.spans}),
                "output_json": _dumps({REPLY_FIELD: [
                    {SPAN_KEY: s, REPLACEMENT_KEY: r} for s, r in zip(eg.spans, news)
                ]}),
                "text": eg.text,
                "spans": eg.spans,
                "replacements": news,
            })
        try:
            return self._template_obj().render(
                input_json=_dumps({"text": text, "spans": list(spans)}),
                text=text,
                spans=list(spans),
                placeholder=ph,
                prompt_examples=examples,
            ).strip()
        except jinja2.TemplateError as e:
            raise LinkguardError(Errors.E205.format(detail=e)) from None
