"""`rewrite-nospans`: the "LLM rewrite, no span list" baseline over a query corpus
(`experiments/nospans.py`)."""
from pathlib import Path
from typing import Optional

import typer

from .._util import coded_errors
from ..app import app


@app.command("rewrite-nospans")
def rewrite_nospans_cmd(
    queries: Path = typer.Argument(..., help="JSONL of released documents d'."),
    out: Path = typer.Argument(..., help="JSONL to write: id, text, passes, seconds, system, model, k, max_arity."),
    config: str = typer.Option("baseline_nospans", "--config", help="Baseline config ([baseline] block, linkguard.NoSpanRewrite.v1): a path or a shipped name."),
    llm_config: str = typer.Option("rewrite_cpu", "--llm-config", help="The rewrite config whose LLM model the baseline uses: a path or a shipped name."),
    passes: Optional[int] = typer.Option(None, "--passes", help="Override the config's number of passes."),
    batch_docs: int = typer.Option(4, "--batch-docs", help="Documents whose chunks are batched together."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Rewrite every chunk of every document, without telling the model which phrases link."""
    from ...configs import resolve_config
    from ...corpus import iter_records
    from ...experiments.nospans import load_nospan_baseline, rewrite_nospans
    from ...jobs.tags import output_tags
    from ..output import refuse_same_file

    with coded_errors():
        refuse_same_file(out, queries)  # E012: never overwrite the input
        loop, model = load_nospan_baseline(resolve_config(config), resolve_config(llm_config), passes=passes)
        tags = output_tags(system=loop.rewriter.system, model=model)
        n = rewrite_nospans(loop, list(iter_records(queries)), out, tags=tags, batch_docs=batch_docs, progress=progress)
    typer.echo(f"{n} document(s) -> {out}", err=True)
