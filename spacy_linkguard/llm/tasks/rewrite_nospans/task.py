"""`NoSpanRewriteTask`: the paper's "LLM rewrite, no span list" baseline as a task.

The same model, chunking, parser and guards as `linkguard.Rewrite.v1`, but the
model is not told which phrases link: every non-blank chunk is flagged as a
whole (`Chunk.whole`) and the prompt asks to rephrase it as a whole. Run it in
`RewriteLoop` without a detector, for a fixed number of passes and without
guarantee mode (`linkguard.NoSpanRewrite.v1` builds that loop).
"""
from dataclasses import replace
from typing import Any, Iterable, List, Optional, Tuple

import jinja2

from ....errors import Errors, LinkguardError
from ...chunking import Chunk, make_chunks
from ....filters.f1_reply import check_edit, instruction_ngrams
from ..rewrite.task import TEMPLATES_DIR, RewriteTask, _dumps

DEFAULT_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite_nospans.v1.jinja"


class NoSpanRewriteTask(RewriteTask):
    """Rephrase every chunk of a text as a whole, without a span list."""

    system = "llm_nospans"

    def chunks(self, text: str, spans: Iterable[Tuple[int, int]] = (), doc_index: int = 0) -> List[Chunk]:
        """All chunks of `text`; every non-blank one is flagged as a whole (spans are ignored)."""
        return [replace(c, span_offsets=(), whole=bool(c.text.strip()))
                for c in make_chunks(text, [], self._chunking, doc_index=doc_index)]

    def render(self, chunk: Chunk) -> str:
        """The prompt for one chunk: its text only (variables: input_json, text, placeholder)."""
        try:
            return self._template_obj().render(
                input_json=_dumps({"text": chunk.text}), text=chunk.text, placeholder=self._placeholder
            ).strip()
        except jinja2.TemplateError as e:
            raise LinkguardError(Errors.E205.format(detail=e)) from None

    def review(self, chunk: Chunk, prompt: str, reply: Any) -> Tuple[Optional[str], Optional[str]]:
        """Parse and check a reply; no span must disappear, and (as the baseline
        always did) the placeholder is not exempt from the new-details check."""
        edited = self.parse(reply)
        forbidden = instruction_ngrams(prompt, chunk.text, self._guards.echo_ngram)
        reason = check_edit(chunk.text, edited, [], self._guards, forbidden=forbidden)
        return (edited, None) if reason is None else (None, reason)
