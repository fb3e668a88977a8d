"""`detect` and `show`: flag linkable spans of a query corpus against an index."""
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .app import app


def _fail(e: Exception) -> None:
    typer.echo(str(e), err=True)
    raise typer.Exit(code=1)


@app.command("detect")
def detect_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = typer.Option(..., "--index", help="N-gram index folder of the original collection."),
    k: int = typer.Option(2, "--k", help="A phrase set singles out when it matches 1..k-1 documents."),
    max_arity: int = typer.Option(3, "--max-arity", help="1: single N-grams; 2-3: combinations too."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write JSONL here instead of stdout."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Flag linkable spans: one JSON line per document (id, safe, spans, report)."""
    from tqdm import tqdm

    from ..corpus import count_lines, iter_records
    from ..detect import Detector
    from ..errors import LinkguardError
    from ..index import NgramIndex

    try:
        detector = Detector(NgramIndex.load(index), k=k, max_arity=max_arity)
        records = iter_records(queries)
        sink = out.open("w", encoding="utf-8") if out else sys.stdout
        n_safe = n = 0
        try:
            bar = tqdm(records, total=count_lines(queries), file=sys.stderr, disable=not progress,
                       desc="detect", unit="doc")
            for rec in bar:
                res = detector.detect(rec.text)
                line = {"id": rec.id, **res.to_dict()}
                sink.write(json.dumps(line, ensure_ascii=False) + "\n")
                n += 1
                n_safe += res.safe
        finally:
            if out:
                sink.close()
    except LinkguardError as e:
        _fail(e)
    typer.echo(f"{n} document(s), {n_safe} safe at k={k}, max_arity={max_arity}", err=True)


@app.command("show")
def show_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = typer.Option(..., "--index", help="N-gram index folder of the original collection."),
    out: Path = typer.Option(Path("report.html"), "--out", help="The HTML page to write."),
    k: int = typer.Option(2, "--k", help="A phrase set singles out when it matches 1..k-1 documents."),
    max_arity: int = typer.Option(3, "--max-arity", help="1: single N-grams; 2-3: combinations too."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N documents."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Write a static HTML page with every document's flagged spans and their evidence."""
    from itertools import islice

    import spacy
    from spacy.symbols import ORTH
    from tqdm import tqdm

    from ..corpus import count_lines, iter_records
    from ..display import render_report
    from ..errors import LinkguardError
    from ..pipeline import factories  # noqa: F401 -- registers "linkguard" even without entry points
    from ..pipeline.linkguard import open_index

    try:
        settings = open_index(index).settings
        nlp = spacy.blank("en")
        # Keep the placeholder one token on the page, as the detector does.
        nlp.tokenizer.add_special_case(settings.placeholder, [{ORTH: settings.placeholder}])
        nlp.add_pipe("linkguard", config={"index": str(index), "k": k, "max_arity": max_arity,
                                          "max_n": settings.max_n, "placeholder": settings.placeholder})
        records = list(islice(iter_records(queries), limit))
        total = len(records) if limit else count_lines(queries)
        docs = []
        pairs = ((r.text, {"id": r.id}) for r in records)
        bar = tqdm(nlp.pipe(pairs, as_tuples=True), total=total, file=sys.stderr, disable=not progress,
                   desc="show", unit="doc")
        for doc, ctx in bar:
            doc.user_data["id"] = ctx["id"]
            docs.append(doc)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_report(docs), encoding="utf-8")
    except LinkguardError as e:
        _fail(e)
    typer.echo(f"{len(docs)} document(s) -> {out}", err=True)
