"""`RewriteTask`: prompts that ask a model to rephrase flagged spans of a chunk.

Two ways in:
- the rewrite loop (`spacy_linkguard.rewrite`) calls `chunks`, `render` and
  `review` on plain text, chunk by chunk, across many documents;
- spacy-llm's `llm` component calls `generate_prompts` / `parse_responses`
  on Docs whose flagged spans are in `doc.spans[spans_key]` (one pass, no
  re-detection); the result goes to `doc._.<field>`.
"""
import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Type

import jinja2
import jinja2.sandbox
from spacy.language import Language
from spacy.tokens import Doc
from spacy_llm.tasks.builtin_task import BuiltinTask
from spacy_llm.ty import TaskResponseParser

from ....errors import Errors, LinkguardError
from ...chunking import Chunk, ChunkSettings, apply_chunk_edits, make_chunks
from ....filters.f1_reply import GuardSettings, check_edit, instruction_ngrams
from .util import EXAMPLES_PLACEHOLDER, RewriteExample

TEMPLATES_DIR = Path(__file__).parent.parent / "templates"
DEFAULT_TEMPLATE_PATH = TEMPLATES_DIR / "rewrite.v1.jinja"


def read_template(path=DEFAULT_TEMPLATE_PATH) -> str:
    """The text of a prompt template file. RAISES: LinkguardError E206."""
    path = Path(path)
    if not path.is_file():
        raise LinkguardError(Errors.E206.format(kind="prompt template", path=path))
    return path.read_text(encoding="utf-8")


