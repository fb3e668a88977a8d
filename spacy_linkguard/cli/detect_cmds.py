"""`detect` and `show`: flag linkable spans of a query corpus against an index."""
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app

VERIFY_HELP = "Check every byte of the index (SHA-256) before using it; cheap checks run anyway."
MAX_N_HELP = "Expected max_n of the index (E003 if it differs); default: the index's."
PLACEHOLDER_HELP = "Expected placeholder of the index (E003 if it differs); default: the index's."
VERDICT_HELP = ("source: a search links only when it finds one of the document's sources (a line's \"sources\", "
                "else its id when the index holds it); any: every search with fewer than k results links; "
                "auto: source when the sources are known, else any.")
WORKERS_HELP = ("Processes on this machine (they share the memory-mapped index); the output is the same, "
                "in input order. 1: this process only.")


def line_sources(detector, verdict: str, rec) -> "Optional[list]":
    """The sources a corpus line is detected with under `verdict` (None: any).

    RAISES: LinkguardError E107 (verdict), E108 (source, but none known).
    """
    from ..detect import resolve_sources

    return resolve_sources(verdict, rec.sources, rec.id, detector.has_document,
                           what=f"line {rec.line} (id {rec.id!r})")


def verdict_summary(counts: "dict") -> str:
    """"verdict source for 3, any for 1" from {"source": 3, "any": 1}."""
    return "verdict " + ", ".join(f"{v} for {n}" for v, n in sorted(counts.items()) if n)



def check_limit(limit: Optional[int]) -> None:
    """RAISES: E014 unless `limit` is None or an integer >= 0."""
    from ..errors import Errors, LinkguardError

    if limit is not None and limit < 0:
        raise LinkguardError(Errors.E014.format(name="--limit", expected="a number of documents >= 0", value=limit))


@app.command("detect")
def detect_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = typer.Option(..., "--index", help="N-gram index folder of the original collection."),
    k: int = typer.Option(2, "--k", help="A phrase set singles out when it matches 1..k-1 documents."),
    max_arity: int = typer.Option(3, "--max-arity", help="1: single N-grams; 2-3: combinations too."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write JSONL here instead of stdout (never the input)."),
    verdict: str = typer.Option("auto", "--verdict", help=VERDICT_HELP),
    verify: bool = typer.Option(False, "--verify", help=VERIFY_HELP),
    max_n: Optional[int] = typer.Option(None, "--max-n", help=MAX_N_HELP),
    placeholder: Optional[str] = typer.Option(None, "--placeholder", help=PLACEHOLDER_HELP),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
    workers: int = typer.Option(1, "--workers", help=WORKERS_HELP),
) -> None:
    """Flag linkable spans: one JSON line per document (id, safe, verdict, spans, report)."""
    from collections import Counter
    from contextlib import closing

    from ..corpus import count_lines, iter_records
    from ..detect import check_verdict
    from ..errors import LinkguardError
    from ..parallel import map_records
    from ..parallel.jobs import DetectJob
    from .output import atomic_output

    try:
        check_verdict(verdict)
        job = DetectJob(str(index), k=k, max_arity=max_arity, verdict=verdict, verify=verify, max_n=max_n,
                        placeholder=placeholder)
        detector = job.setup()  # here too: a bad index or setting fails before any worker starts
        records = iter_records(queries)
        n_safe = n = 0
        verdicts: Counter = Counter()
        results = map_records(job, records, workers=workers, progress=progress, desc="detect",
                              total=count_lines(queries))
        with atomic_output(out, queries) as sink, closing(results):
            for line, safe, line_verdict in results:
                sink.write(line)
                n += 1
                n_safe += safe
                verdicts[line_verdict] += 1
    except LinkguardError as e:
        fail(e)
    s = detector.settings
    typer.echo(f"{n} document(s), {n_safe} safe at k={k}, max_arity={max_arity}, {verdict_summary(verdicts)} "
               f"(index settings: max_n={s.max_n}, placeholder={s.placeholder})", err=True)


@app.command("show")
def show_cmd(
    queries: Path = typer.Argument(..., help="JSONL corpus of released documents, one {\"id\", \"text\"} a line."),
    index: Path = typer.Option(..., "--index", help="N-gram index folder of the original collection."),
    out: Path = typer.Option(Path("report.html"), "--out", help="The HTML page to write."),
    k: int = typer.Option(2, "--k", help="A phrase set singles out when it matches 1..k-1 documents."),
    max_arity: int = typer.Option(3, "--max-arity", help="1: single N-grams; 2-3: combinations too."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N documents."),
    verdict: str = typer.Option("auto", "--verdict", help=VERDICT_HELP),
    verify: bool = typer.Option(False, "--verify", help=VERIFY_HELP),
    max_n: Optional[int] = typer.Option(None, "--max-n", help=MAX_N_HELP),
    placeholder: Optional[str] = typer.Option(None, "--placeholder", help=PLACEHOLDER_HELP),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Write a static HTML page with every document's flagged spans and their evidence."""
    from itertools import islice

    import spacy
    from spacy.symbols import ORTH
    from tqdm import tqdm

    from ..corpus import count_lines, iter_records
    from ..display import render_report
    from ..errors import LinkguardError
    from ..index import open_index
    from ..pipeline import factories  # noqa: F401 -- registers "linkguard" even without entry points
    from .output import refuse_same_file, write_text_atomic

    try:
        check_limit(limit)
        refuse_same_file(out, queries)
        nlp = spacy.blank("en")
        linkguard = nlp.add_pipe("linkguard", config={"k": k, "max_arity": max_arity, "max_n": max_n,
                                                      "placeholder": placeholder, "verify": verify,
                                                      "verdict": verdict})
        linkguard.initialize(nlp=nlp, index=open_index(index, verify=verify))
        # Keep the placeholder one token on the page, as the detector does.
        ph = linkguard.settings.placeholder  # the index's
        nlp.tokenizer.add_special_case(ph, [{ORTH: ph}])
        records = list(islice(iter_records(queries), limit))
        total = len(records) if limit is not None else count_lines(queries)
        # The page only tokenizes: spaCy's max_length (a memory guard for
        # parsers) need not refuse a long document here.
        nlp.max_length = max([nlp.max_length] + [len(r.text) + 1 for r in records])
        docs = []
        detector = linkguard.detector
        bar = tqdm(records, total=total, file=sys.stderr, disable=not progress, desc="show", unit="doc")
        for rec in bar:
            doc = nlp.make_doc(rec.text)
            doc.user_data["id"] = rec.id
            doc._.linkguard_sources = line_sources(detector, verdict, rec)
            for _, proc in nlp.pipeline:
                doc = proc(doc)
            docs.append(doc)
        if out.parent != Path("") and not out.parent.exists():
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass  # reported by write_text_atomic as E013
        write_text_atomic(out, render_report(docs), queries)
    except LinkguardError as e:
        fail(e)
    typer.echo(f"{len(docs)} document(s) -> {out}", err=True)
