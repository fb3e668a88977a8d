"""`rewrite`: LLM rewriting of a JSONL corpus until no phrase links it back.

    python -m spacy_linkguard rewrite QUERY.jsonl --index DIR -o out.jsonl
    python -m spacy_linkguard rewrite QUERY.jsonl --index DIR --backend lexical -o out.jsonl
    python -m spacy_linkguard rewrite QUERY.jsonl --index DIR --config rewrite_qwen3 -o out.jsonl

`--config` is a .cfg path or the name of a shipped config (spacy_linkguard/configs/);
without it, `--backend` picks rewrite_cpu (llm) or rewrite_lexical (lexical).

One JSON line per document: id, text (the released text), safe, verdict and
sources, passes, forced_redactions, and what made it: system, model, k, max_arity. Config values can be overridden spaCy-style, e.g.
`--components.linkguard_rewrite.max_passes 3`.
"""
from pathlib import Path
from typing import Optional

import typer

from ._util import coded_errors, extra_argument_error, quiet_model_loading, stray_argument
from .app import app
from .detect_cmds import SCHEDULER_HELP, WORKERS_HELP
from .detection_options import (index_option, k_option, max_arity_option, max_n_option, placeholder_option,
                                verdict_option, verify_option)

BACKEND_CONFIGS = {"llm": "rewrite_cpu", "lexical": "rewrite_lexical"}  # shipped configs by --backend


