"""`evaluate`: score every approach's outputs (SPEC.md "Metrics") into one results JSON
(`experiments/evaluate.py`)."""
from pathlib import Path
from typing import List, Optional

import typer

from ...attack.ranks import DEFAULT_RANK_MODEL
from .._util import coded_errors
from ..app import app


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
    ppl_missing: str = typer.Option("compute", "--ppl-missing", help="Perplexities not in --ppl-cache: 'compute' them here, or 'skip' them: read only the cache (scores made on a GPU by `perplexity --device cuda`) and leave a row with a text not there without perplexity (a CPU takes tens of seconds a long document)."),
    setting: List[str] = typer.Option([], "--setting", help="NAME=VALUE recorded in the report's settings table, repeatable."),
    dataset: str = typer.Option("", "--dataset", help="Dataset name (echr, wiki) for the paper's reference numbers."),
    committed: Optional[Path] = typer.Option(None, "--committed", help="Folder of a full run's LLM outputs (e.g. reports/echr-qwen25-gpu/outputs): an LLM output covering only some queries is scored from the file of the same name there, marked with what its PROVENANCE.json says, and shown as a smoke-test row over its own documents."),
    span_docs: int = typer.Option(5, "--span-docs", min=0, help="Documents per approach (the first) whose remaining linkable spans are kept in the results for the report's displaCy pages (`report --max-doc-pages`)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr."),
    rank: bool = typer.Option(True, "--rank/--no-rank", help="Rank each output's sources among the collection with the ranking attackers (BM25, embedding): the rows' top-1 and top-10 rates."),
    rank_model: str = typer.Option(DEFAULT_RANK_MODEL, "--rank-model", help="Sentence-transformers model of the embedding attacker; 'none': BM25 only."),
    collection: Optional[Path] = typer.Option(None, "--collection", help="The JSONL the index was built from: the embedding attacker embeds its texts (default: the file named by --setting collection=..., else the index's own words)."),
    rank_cache: Optional[Path] = typer.Option(None, "--rank-cache", help="Folder caching the collection's embeddings (the semantic-linkage step's cache; default: cache/ beside the results JSON)."),
) -> None:
    """Linkable proportion (arity 1, <= m), document linkage rate under the source
    and any verdicts, placeholders added, similarity, perplexity (and relative to
    the input's), cost."""
    import json

    from ...experiments.evaluate import run_evaluation
    from ..output import write_text_atomic

    if ppl_missing not in ("compute", "skip"):
        raise typer.BadParameter(f"expected compute or skip, got {ppl_missing!r}", param_hint="--ppl-missing")
    row_models = dict(_pairs(row_model, "--row-model"))
    settings = dict(_pairs(setting, "--setting"))
    if collection is None and settings.get("collection") and Path(settings["collection"]).is_file():
        collection = Path(settings["collection"])
    with coded_errors():
        results = run_evaluation(
            queries, index, system, k=k, max_arity=max_arity,
            sim_models=[m.strip() for m in sim_models.split(",") if m.strip()],
            ppl_model=ppl_model, models_dir=models_dir, ppl_max_length=ppl_max_length, ppl_cache=ppl_cache,
            row_models=row_models, settings=settings, dataset=dataset, progress=progress, committed=committed,
            ppl_cache_only=ppl_missing == "skip", span_docs=span_docs,
            rank_model=rank_model if rank else None, collection=collection,
            rank_cache=rank_cache if rank_cache is not None else out.parent / "cache",
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(out, json.dumps(results, indent=1, ensure_ascii=False), queries)
    m = results["settings"]["max_arity"]
    for row in results["systems"]:
        typer.echo(f"{row['label']:<40} a1 {_f(row.get('linkable_prop_a1'))}  a{m} "
                   f"{_f(row.get('linkable_prop_a' + str(m)))}  linkage rate a{m} source "
                   f"{_f(row.get(f'linkage_rate_a{m}_source'))} any "
                   f"{_f(row.get(f'linkage_rate_a{m}'))}", err=True)
    if results.get("n_without_sources"):
        typer.echo(f"{results['n_without_sources']} of {results['n_docs']} queries have no known sources: "
                   "they count under any in the source rates", err=True)
    typer.echo(f"results -> {out}", err=True)


def _f(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"
