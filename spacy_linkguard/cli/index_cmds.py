"""`build-index`, `add-docs`, `index-stats`: the N-gram index from the command line."""
import json
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app



@app.command("build-index")
def build_index_cmd(
    corpus: Path = typer.Argument(..., help="JSONL corpus, one {\"id\", \"text\"} object a line."),
    out_dir: Path = typer.Argument(..., help="Index directory to create (an index there is replaced)."),
    max_n: int = typer.Option(8, "--max-n", help="Longest N-gram, in tokens."),
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Masking placeholder (a segment boundary)."),
    memory_budget: str = typer.Option("4GB", "--memory-budget", help=(
        "Working memory for the full layout's sorts, e.g. 4GB, 512MB; the pruned build warns (W051) when it needs "
        "more (~120 bytes per token).")),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
    full: bool = typer.Option(False, "--full", help="Store every N-gram (format 2's layout) instead of the "
                              "pruned layout (frequent N-grams plus each document's tokens; the same answers)."),
    shards: Optional[int] = typer.Option(None, "--shards", help="Write a sharded index of this many shards "
                                         "(split by a hash of the key; it opens as a plain one does)."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Build on a Dask LocalCluster of this many "
                                          "worker processes (sharded; --shards defaults to this number)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Build on the Dask cluster of this "
                                            "scheduler (tcp://HOST:8786); OUT_DIR's folder must be shared by all workers."),
) -> None:
    """Build the N-gram index of a corpus (every 1..max_n-gram -> its documents)."""
    from ..corpus import count_lines, iter_records
    from ..errors import LinkguardError
    from ..index import NgramIndex, open_index

    try:
        if workers is not None or scheduler is not None:
            from ..index.distributed import build_distributed
            from ..ngrams import NgramSettings

            n_shards = shards or max(2, workers or 2)
            build_distributed(corpus, out_dir, NgramSettings(max_n=max_n, placeholder=placeholder),
                              n_shards=n_shards, scheduler=scheduler, n_workers=workers or 2, progress=progress)
            idx = open_index(out_dir)
            typer.echo(f"Indexed {idx.n_docs:,} documents, {idx.n_ngrams:,} distinct N-grams -> {out_dir} "
                       f"({n_shards} shards, built on Dask)")
            return
        records = _Sized(iter_records(corpus), count_lines(corpus)) if corpus.is_file() else iter_records(corpus)
        idx = NgramIndex.build(records, out_dir, max_n=max_n, placeholder=placeholder,
                               memory_budget=memory_budget, progress=progress, full=full, shards=shards)
    except LinkguardError as e:
        fail(e)
    typer.echo(f"Indexed {idx.n_docs:,} documents, {idx.n_ngrams:,} distinct N-grams -> {out_dir}")


@app.command("add-docs")
def add_docs_cmd(
    index_dir: Path = typer.Argument(..., help="An existing index directory."),
    corpus: Path = typer.Argument(..., help="JSONL file with the new documents (new ids)."),
    memory_budget: str = typer.Option("4GB", "--memory-budget", help=(
        "Working memory for the full layout's sorts; a pruned or sharded index warns (W051) when its rebuild "
        "needs more.")),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
) -> None:
    """Add documents to an index; the result equals a full rebuild."""
    from ..corpus import count_lines, iter_records
    from ..errors import LinkguardError
    from ..index import open_index

    try:
        idx = open_index(index_dir)
        before = idx.n_docs
        records = _Sized(iter_records(corpus), count_lines(corpus)) if corpus.is_file() else iter_records(corpus)
        idx = idx.add_documents(records, memory_budget=memory_budget, progress=progress)
    except LinkguardError as e:
        fail(e)
    typer.echo(f"Added {idx.n_docs - before:,} documents: now {idx.n_docs:,} documents, "
               f"{idx.n_ngrams:,} distinct N-grams in {index_dir}")


@app.command("index-stats")
def index_stats_cmd(
    index_dir: Path = typer.Argument(..., help="An index directory."),
    figure: Optional[Path] = typer.Option(
        None, "--figure", help="Also write Figure 2 (posting-list lengths by N, log scale) as a PNG here; "
        "without it nothing is written."),
    no_figure: bool = typer.Option(False, "--no-figure", hidden=True, help="Kept for old scripts: the default now."),
    verify: bool = typer.Option(False, "--verify", help="Check every file's SHA-256 first."),
    as_json: bool = typer.Option(False, "--json", help="Print the stats as one JSON object."),
) -> None:
    """Print an index's counts; with --figure PATH also write Figure 2 (posting-list lengths by N)."""
    from ..errors import LinkguardError
    from ..index import open_index
    from ..index.stats import plot_figure2

    try:
        idx = open_index(index_dir, verify=verify)
        stats = idx.stats()
        if figure is not None and not no_figure:
            stats["figure"] = str(plot_figure2(idx, figure))
    except LinkguardError as e:
        fail(e)
    if as_json:
        typer.echo(json.dumps(stats, sort_keys=True))
        return
    typer.echo(f"index        {index_dir}  (format {stats['format_version']}, {stats['checksum'][:19]}...)")
    typer.echo(f"documents    {stats['n_docs']:,}  ({stats['n_skipped_empty']:,} empty skipped)")
    typer.echo(f"tokens       {stats['n_tokens']:,}")
    typer.echo(f"N-grams      {stats['n_ngrams']:,}  (max_n {stats['settings']['max_n']}, "
               f"placeholder {stats['settings']['placeholder']})")
    if stats["n_shards"] > 1 or stats["layout"] == "sharded":
        typer.echo(f"shards       {stats['n_shards']}  (split by crc32 of the key)")
    share = stats["n_rows"] / stats["n_ngrams"] if stats["n_ngrams"] else 0.0
    typer.echo(f"layout       {stats['layout']}: {stats['n_rows']:,} kept as rows ({share:.1%}), "
               f"{stats['n_pruned']:,} pruned (answered from the documents' tokens)")
    for n, c in stats["n_ngrams_by_n"].items():
        typer.echo(f"  N = {n:<3}    {c:,}")
    typer.echo(f"postings     {stats['n_postings']:,}  (mean list length {stats['mean_postings']:.3f}, "
               f"{stats['share_df1']:.1%} in one document)")
    typer.echo(f"disk         {stats['disk_bytes'] / 2**20:,.1f} MiB  ({stats['bytes_per_token']:.2f} bytes per token, "
               f"{stats['bytes_per_ngram']:.1f} per N-gram)")
    if "figure" in stats:
        typer.echo(f"figure       {stats['figure']}")


class _Sized:
    """An iterator with a length (for the progress bar's total)."""

    def __init__(self, it, n):
        self.it, self.n = it, n

    def __iter__(self):
        return iter(self.it)

    def __len__(self):
        return self.n or 0
