"""`detect` and `show`: flag linkable spans of a query corpus against an index."""
from pathlib import Path
from typing import Optional

import typer

from ..attack.ranks import DEFAULT_RANK_MODEL
from ._util import fail, quiet_model_loading
from .app import app
from .release import FlaggedTally, RankTally, verdict_summary, warn_small_index
from .detection_options import (MAX_N_HELP, PLACEHOLDER_HELP, VERDICT_HELP, VERIFY_HELP,  # noqa: F401
                                index_option, k_option, max_arity_option, max_n_option, placeholder_option,
                                span_cost_option, verdict_option, verify_option)

WORKERS_HELP = ("Processes on this machine (they share the memory-mapped index); the output is the same, "
                "in input order. 1: this process only.")
SCHEDULER_HELP = ("Run on the Dask cluster at this address (tcp://HOST:8786, as `build-index --scheduler`): "
                  "documents go out in partitions, lines come back in input order.")

_RANK_HELP = ("Also rank each document's sources (its \"sources\", else its id) among all collection documents "
              "as a search engine would: {where} the best BM25 rank and embedding rank "
              "(1: the source comes out first). Beyond the exact verdict: see docs/threats.md.")
RANK_HELP = _RANK_HELP.format(where="the line's \"rank\" holds")
SHOW_RANK_HELP = _RANK_HELP.format(where="the document's header gives")
RANK_MODEL_HELP = "Sentence-transformers model of the embedding rank; 'none': BM25 only."


def check_limit(limit: Optional[int]) -> None:
    """RAISES: E014 unless `limit` is None or an integer >= 0."""
    from ..errors import Errors, LinkguardError

    if limit is not None and limit < 0:
        raise LinkguardError(Errors.E014.format(name="--limit", expected="a number of documents >= 0", value=limit))


@app.command("detect")
def detect_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = index_option(),
    k: int = k_option(),
    max_arity: int = max_arity_option(),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write JSONL here instead of stdout (never the input)."),
    out: Optional[Path] = typer.Option(None, "--out", hidden=True, help="Deprecated spelling of --output."),
    verdict: str = verdict_option(),
    verify: bool = verify_option(),
    max_n: Optional[int] = max_n_option(),
    placeholder: Optional[str] = placeholder_option(),
    span_cost: str = span_cost_option(),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
    workers: int = typer.Option(1, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    rank: bool = typer.Option(False, "--rank", help=RANK_HELP),
    rank_model: str = typer.Option(DEFAULT_RANK_MODEL, "--rank-model", help=RANK_MODEL_HELP),
) -> None:
    """Flag linkable spans: one JSON line per document (id, safe, verdict, spans, report)."""
    import json
    from collections import Counter
    from contextlib import closing

    from ..corpus import check_records, iter_records
    from ..errors import LinkguardError
    from ..parallel import map_records
    from ..jobs.detection import DetectJob
    from ..parallel.threads import for_detection
    from .output import atomic_output, chosen_output

    if not progress:
        quiet_model_loading()  # --rank's embedding model
    try:
        out = chosen_output(output, out, "--out")
        # Every line checked now (E006-E010), not after --rank's rankers are built (minutes) nor after
        # half of the output lines went to stdout.
        n_records = check_records(queries)
        job = DetectJob(str(index), k=k, max_arity=max_arity, verdict=verdict, verify=verify, max_n=max_n,
                        placeholder=placeholder, span_cost=span_cost, rank=rank, rank_model=rank_model)
        records = iter_records(queries)
        # First, so that the workers' fork server imports while this process does.
        results = map_records(job, records, workers=workers, scheduler=scheduler, progress=progress,
                              desc="detect", total=n_records)  # workers start on the first line
        for_detection()  # before NumPy and spaCy load here
        from ..detect import check_verdict

        check_verdict(verdict)
        detector = job.setup()  # here too: a bad index or setting fails before any document
        warn_small_index(index, detector.index.n_docs, k)  # W300
        flagged = FlaggedTally(k=k, max_arity=max_arity)
        ranks = RankTally()
        n_safe = n = 0
        verdicts: Counter = Counter()
        with atomic_output(out, queries) as sink, closing(results):
            for line, safe, line_verdict in results:
                sink.write(line)
                n += 1
                n_safe += safe
                verdicts[line_verdict] += 1
                obj = json.loads(line)
                flagged.add(obj["id"], obj["report"])
                ranks.add(safe, obj.get("rank"))
    except LinkguardError as e:
        fail(e)
    s = detector.settings
    ranked = f"; {ranks.summary()}" if rank else ""
    typer.echo(f"{n} document(s), {n_safe} safe at k={k}, max_arity={max_arity}, {verdict_summary(verdicts)}"
               f"{ranked} (index settings: max_n={s.max_n}, placeholder={s.placeholder})", err=True)
    flagged.warn()  # W301
    if n == 0:
        from .release import warn_empty

        warn_empty(queries, "detect", f"wrote no line to {out or 'stdout'}")


