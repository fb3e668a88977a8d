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
    system: List[str] = typer.Option([], "--system", help="OUTPUT.jsonl, repeatable: its row comes from the system and max_arity its lines record (e.g. llm at 2 -> llm_a2). KEY=OUTPUT.jsonl names the row (keys: input, llm_nospans, wordnet, llm_a1, llm_a<m>, lexical_a<m>)."),
    row_model: List[str] = typer.Option([], "--row-model", help="KEY=model description named in that row, repeatable (default: the model the row's lines record)."),
    k: Optional[int] = typer.Option(None, "--k", help="A phrase set singles out when it matches 1..k-1 documents (default: the k the outputs record, else 2)."),
    max_arity: Optional[int] = typer.Option(None, "--max-arity", help="Largest combination arity m for the 'arity <= m' columns, 1..3 (default: the largest the outputs record, else 3)."),
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
    from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
    from ..eval.evaluate import evaluate_systems
    from ..eval.systems import PAPER_ARITY, lines_setting, system_files
    from ..eval.similarity import Embedder, locate_model
    from ..index import open_index
    from ..paths import portable_path
    from .output import write_text_atomic

    try:
        files = system_files(system)
        tags = [t for _, _, t in files]
        k = k if k is not None else (lines_setting(tags, "k") or 2)
        max_arity = max_arity if max_arity is not None else (lines_setting(tags, "max_arity") or PAPER_ARITY)
        if max_arity not in (1, 2, 3):
            raise LinkguardError(Errors.E283.format(name="--max-arity", expected="1, 2 or 3", value=max_arity))
        systems = [(key, path) for key, path, _ in files]
        row_models = {"input": "\u2013", **dict(_pairs(row_model, "--row-model"))}
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
            max_arity=max_arity,
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


def _f(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"
