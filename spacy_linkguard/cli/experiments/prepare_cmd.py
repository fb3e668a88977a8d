"""`prepare`: pick the evaluation documents from a query corpus (seeded, reproducible;
`experiments/prepare.py`)."""
from pathlib import Path
from typing import Optional

import typer

from .._util import coded_errors
from ..app import app


@app.command("prepare")
def prepare_cmd(
    queries: Path = typer.Argument(..., help="JSONL query corpus (the released documents d', or texts to de-identify)."),
    out: Path = typer.Argument(..., help="JSONL file to write the chosen documents to."),
    n_docs: int = typer.Option(5, "--n-docs", help="How many documents to evaluate on (0: all)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random choice."),
    shortest: bool = typer.Option(False, "--shortest", help="Take the N shortest documents instead of a random choice (a quick smoke run)."),
    flagged_in: Optional[Path] = typer.Option(None, "--flagged-in", help="A `detect` output: choose among the documents with a flagged span there (so a smoke run gives the rewriter work)."),
    full_run_out: Optional[Path] = typer.Option(None, "--full-run-out", help="Also write this file: the same documents when --n-docs is 0 (a full run), none otherwise (steps that read it run only in a full run)."),
) -> None:
    """Choose N documents at random (seeded) or the N shortest, keep their file order, write them to OUT."""
    from ...experiments.prepare import prepare_queries
    from ..output import refuse_same_file

    with coded_errors():
        refuse_same_file(out, queries)  # E012: never overwrite the input
        refuse_same_file(full_run_out, queries)
        n, n_total = prepare_queries(queries, out, n_docs=n_docs, seed=seed, shortest=shortest, flagged_in=flagged_in,
                                     full_run_out=full_run_out)
    how = "the shortest" if shortest and n < n_total else f"seed {seed}"
    typer.echo(f"{n} of {n_total} document(s) of {queries} -> {out} ({how})", err=True)
