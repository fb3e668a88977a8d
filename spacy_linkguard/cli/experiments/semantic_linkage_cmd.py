"""`semantic-linkage`: the paper's Figure 3 -- embedding search after redacting a growing
share of words (`experiments/semantic_linkage.py`)."""
from pathlib import Path
from typing import List, Optional

import typer

from .._util import coded_errors
from ..app import app


@app.command("semantic-linkage")
def semantic_linkage_cmd(
    queries: Path = typer.Argument(..., help="JSONL query documents; each id must be in the collection."),
    collection: Path = typer.Argument(..., help="JSONL collection of original documents."),
    out: Path = typer.Argument(..., help="Results JSON to write."),
    figure: Path = typer.Option(..., "--figure", help="PNG to write Figure 3 to."),
    model: str = typer.Option("all-MiniLM-L6-v2", "--model", help="sentence-transformers model (installed; nothing is downloaded)."),
    levels: str = typer.Option("0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "--levels", help="Shares of words to redact."),
    ks: str = typer.Option("1,10", "--ks", help="Top-k cut-offs, comma-separated."),
    max_queries: int = typer.Option(0, "--max-queries", help="Use at most this many queries (0: all)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the word choice."),
    system: List[str] = typer.Option([], "--system", help="NAME=OUTPUT.jsonl: also rank these rewritten documents (no extra redaction)."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="Folder to cache collection embeddings in."),
    committed: Optional[Path] = typer.Option(None, "--committed", help="Folder of a full run's outputs: a --system file covering only some queries (a smoke run) is replaced by the file of the same name there."),
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Word replacement."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
) -> None:
    """How often the original stays in the top k of the collection by embedding cosine (Wilson 95%)."""
    import json

    from ...experiments.semantic_linkage import parse_ks, parse_levels, plot_figure3, run_semantic_linkage

    with coded_errors():
        result = run_semantic_linkage(
            queries, collection, model=model, levels=parse_levels(levels), ks=parse_ks(ks),
            max_queries=max_queries, seed=seed, systems=[(s.partition("=")[0], s.partition("=")[2]) for s in system],
            cache_dir=cache_dir, placeholder=placeholder, progress=progress, committed=committed,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1), encoding="utf-8")
        figure.parent.mkdir(parents=True, exist_ok=True)
        plot_figure3(result, str(figure))
    for lv in result["levels"]:
        rates = "  ".join(f"top-{k} {lv['by_k'][str(k)]['rate']:.3f}" for k in result["ks"])
        typer.echo(f"redacted {lv['level']:.0%}: {rates}", err=True)
    typer.echo(f"results -> {out}, figure -> {figure}", err=True)
