"""The "LLM rewrite, no span list" baseline (the `rewrite-nospans` command).

The baseline is `RewriteLoop` with the `linkguard.RewriteNoSpans.v1` task, no
detector and a fixed number of passes (`linkguard.NoSpanRewrite.v1`, entry
point group `spacy_misc`); the model is the one of a rewrite config
(`[components.linkguard_rewrite.model]`).
"""
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from spacy.util import registry

from ..rewrite import LLMRewriter, RewriteLoop


@registry.misc("linkguard.NoSpanRewrite.v1")
def make_nospan_rewriter(
    passes: int = 2,
    template_path: Optional[str] = None,
    placeholder: str = "[REDACTED]",
    sentences_per_chunk: int = 3,
    max_chunk_chars: int = 1200,
) -> Callable[[Any], RewriteLoop]:
    """linkguard.NoSpanRewrite.v1: the "LLM rewrite, no span list" baseline.

    Returns a function that takes the LLM model (the one the rewrite config
    uses) and gives the `RewriteLoop` of the baseline: no detector, `passes`
    passes, no guarantee mode, no retries, the `linkguard.RewriteNoSpans.v1`
    task. `template_path`: a Jinja prompt file; default `rewrite_nospans.v1.jinja`.
    RAISES: LinkguardError E254 (passes < 1), E206 (missing template).
    """
    from ..errors import Errors, LinkguardError
    from ..llm.tasks.rewrite.task import read_template
    from ..llm.tasks.rewrite_nospans.registry import make_rewrite_nospans_task

    if not isinstance(passes, int) or passes < 1:
        raise LinkguardError(Errors.E254.format(name="passes", value=passes))
    task = make_rewrite_nospans_task(
        template=read_template(template_path) if template_path else None, placeholder=placeholder,
        sentences_per_chunk=sentences_per_chunk, max_chunk_chars=max_chunk_chars,
    )

    def build(model: Any) -> RewriteLoop:
        # Plain spacy-llm models report no tokens: the baseline has always counted words.
        rewriter = LLMRewriter(task, model, max_retries=0, count_words=True)
        return RewriteLoop(None, rewriter, max_passes=passes, guarantee=False)

    return build


def read_config(path: Path):
    """A config file, interpolated. RAISES: LinkguardError E259."""
    from spacy.util import load_config

    from ..errors import Errors, LinkguardError

    try:
        return load_config(path, interpolate=True)
    except Exception as e:  # thinc raises several kinds for bad files
        raise LinkguardError(Errors.E259.format(path=path, detail=e)) from None


def load_model(llm_config: Path):
    """The LLM model of a rewrite config and its config block (the config is read once).

    RAISES: LinkguardError E259 when the config cannot be read or has no model.
    """
    from spacy_llm.registry import registry as llm_registry

    from ..errors import Errors, LinkguardError
    from ..llm.models.describe import model_block

    block = model_block(dict(read_config(llm_config)))
    if block is None:
        raise LinkguardError(Errors.E259.format(path=llm_config, detail="no [components.linkguard_rewrite.model] block with @llm_models"))
    return llm_registry.resolve({"model": dict(block)})["model"], block


def load_nospan_baseline(config: Path, llm_config: Path, *, passes: Optional[int] = None) -> Tuple[RewriteLoop, str]:
    """The baseline's `RewriteLoop` and a description of its model.

    config (Path): The baseline config (a `[baseline]` block, `linkguard.NoSpanRewrite.v1`).
    llm_config (Path): The rewrite config whose LLM model the baseline uses.
    passes (Optional[int]): Overrides the config's number of passes.
    RAISES: LinkguardError E259 (unreadable config, no model), E254, E206.
    """
    from ..llm.local_models import offline_env
    from ..llm.models.describe import describe_model

    offline_env()
    block = dict(read_config(config).get("baseline", {}))
    if passes is not None:
        block["passes"] = passes
    build = registry.resolve({"b": block})["b"]
    model, model_cfg = load_model(llm_config)
    return build(model), describe_model(model_cfg)


def nospan_record(result: Any) -> Dict[str, Any]:
    """The baseline's text and per-pass records (its own compact form) from a `RewriteResult`."""
    return {"text": result.text, "passes": [
        {"pass": p.index, "llm_calls": p.llm_calls, "prompt_tokens": p.prompt_tokens,
         "completion_tokens": p.completion_tokens, "chunks_sent": p.chunks_sent,
         "chunks_rejected": p.chunks_sent - p.chunks_accepted, "seconds": p.seconds}
        for p in result.passes]}


def rewrite_nospans(
    loop: RewriteLoop, records: Sequence[Any], out: Union[str, Path], *, tags: Dict[str, Any],
    batch_docs: int = 4, progress: bool = True,
) -> int:
    """Rewrite every record with the baseline's loop, `batch_docs` documents at a
    time (their chunks are batched together), into the JSONL file `out`.

    Each line: id, text, passes (`nospan_record`), seconds (per document, the
    batch's share) and `tags` (the output-line fields: system, model, k, max_arity).
    The file is written beside `out` and moved there when all is done.
    RETURNS (int): The number of documents.
    """
    from tqdm import tqdm

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        bar = tqdm(total=len(records), file=sys.stderr, disable=not progress, desc="rewrite (no span list)", unit="doc")
        for i in range(0, len(records), batch_docs):
            batch = records[i : i + batch_docs]
            t0 = time.perf_counter()
            results = loop.run([r.text for r in batch], ids=[r.id for r in batch])
            secs = (time.perf_counter() - t0) / len(batch)
            for rec, res in zip(batch, results):
                line = {"id": rec.id, **nospan_record(res), "seconds": secs, **tags}
                f.write(json.dumps(line, ensure_ascii=False) + "\n")
            bar.update(len(batch))
        bar.close()
    tmp.replace(out)
    return len(records)
