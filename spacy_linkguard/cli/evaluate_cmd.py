"""`evaluate`: score every approach's outputs (SPEC.md "Metrics") into one results JSON."""
from pathlib import Path
from typing import List, Optional

import typer

from ._util import fail
from .app import app


def _pairs(values: List[str], option: str) -> List[tuple]:
    out = []
    for v in values:
        if "=" not in v:
            raise typer.BadParameter(f"expected KEY=VALUE, got {v!r}", param_hint=option)
        key, _, val = v.partition("=")
        out.append((key.strip(), val.strip()))
    return out


@app.command("evaluate")
def evaluate_cmd(
    queries: Path = typer.Argument(..., help="JSONL of the released documents d' (the rewrite steps' input)."),
    out: Path = typer.Argument(..., help="Results JSON to write (read by `report`)."),
    index: Path = typer.Option(..., "--index", help="N-gram index folder of the original collection."),
    system: List[str] = typer.Option([], "--system", help="KEY=OUTPUT.jsonl, repeatable; keys: llm_nospans, wordnet, llm_a1, llm_a3, lexical_a3."),
    row_model: List[str] = typer.Option([], "--row-model", help="KEY=model description named in that row, repeatable."),
    llm_config: Optional[Path] = typer.Option(None, "--llm-config", help="The rewrite config of the LLM rows (names their model)."),
    k: int = typer.Option(2, "--k", help="A phrase set singles out when it matches 1..k-1 documents."),
    max_arity: int = typer.Option(3, "--max-arity", help="Largest combination arity for 'arity <= m' columns."),
    sim_models: str = typer.Option("all-MiniLM-L6-v2,paraphrase-distilroberta-base-v2,gte-modernbert-base", "--sim-models", help="Comma-separated sentence-transformers models; those not installed are reported as unavailable."),
    ppl_model: str = typer.Option("gemma3-270m", "--ppl-model", help="Causal LM for perplexity: a short name under --models-dir, a folder or a .gguf file; 'none' to skip."),
    models_dir: Path = typer.Option(Path("models"), "--models-dir", help="Where `fetch-models` extracted local models."),
    ppl_max_length: int = typer.Option(1024, "--ppl-max-length", help="Perplexity window in tokens."),
    ppl_cache: Optional[Path] = typer.Option(None, "--ppl-cache", help="Perplexity cache JSONL (see the `perplexity` command): scores found there are not recomputed; new ones are added."),
    setting: List[str] = typer.Option([], "--setting", help="NAME=VALUE recorded in the report's settings table, repeatable."),
    dataset: str = typer.Option("", "--dataset", help="Dataset name (echr, wiki) for the paper's reference numbers."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
) -> None:
    """Linkable proportion (arity 1, <= m), document linkage rate, similarity, perplexity, cost."""
    import datetime
    import json
    import warnings

    from ..about import __version__
    from ..corpus import iter_records
    from ..detect import Detector
    from ..errors import LinkguardError, LinkguardWarning, Warnings
    from ..eval.evaluate import evaluate_systems
    from ..eval.similarity import Embedder, locate_model
    from ..index import open_index
    from ..paths import portable_path
    from .output import write_text_atomic

    try:
        systems = _pairs(system, "--system")
        row_models = default_row_models(llm_config)
        row_models.update(_pairs(row_model, "--row-model"))
        settings = dict(_pairs(setting, "--setting"))
        queries_list = list(iter_records(queries))
        idx = open_index(index)
        arities = sorted({1, max_arity})
        detectors = {m: Detector(idx, k=k, max_arity=m) for m in arities}
        embedders, model_info, unavailable = [], [], {}
        for name in [m.strip() for m in sim_models.split(",") if m.strip()]:
            avail = locate_model(name)
            if avail.available:
                embedders.append(Embedder(name))
                model_info.append({"name": name, "available": True, "path": portable_path(avail.path)})
            else:
                warnings.warn(Warnings.W250.format(name=name, reason=avail.reason), LinkguardWarning)
                unavailable[name] = avail.reason
                model_info.append({"name": name, "available": False, "reason": avail.reason})
        scorer = None
        if ppl_model.lower() != "none":
            from ..eval.perplexity import PerplexityScorer

            scorer = PerplexityScorer(ppl_model, models_dir=models_dir, max_length=ppl_max_length,
                                      stride=ppl_max_length // 2, cache=ppl_cache)
        results = evaluate_systems(
            queries_list, systems, detectors=detectors, embedders=embedders, unavailable_models=unavailable,
            scorer=scorer, row_models=row_models, queries_path=str(queries), progress=progress,
        )
    except LinkguardError as e:
        fail(e)
    stats = idx.stats()
    results.update(
        dataset=dataset,
        version=__version__,
        created=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        n_docs=len(queries_list),
        similarity_models=model_info,
        perplexity_model=({"name": ppl_model, "file": portable_path(scorer.file),
                           "cached": scorer.n_cached, "computed": scorer.n_computed} if scorer else None),
        index={"path": portable_path(index), "n_docs": stats.get("n_docs"), "checksum": stats.get("checksum"),
               "n_ngrams": stats.get("n_ngrams"), "mean_postings": stats.get("mean_postings")},
        settings={"dataset": dataset, "queries": portable_path(queries), "k": k, "max_arity": max_arity, **settings},
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, json.dumps(results, indent=1, ensure_ascii=False), queries)
    for row in results["systems"]:
        typer.echo(f"{row['label']:<40} a1 {_f(row.get('linkable_prop_a1'))}  a{max_arity} "
                   f"{_f(row.get('linkable_prop_a' + str(max_arity)))}  linkage rate "
                   f"{_f(row.get('linkage_rate_a' + str(max_arity)))}", err=True)
    typer.echo(f"results -> {out}", err=True)


def default_row_models(llm_config: Optional[Path]) -> dict:
    """The model named in each row: the LLM of the rewrite config for LLM rows."""
    lexical = "WordNet 3.0 + en_core_web_sm + all-MiniLM-L6-v2 (no LLM)"
    models = {"input": "\u2013", "wordnet": lexical, "lexical_a3": lexical}
    if llm_config is not None and llm_config.is_file():
        from spacy.util import load_config

        from ..eval.baseline_nospans import describe_model, find_model_block

        block = find_model_block(dict(load_config(llm_config, interpolate=False)))
        if block is not None:
            for key in ("llm_nospans", "llm_a1", "llm_a3"):
                models[key] = describe_model(block)
    return models


def _f(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"
