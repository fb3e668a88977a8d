"""`report`: the evaluation report (Markdown and HTML) from the results of `evaluate`."""
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app


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
    import os
    import shutil

    from ..errors import LinkguardError
    from ..eval.report import load_reference, load_results, render_report, write_displacy_pages

    try:
        res = load_results(results)
        sem = load_results(semantic) if semantic else None
    except LinkguardError as e:
        fail(e)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = {}
    for name, path in (("figure2", figure2), ("figure3", figure3)):
        if path is None or not path.is_file():
            figures[name] = None
            continue
        target = out_dir / f"{name}.png"
        if path.resolve() != target.resolve():
            shutil.copyfile(path, target)
        figures[name] = os.path.relpath(target, out_dir)
    links = write_displacy_pages(res, out_dir, max_docs=max_doc_pages)
    pages = render_report(res, load_reference(), figures=figures, doc_links=links, semantic=sem)
    (out_dir / "report.md").write_text(pages["md"], encoding="utf-8")
    (out_dir / "report.html").write_text(pages["html"], encoding="utf-8")
    typer.echo(f"report -> {out_dir / 'report.md'}, {out_dir / 'report.html'}", err=True)
