"""`prepare`: pick the evaluation documents from a query corpus (seeded, reproducible)."""
from pathlib import Path

import typer

from ._util import fail
from .app import app


@app.command("prepare")
def prepare_cmd(
    queries: Path = typer.Argument(..., help="JSONL query corpus (the released documents d', or texts to de-identify)."),
    out: Path = typer.Argument(..., help="JSONL file to write the chosen documents to."),
    n_docs: int = typer.Option(5, "--n-docs", help="How many documents to evaluate on (0: all)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random choice."),
) -> None:
    """Choose N documents at random (seeded), keep their file order, write them to OUT."""
    from .output import refuse_same_file

    refuse_same_file(out, queries)  # E012: never overwrite the input
    from ..corpus import iter_records, write_records
    from ..errors import Errors, LinkguardError

    try:
        if n_docs < 0:
            raise LinkguardError(Errors.E254.format(name="--n-docs", value=n_docs))
        records = list(iter_records(queries))
        if not records:
            raise LinkguardError(Errors.E011.format(path=queries))
        chosen = choose_documents(len(records), n_docs, seed)
        n = write_records((records[i] for i in chosen), out)
    except LinkguardError as e:
        fail(e)
    typer.echo(f"{n} of {len(records)} document(s) of {queries} -> {out} (seed {seed})", err=True)


def choose_documents(n_total: int, n_docs: int, seed: int) -> list:
    """Indices of `n_docs` documents out of `n_total` (all when n_docs is 0 or too large), sorted."""
    import random

    if n_docs <= 0 or n_docs >= n_total:
        return list(range(n_total))
    return sorted(random.Random(seed).sample(range(n_total), n_docs))
