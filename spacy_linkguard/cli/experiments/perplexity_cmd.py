"""`perplexity`: score texts with the perplexity LM into a cache that `evaluate` reads.

Perplexity is the evaluation's most expensive metric (a forward pass of a
causal LM over every output). This command computes it where a GPU is (or
ahead of time) and writes the scores to a `PerplexityCache` file; `evaluate
--ppl-cache` then reads them and computes only what is missing
(`experiments/perplexity.py`).
"""
from pathlib import Path
from typing import List

import typer

from .._util import coded_errors
from ..app import app


@app.command("perplexity")
def perplexity_cmd(
    files: List[Path] = typer.Argument(..., help="JSONL files whose records' `text` are scored (queries or rewrite outputs)."),
    cache: Path = typer.Option(..., "--cache", help="Cache JSONL file, read and extended (pass the same file to `evaluate --ppl-cache`)."),
    ppl_model: str = typer.Option("gemma3-270m", "--ppl-model", help="Causal LM: a short name under --models-dir, a folder or a .gguf file."),
    models_dir: Path = typer.Option(Path("models"), "--models-dir", help="Where `fetch-models` extracted local models."),
    ppl_max_length: int = typer.Option(1024, "--ppl-max-length", help="Perplexity window in tokens (as in `evaluate`)."),
    device: str = typer.Option("cpu", "--device", help="torch device, e.g. cpu or cuda."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Score the `text` of every record of FILES; print how many were cached and computed."""
    import statistics

    from ...experiments.perplexity import PerplexityScorer, record_texts

    with coded_errors():
        texts = record_texts(files)
        scorer = PerplexityScorer(ppl_model, models_dir=models_dir, max_length=ppl_max_length,
                                  stride=ppl_max_length // 2, device=device, cache=cache)
        values = [v for v in scorer.perplexities(texts, progress=progress) if v is not None]
    typer.echo(f"{len(texts)} texts: {scorer.n_cached} from the cache, {scorer.n_computed} computed"
               f"{f'; median perplexity {statistics.median(values):.2f}' if values else ''} -> {cache}", err=True)
