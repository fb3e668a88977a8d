"""`rewrite-nospans`: the "LLM rewrite, no span list" baseline over a query corpus."""
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app


@app.command("rewrite-nospans")
def rewrite_nospans_cmd(
    queries: Path = typer.Argument(..., help="JSONL of released documents d'."),
    out: Path = typer.Argument(..., help="JSONL to write: id, text, passes."),
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

    from spacy.util import load_config, registry
    from tqdm import tqdm

    from ..corpus import iter_records
    from ..errors import Errors, LinkguardError
    from ..eval import registry as _registry  # noqa: F401 -- registers linkguard.NoSpanRewrite.v1
    from ..eval.baseline_nospans import describe_model, load_model_from_config
    from ..llm.local_models import offline_env

    offline_env()
    try:
        try:
            cfg = load_config(config, interpolate=True)
        except Exception as e:  # thinc raises several kinds for bad files
            raise LinkguardError(Errors.E259.format(path=config, detail=e)) from None
        block = dict(cfg.get("baseline", {}))
        if passes is not None:
            block["passes"] = passes
        build = registry.resolve({"b": block})["b"]
        model, model_block = load_model_from_config(llm_config)
        rewriter = build(model)
        records = list(iter_records(queries))
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            bar = tqdm(total=len(records), file=sys.stderr, disable=not progress, desc="rewrite (no span list)", unit="doc")
            for i in range(0, len(records), batch_docs):
                batch = records[i : i + batch_docs]
                t0 = time.perf_counter()
                results = rewriter.rewrite([r.text for r in batch])
                secs = (time.perf_counter() - t0) / len(batch)
                for rec, res in zip(batch, results):
                    line = {"id": rec.id, "text": res["text"], "passes": res["passes"], "seconds": secs,
                            "model": describe_model(model_block)}
                    f.write(json.dumps(line, ensure_ascii=False) + "\n")
                bar.update(len(batch))
            bar.close()
        tmp.replace(out)
    except LinkguardError as e:
        fail(e)
    typer.echo(f"{len(records)} document(s) -> {out}", err=True)