@app.command(
    "rewrite",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def rewrite_cmd(
    ctx: typer.Context,
    queries: Path = typer.Argument(..., help="JSONL of de-identified documents {\"id\", \"text\"}."),
    index: Path = index_option(),
    config: Optional[str] = typer.Option(None, "--config", "-c", help="Rewrite config: a .cfg path or a shipped "
                                         "name (rewrite_cpu, rewrite_qwen3, rewrite_qwen25_1p5b, ...); "
                                         "default: the --backend's."),
    backend: str = typer.Option("llm", "--backend", help="llm: an LLM rewrites the flagged spans (default config "
                                "rewrite_cpu); lexical: WordNet synonyms, no LLM (rewrite_lexical). Both run "
                                "the same detect/rewrite/re-detect loop with guarantee mode."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout (never the input)."),
    component: str = typer.Option("linkguard_rewrite", "--component", help="Name of the rewrite component in the config."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N documents."),
    k: Optional[int] = k_option(None, note="Default: the config's (2 in the shipped ones)."),
    max_arity: Optional[int] = max_arity_option(None, note="Default: the config's (3 in the shipped ones)."),
    verdict: str = verdict_option(),
    verify: bool = verify_option(),
    max_n: Optional[int] = max_n_option(),
    placeholder: Optional[str] = placeholder_option(),
    wordnet: Optional[Path] = typer.Option(None, "--wordnet", help="With the lexical backend: the WordNet "
                                           "database folder (default: $WNSEARCHDIR or /usr/share/wordnet)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Progress bar on stderr."),
    workers: int = typer.Option(1, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    checkpoint: bool = typer.Option(False, "--checkpoint", help="Keep each finished line in OUTPUT.partial "
                                    "as it comes; run the same command again after a stop (Ctrl-C, a lost "
                                    "machine) and it goes on after them. Needs --output."),
) -> None:
    """Rewrite every document until it is safe (guarantee mode redacts the rest)."""
    from contextlib import ExitStack, closing
    from itertools import islice

    from ..configs import resolve_config
    from ..errors import Errors, LinkguardError
    from .detect_cmds import check_limit
    from .output import atomic_output, refuse_same_file
    from .preflight import check_rewrite_models, config_overrides

    if not progress:
        quiet_model_loading()
    with coded_errors():  # a bad config, index or model: its message, no traceback
        extra = stray_argument(ctx.args)  # `rewrite IN OUT`: E300 (-o OUT), not a bad config override
        if extra is not None:
            raise extra_argument_error(ctx, extra)
        check_limit(limit)
        if backend not in BACKEND_CONFIGS:
            raise LinkguardError(Errors.E014.format(name="--backend", expected="llm or lexical", value=backend))
        config = resolve_config(config if config is not None else BACKEND_CONFIGS[backend])
        refuse_same_file(output, queries)
        refuse_same_file(output, config)
        # A missing model or WordNet now, in well under a second, not after the pipeline loaded (E200, E280).
        check_rewrite_models(config, component, config_overrides(ctx.args), wordnet)
        from spacy.cli._util import parse_config_overrides

        from ..corpus import check_records, iter_records
        from ..detect import check_verdict
        from ..jobs.rewrite import RewriteJob, rewrite_tags
        from ..parallel import map_records
        from .checkpoint import checkpoint_path
        from .detection_options import check_index_settings
        from .release import ReleaseTally, warn_small_index

        check_verdict(verdict)
        if checkpoint:
            checkpoint_path(output)  # E018 before the model loads
        overrides = parse_config_overrides(ctx.args)
        overrides.update(detection_overrides(component, k=k, max_arity=max_arity))
        if wordnet is not None:
            overrides.update(wordnet_override(config, component, wordnet))  # E021 for an LLM config
        total = check_records(queries, limit)  # a bad line fails now, not after half the output went out
        job = RewriteJob(str(config), str(index), overrides, component=component, verdict=verdict, verify=verify)
        nlp, _ = job.setup()  # the pipeline (its model loads on first use): a bad config or index fails here
        idx = check_index_settings(index, max_n=max_n, placeholder=placeholder)  # E003 (setup verified the bytes)
        check_backend(nlp.get_pipe(component), backend, config, ctx)  # E220: --backend against the config
        cfg = nlp.get_pipe(component).cfg
        tally = ReleaseTally(k=cfg["k"], max_arity=cfg["max_arity"])
        warn_small_index(index, idx.n_docs, cfg["k"])  # W300
        with ExitStack() as stack:
            done = 0
            if checkpoint:
                ck = resumed_checkpoint(output, queries, limit, rewrite_tags(nlp, component))
                stack.enter_context(ck)
                done = len(ck.done)
            records = islice(iter_records(queries), done, limit)
            lines = map_records(job, records, workers=workers, scheduler=scheduler, chunk_size=job.batch_size,
                                progress=progress, desc="rewrite", total=None if total is None else total - done)
            out = stack.enter_context(atomic_output(output, queries, config))  # replaced before the checkpoint goes
            stack.enter_context(closing(lines))
            for line in ck.lines(lines) if checkpoint else lines:
                out.write(line)
                out.flush()
                tally.add_line(line)
    typer.echo(f"{tally.n} document(s) rewritten, {tally.summary()}; {tally.forced} span(s) "
               f"redacted by guarantee mode -> {output or 'stdout'}", err=True)
    tally.warn(queries, "rewrite", wrote=f"wrote no line to {output or 'stdout'}")


def detection_overrides(component: str, *, k: Optional[int], max_arity: Optional[int]) -> dict:
    """Config overrides for --k and --max-arity (when given): the component's detection settings."""
    given = {"k": k, "max_arity": max_arity}
    return {f"components.{component}.{name}": v for name, v in given.items() if v is not None}


def wordnet_override(config: Path, component: str, wordnet: Path) -> dict:
    """The config override for --wordnet: the database folder of the component's
    WordNet paraphraser ([components.<component>.rewriter.lexical]).

    RAISES: E021 when the config has no such block (an LLM rewriter reads no WordNet)."""
    from spacy import util

    from ..errors import Errors, LinkguardError

    cfg = util.load_config(config, interpolate=False)
    rewriter = cfg.get("components", {}).get(component, {}).get("rewriter")
    if not (isinstance(rewriter, dict) and isinstance(rewriter.get("lexical"), dict)):
        raise LinkguardError(Errors.E021.format(path=wordnet, config=config, component=component))
    return {f"components.{component}.rewriter.lexical.wordnet_dir": str(wordnet)}


def resumed_checkpoint(output: Path, queries: Path, limit: Optional[int], tags: dict):
    """The run's Checkpoint (`checkpoint.py`), checked against the input's first
    documents; says on stderr how many it goes on after.

    RAISES: E018 (no --output), E019 (the checkpoint is another run's)."""
    import sys
    from itertools import islice

    from ..corpus import iter_records
    from .checkpoint import Checkpoint, check_checkpoint

    ck = Checkpoint(output)
    n = len(ck.done) if limit is None else min(len(ck.done), limit)
    check_checkpoint(ck.path, ck.done, [rec.id for rec in islice(iter_records(queries), n)], tags)
    if ck.done:
        print(f"Going on after the {len(ck.done)} finished document(s) in {ck.path}.", file=sys.stderr)
    return ck


def check_backend(pipe, backend: str, config: Path, ctx: typer.Context) -> None:
    """RAISES: E220 when --backend was given and the config's component has the other backend."""
    from ..errors import Errors, LinkguardError

    # By name: typer vendors its own click, whose ParameterSource is not click's.
    if getattr(ctx.get_parameter_source("backend"), "name", None) != "COMMANDLINE":
        return
    has = "llm" if getattr(pipe.rewriter, "task", None) is not None else "lexical"
    if has != backend:
        raise LinkguardError(Errors.E220.format(backend=backend, config=config, has=has,
                                                default=BACKEND_CONFIGS[backend]))
