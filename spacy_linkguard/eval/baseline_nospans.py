"""The paper's "LLM rewrite, no span list" baseline.

The same model and prompt style as the rewrite loop, but the model is not
told which phrases link: every chunk of the document is sent, with a prompt
asking to rephrase it as a whole, for a fixed number of passes. Replies go
through the loop's own parser and guards; a rejected reply keeps the chunk.
"""
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import jinja2
import jinja2.sandbox

from ..errors import Errors, LinkguardError

DEFAULT_TEMPLATE = Path(__file__).parent.parent / "llm" / "tasks" / "templates" / "rewrite_nospans.v1.jinja"


@dataclass
class NoSpanRewriter:
    """Rewrite whole documents chunk by chunk, without a span list.

    model: a `linkguard.HF.v1` model (or any object with `generate(prompts)`
        returning objects with `text`, `prompt_tokens`, `completion_tokens`,
        or a spacy-llm model callable `model([[prompt, ...]]) -> [[reply, ...]]`).
    passes (int): How many times every chunk is rewritten.
    template (str): Jinja prompt template text (variables: input_json, text, placeholder).
    placeholder (str): What names are replaced with.
    sentences_per_chunk, max_chunk_chars: chunking, as in the rewrite task.
    """

    model: Any
    passes: int = 2
    template: str = ""
    placeholder: str = "[REDACTED]"
    sentences_per_chunk: int = 3
    max_chunk_chars: int = 1200

    def __post_init__(self) -> None:
        if not isinstance(self.passes, int) or self.passes < 1:
            raise LinkguardError(Errors.E254.format(name="passes", value=self.passes))
        if not self.template:
            self.template = DEFAULT_TEMPLATE.read_text(encoding="utf-8")
        env = jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined)
        self._tpl = env.from_string(self.template)

    def render(self, chunk_text: str) -> str:
        """The prompt for one chunk."""
        input_json = json.dumps({"text": chunk_text}, ensure_ascii=False)
        return self._tpl.render(input_json=input_json, text=chunk_text, placeholder=self.placeholder).strip()

    def chunk_bounds(self, text: str) -> List[Tuple[int, int]]:
        """(start, end) of every chunk of `text`, as the rewrite task cuts them."""
        from ..llm.chunking import ChunkSettings, make_chunks

        settings = ChunkSettings(sentences_per_chunk=self.sentences_per_chunk, max_chunk_chars=self.max_chunk_chars)
        # No spans: every chunk is sent, flagged or not.
        return [(c.start, c.end) for c in make_chunks(text, [], settings)]

    def rewrite(self, texts: Sequence[str]) -> List[Dict[str, Any]]:
        """Rewrite documents; chunks are batched across documents within a pass.

        RETURNS (List[dict]): per document {"text", "passes": [per-pass record]}.
        """
        from ..llm.chunking import apply_chunk_edits
        from ..llm.guards import GuardSettings, check_edit, instruction_ngrams
        from ..llm.tasks.rewrite.parser import parse_reply

        guards = GuardSettings()
        current = list(texts)
        records: List[List[Dict[str, Any]]] = [[] for _ in texts]
        for p in range(self.passes):
            jobs: List[Tuple[int, int, int, str, str]] = []
            for d, text in enumerate(current):
                for s, e in self.chunk_bounds(text):
                    chunk = text[s:e]
                    if chunk.strip():
                        jobs.append((d, s, e, chunk, self.render(chunk)))
            t0 = time.perf_counter()
            gens = self._generate([j[4] for j in jobs])
            elapsed = time.perf_counter() - t0
            edits: Dict[int, List[Tuple[int, int, str]]] = {d: [] for d in range(len(texts))}
            stats = [{"pass": p + 1, "llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                      "chunks_sent": 0, "chunks_rejected": 0, "seconds": 0.0} for _ in texts]
            total_chars = sum(len(j[4]) for j in jobs) or 1
            for (d, s, e, chunk, prompt), (reply, n_in, n_out) in zip(jobs, gens):
                st = stats[d]
                st["llm_calls"] += 1
                st["chunks_sent"] += 1
                st["prompt_tokens"] += n_in
                st["completion_tokens"] += n_out
                # Batched generation has no per-document time: share it by prompt length.
                st["seconds"] += elapsed * len(prompt) / total_chars
                edited = parse_reply(reply)
                reason = check_edit(chunk, edited, [], guards,
                                    forbidden=instruction_ngrams(prompt, chunk, guards.echo_ngram))
                if reason is None and edited is not None:
                    edits[d].append((s, e, edited))
                else:
                    st["chunks_rejected"] += 1
            for d in range(len(texts)):
                current[d] = apply_chunk_edits(current[d], edits[d])
                records[d].append(stats[d])
        return [{"text": t, "passes": r} for t, r in zip(current, records)]

    def _generate(self, prompts: List[str]) -> List[Tuple[str, int, int]]:
        if not prompts:
            return []
        if hasattr(self.model, "generate"):
            gens = self.model.generate(prompts)
            return [(g.text, int(g.prompt_tokens), int(g.completion_tokens)) for g in gens]
        replies = list(self.model([prompts]))[0]
        # A plain spacy-llm model reports no token counts: count words instead.
        return [(r, len(p.split()), len(str(r).split())) for p, r in zip(prompts, replies)]


def find_model_block(cfg: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The first block of a config (depth-first) registered as an LLM model (`@llm_models`)."""
    if isinstance(cfg, dict):
        if "@llm_models" in cfg:
            return cfg
        for value in cfg.values():
            found = find_model_block(value)
            if found is not None:
                return found
    return None


def load_model_from_config(path: Path) -> Tuple[Any, Dict[str, Any]]:
    """Build the LLM model that a rewrite config uses (same model for the baseline).

    RETURNS (Tuple[model, block]): the model object and its config block.
    RAISES: LinkguardError E259 when the config cannot be read or has no model.
    """
    from spacy.util import load_config
    from spacy_llm.registry import registry

    try:
        cfg = load_config(path, interpolate=True)
    except Exception as e:  # thinc raises several kinds for bad files
        raise LinkguardError(Errors.E259.format(path=path, detail=e)) from None
    block = find_model_block(dict(cfg))
    if block is None:
        raise LinkguardError(Errors.E259.format(path=path, detail="no block with @llm_models"))
    resolved = registry.resolve({"model": dict(block)})
    return resolved["model"], dict(block)


def describe_model(block: Dict[str, Any]) -> str:
    """A short model description for the report, e.g. "SmolLM2-135M-Instruct.Q4_1.gguf (linkguard.HF.v1, cpu)"."""
    name = block.get("gguf_file") or block.get("name") or "?"
    return f"{Path(str(name)).name} ({block.get('@llm_models')}, {block.get('device', 'auto')})"
