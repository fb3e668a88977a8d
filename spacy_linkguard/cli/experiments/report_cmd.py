"""`report`: the evaluation report (Markdown and HTML) from the results of `evaluate`
(`experiments/report.py`)."""
from pathlib import Path
from typing import Optional

import typer

from .._util import coded_errors
from ..app import app


@app.command("report")
def report_cmd(
    results: Path = typer.Argument(..., help="Results JSON written by `evaluate`."),
    out_dir: Path = typer.Argument(..., help="Folder for report.md, report.html and the displaCy pages."),
    figure2: Optional[Path] = typer.Option(None, "--figure2", help="Figure 2 PNG (from `index-stats --figure`)."),
    figure3: Optional[Path] = typer.Option(None, "--figure3", help="Figure 3 PNG (from `semantic-linkage`)."),
    semantic: Optional[Path] = typer.Option(None, "--semantic", help="Results JSON of `semantic-linkage`."),
    max_doc_pages: int = typer.Option(5, "--max-doc-pages", help="displaCy pages per approach."),
) -> None:
    """Write OUT_DIR/report.md and OUT_DIR/report.html in the paper's table layout."""
    from ...experiments.report import write_report

    with coded_errors():
        written = write_report(results, out_dir, figure2=figure2, figure3=figure3, semantic=semantic,
                               max_doc_pages=max_doc_pages)
    typer.echo(f"report -> {written['md']}, {written['html']}", err=True)