@app.command("show")
def show_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = index_option(),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="The HTML page to write; default: stdout (`show ... > page.html`)."),
    out: Optional[Path] = typer.Option(None, "--out", hidden=True, help="Deprecated spelling of --output."),
    k: int = k_option(),
    max_arity: int = max_arity_option(),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N documents."),
    verdict: str = verdict_option(),
    verify: bool = verify_option(),
    max_n: Optional[int] = max_n_option(),
    placeholder: Optional[str] = placeholder_option(),
    span_cost: str = span_cost_option(),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
    workers: int = typer.Option(1, "--workers", help=WORKERS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
    rank: bool = typer.Option(False, "--rank", help=SHOW_RANK_HELP),
    rank_model: str = typer.Option(DEFAULT_RANK_MODEL, "--rank-model", help=RANK_MODEL_HELP),
) -> None:
    """Write a static HTML page with every document's flagged spans and their evidence."""
    from ..parallel.threads import for_detection

    for_detection()  # before NumPy and spaCy load
    from contextlib import closing
    from itertools import islice

    from ..corpus import count_lines, iter_records
    from ..display import render_items
    from ..errors import LinkguardError
    from ..parallel import map_records
    from ..index import open_index
    from ..jobs.detection import ShowJob
    from .output import chosen_output, refuse_same_file, write_text_atomic

    if not progress:
        quiet_model_loading()  # --rank's embedding model
    try:
        out = chosen_output(output, out, "--out")  # None: the page goes to stdout, like every command's output
        check_limit(limit)
        refuse_same_file(out, queries)
        job = ShowJob(str(index), k=k, max_arity=max_arity, verdict=verdict, verify=verify, max_n=max_n,
                      placeholder=placeholder, span_cost=span_cost, rank=rank, rank_model=rank_model)
        records = list(islice(iter_records(queries), limit))
        total = len(records) if limit is not None else count_lines(queries)
        with closing(map_records(job, records, workers=workers, scheduler=scheduler, progress=progress,
                                 desc="show", total=total)) as results:
            job.setup()  # here too: a bad index or setting fails before any document
            warn_small_index(index, open_index(index).n_docs, k)  # W300 (the index opened once per process)
            items = list(results)
        flagged = FlaggedTally(k=k, max_arity=max_arity)
        ranks = RankTally()
        for item in items:
            flagged.add(item["id"], item["report"])
            ranks.add(bool(item["safe"]), item.get("rank"))
        flagged.warn()  # W301
        if out is not None and out.parent != Path("") and not out.parent.exists():
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass  # reported by write_text_atomic as E013
        write_text_atomic(out, render_items(items), queries)
    except LinkguardError as e:
        fail(e)
    ranked = f", {sum(bool(i['safe']) for i in items)} safe; {ranks.summary()}" if rank else ""
    typer.echo(f"{len(items)} document(s){ranked} -> {out or 'stdout'}", err=True)
    if not items:
        from .release import warn_empty

        warn_empty(queries, "show", f"wrote a page with no document to {out or 'stdout'}")