class RewriteTask(BuiltinTask):
    """Rewrite the flagged spans of a text, a chunk of a few sentences at a time."""

    def __init__(
        self,
        *,
        template: str,
        prompt_examples: Optional[List[RewriteExample]],
        prompt_example_type: Type[RewriteExample],
        parse_responses: TaskResponseParser,
        placeholder: str,
        field: str,
        spans_key: str,
        chunking: ChunkSettings,
        guards: GuardSettings,
    ):
        super().__init__(
            parse_responses=parse_responses,
            prompt_example_type=prompt_example_type,
            template=template,
            prompt_examples=prompt_examples,
            shard_mapper=None,  # type: ignore[arg-type]  # we chunk ourselves
            shard_reducer=None,  # type: ignore[arg-type]
        )
        self._placeholder = placeholder
        self._field = field
        self._spans_key = spans_key
        self._chunking = chunking
        self._guards = guards
        if not Doc.has_extension(field):
            Doc.set_extension(field, default=None)

    # --- the loop's API (plain text) ------------------------------------
    def chunks(self, text: str, spans: Iterable[Tuple[int, int]], doc_index: int = 0) -> List[Chunk]:
        """All chunks of `text`; those holding spans are `flagged`."""
        return make_chunks(text, spans, self._chunking, doc_index=doc_index)

    def render(self, chunk: Chunk) -> str:
        """The prompt for one flagged chunk.

        RAISES: LinkguardError E205 when the template cannot be rendered.
        """
        return self._render(chunk.text, chunk.spans)

    def parse(self, reply: Any) -> Optional[str]:
        """The edited chunk in one reply, or None (through `parse_responses`)."""
        parsed = list(self._parse_responses(self, [[None]], [[reply]]))  # type: ignore[list-item]
        return list(parsed[0])[0] if parsed else None

    def review(self, chunk: Chunk, prompt: str, reply: Any) -> Tuple[Optional[str], Optional[str]]:
        """Parse and check a reply to `prompt` for `chunk`.

        RETURNS (Tuple[Optional[str], Optional[str]]): (edited chunk, None) when
            accepted, (None, reason) when rejected (see `filters.reasons.REASONS`).
        """
        edited = self.parse(reply)
        forbidden = instruction_ngrams(prompt, chunk.text, self._guards.echo_ngram)
        reason = check_edit(chunk.text, edited, chunk.spans, self._guards, forbidden=forbidden,
                            placeholder=self._placeholder)
        return (edited, None) if reason is None else (None, reason)

    # --- spacy-llm's task API (Docs) ----------------------------------------
    def generate_prompts(
        self, docs: Iterable[Doc], context_length: Optional[int] = None
    ) -> Iterable[Tuple[List[str], List[Doc]]]:
        """One prompt per flagged chunk of each Doc (its spans in
        `doc.spans[spans_key]`). A Doc without flagged chunks gets one empty
        prompt, which `linkguard.HF.v1` answers without running the model,
        so that the Doc still comes back through `parse_responses`."""
        for doc in docs:
            flagged = [c for c in self._doc_chunks(doc) if c.flagged]
            prompts = [self.render(c) for c in flagged] or [""]
            yield prompts, [doc] * len(prompts)

    def parse_responses(self, shards: Iterable[Iterable[Doc]], responses: Iterable[Iterable[Any]]) -> Iterable[Doc]:
        """Write the reviewed edits of each Doc's chunks to `doc._.<field>`;
        rejected replies leave their chunk unchanged."""
        for shards_for_doc, replies in zip(shards, responses):
            doc = list(shards_for_doc)[0]
            flagged = [c for c in self._doc_chunks(doc) if c.flagged]
            edits = []
            for chunk, reply in zip(flagged, replies):
                edited, _ = self.review(chunk, self.render(chunk), reply)
                if edited is not None:
                    edits.append((chunk.start, chunk.end, edited))
            setattr(doc._, self._field, apply_chunk_edits(doc.text, edits))
            yield doc

    def initialize(
        self,
        get_examples,
        nlp: Language,
        n_prompt_examples: int = 0,
    ) -> None:
        """Add up to `n_prompt_examples` few-shot examples from `get_examples`."""
        super()._initialize(get_examples=get_examples, nlp=nlp, n_prompt_examples=n_prompt_examples)

    @property
    def _cfg_keys(self) -> List[str]:
        return ["_template", "_placeholder", "_field", "_spans_key"]

    # --- accessors ------------------------------------------------------------
    @property
    def placeholder(self) -> str:
        return self._placeholder

    @property
    def field(self) -> str:
        return self._field

    @property
    def spans_key(self) -> str:
        return self._spans_key

    @property
    def chunking(self) -> ChunkSettings:
        return self._chunking

    @property
    def guards(self) -> GuardSettings:
        return self._guards

    @property
    def prompt_examples(self) -> List[RewriteExample]:
        return list(self._prompt_examples)

    # --- helpers --------------------------------------------------------------
    def _doc_chunks(self, doc: Doc) -> List[Chunk]:
        spans = [(s.start_char, s.end_char) for s in doc.spans.get(self._spans_key, [])]
        return self.chunks(doc.text, spans)

    def _template_obj(self) -> jinja2.Template:
        return self._compile(self._template)

    def _compile(self, text: str) -> jinja2.Template:
        """`text` as a sandboxed Jinja template, compiled once per text (the
        last few kept). RAISES: LinkguardError E205 when it does not compile."""
        cache = self.__dict__.setdefault("_compiled_templates", {})
        if text not in cache:
            # Sandboxed: a template from a config file cannot reach Python internals.
            env = jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined)
            try:
                compiled = env.from_string(text)
            except jinja2.TemplateError as e:
                raise LinkguardError(Errors.E205.format(detail=e)) from None
            if len(cache) >= 4:
                cache.clear()
            cache[text] = compiled
        return cache[text]

    def _render(self, text: str, spans: Sequence[str]) -> str:
        ph = self._placeholder
        examples = [
            {
                "input_json": _dumps({"text": eg.text.replace(EXAMPLES_PLACEHOLDER, ph), "spans": eg.spans}),
                "reasoning": eg.reasoning.replace(EXAMPLES_PLACEHOLDER, ph),
                "output_json": _dumps({"text": eg.rewritten.replace(EXAMPLES_PLACEHOLDER, ph)}),
                "text": eg.text,
                "spans": eg.spans,
                "rewritten": eg.rewritten,
            }
            for eg in self._prompt_examples
        ]
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


def _dumps(obj: Dict[str, Any]) -> str:
    # JSON-encoding the chunk escapes quotes and line breaks, so document text
    # cannot close the input object and pose as part of the instructions.
    return json.dumps(obj, ensure_ascii=False)

