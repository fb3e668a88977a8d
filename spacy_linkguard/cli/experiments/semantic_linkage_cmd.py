"""`semantic-linkage`: the paper's Figure 3 -- embedding search after redacting a growing share of words."""
from pathlib import Path
from typing import List

import typer

from ._util import fail
from .app import app


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
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Word replacement."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
) -> None:
    """How often the original stays in the top k of the collection by embedding cosine (Wilson 95%)."""
    import hashlib
    import json
    import random

    import numpy as np
    from tqdm import tqdm

    from ..corpus import iter_records
    from ..errors import Errors, LinkguardError
    from ..eval.semantic_linkage import LevelResult, hits_at_k, parse_levels, plot_figure3, redact_words, target_ranks
    from ..eval.similarity import Embedder
    from ..eval.systems import read_output_objects

    try:
        level_list = parse_levels(levels)
        k_list = sorted({int(x) for x in ks.split(",") if x.strip()})
        if not k_list or k_list[0] < 1:
            raise LinkguardError(Errors.E254.format(name="--ks", value=ks))
        coll = list(iter_records(collection))
        pos = {r.id: i for i, r in enumerate(coll)}
        qs = list(iter_records(queries))
        if max_queries > 0:
            qs = qs[:max_queries]
        for q in qs:
            if q.id not in pos:
                raise LinkguardError(Errors.E257.format(doc_id=q.id, path=collection))
        targets = [pos[q.id] for q in qs]
        emb = Embedder(model)
        coll_emb = None
        cache_file = None
        if cache_dir:
            digest = hashlib.sha256(collection.read_bytes()).hexdigest()[:16]
            cache_file = Path(cache_dir) / f"collection-{digest}-{Path(model).name}.npy"
            if cache_file.is_file():
                coll_emb = np.load(cache_file)
        if coll_emb is None:
            typer.echo(f"embedding {len(coll)} collection documents with {model}", err=True)
            coll_emb = emb.embed([r.text for r in coll], truncate=True, progress=progress)
            if cache_file:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                np.save(cache_file, coll_emb)
        results_levels = []
        for level in tqdm(level_list, desc="redaction levels", disable=not progress):
            rng = random.Random(f"{seed}-{level}")
            texts = [redact_words(q.text, level, rng, placeholder) for q in qs]
            ranks = target_ranks(emb.embed(texts, truncate=True), coll_emb, targets)
            results_levels.append(LevelResult(level, len(qs), hits_at_k(ranks, k_list)).to_dict())
        systems = {}
        for spec in system:
            name, _, path = spec.partition("=")
            objs = list(read_output_objects(Path(path)).values())
            for o in objs:
                if o["id"] not in pos:
                    raise LinkguardError(Errors.E257.format(doc_id=o["id"], path=collection))
            if not objs:
                continue
            sys_targets = [pos[o["id"]] for o in objs]
            ranks = target_ranks(emb.embed([o["text"] for o in objs], truncate=True), coll_emb, sys_targets)
            systems[name] = LevelResult(0.0, len(objs), hits_at_k(ranks, k_list)).to_dict()
    except LinkguardError as e:
        fail(e)
    result = {"model": model, "n_queries": len(qs), "n_collection": len(coll), "ks": k_list,
              "levels": results_levels, "systems": systems, "seed": seed, "queries": str(queries),
              # 0% redacted is each query as given: already de-identified or the original text.
              "queries_with_placeholder": sum(placeholder in q.text for q in qs), "placeholder": placeholder}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    figure.parent.mkdir(parents=True, exist_ok=True)
    plot_figure3(result, str(figure))
    for lv in results_levels:
        rates = "  ".join(f"top-{k} {lv['by_k'][str(k)]['rate']:.3f}" for k in k_list)
        typer.echo(f"redacted {lv['level']:.0%}: {rates}", err=True)
    typer.echo(f"results -> {out}, figure -> {figure}", err=True)

