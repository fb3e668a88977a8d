"""`rewrite-nospans`: the "LLM rewrite, no span list" baseline over a query corpus.

The baseline is `RewriteLoop` with the `linkguard.RewriteNoSpans.v1` task, no
detector and a fixed number of passes (`linkguard.NoSpanRewrite.v1`); the model
is the one of a rewrite config (`[components.linkguard_rewrite.model]`).
"""
from pathlib import Path
from typing import Any, Dict, Optional

import typer

from ._util import fail
from .app import app


@app.command("rewrite-nospans")
def rewrite_nospans_cmd(
    queries: Path = typer.Argument(..., help="JSONL of released documents d'."),
    out: Path = typer.Argument(..., help="JSONL to write: id, text, passes, seconds, system, model, k, max_arity."),
    config: Path = typer.Option(Path("configs/baseline_nospans.cfg"), "--config", help="Baseline config ([baseline] block, linkguard.NoSpanRewrite.v1)."),
    llm_config: Path = typer.Option(Path("configs/rewrite_cpu.cfg"), "--llm-config", help="The rewrite config whose LLM model the baseline uses."),
    passes: Optional[int] = typer.Option(None, "--passes", help="Override the config's number of passes."),
    batch_docs: int = typer.Option(4, "--batch-docs", help="Documents whose chunks are batched together."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Rewrite every chunk of every document, without telling the model which phrases link."""
    from .output import refuse_same_file

    refuse_same_file(out, queries)  # E012: never overwrite the input
    import json
    import sys
    import time

    from spacy.util import registry
    from tqdm import tqdm

    from ..corpus import iter_records
    from ..errors import LinkguardError
    from ..eval import registry as _registry  # noqa: F401 -- registers linkguard.NoSpanRewrite.v1
    from ..llm.local_models import offline_env
    from ..llm.models.describe import describe_model
    from .output import output_tags

    offline_env()
    try:
        block = dict(read_config(config).get("baseline", {}))
        if passes is not None:
            block["passes"] = passes
        build = registry.resolve({"b": block})["b"]
        model, model_cfg = load_model(llm_config)
        loop = build(model)
        tags = output_tags(system=loop.rewriter.system, model=describe_model(model_cfg))
        records = list(iter_records(queries))
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
    except LinkguardError as e:
        fail(e)
    typer.echo(f"{len(records)} document(s) -> {out}", err=True)


def nospan_record(result: Any) -> Dict[str, Any]:
    """The baseline's text and per-pass records (its own compact form) from a `RewriteResult`."""
    return {"text": result.text, "passes": [
        {"pass": p.index, "llm_calls": p.llm_calls, "prompt_tokens": p.prompt_tokens,
         "completion_tokens": p.completion_tokens, "chunks_sent": p.chunks_sent,
         "chunks_rejected": p.chunks_sent - p.chunks_accepted, "seconds": p.seconds}
        for p in result.passes]}


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
    from spacy_llm.registry import registry

    from ..errors import Errors, LinkguardError
    from ..llm.models.describe import model_block

    block = model_block(dict(read_config(llm_config)))
    if block is None:
        raise LinkguardError(Errors.E259.format(path=llm_config, detail="no [components.linkguard_rewrite.model] block with @llm_models"))
    return registry.resolve({"model": dict(block)})["model"], block
