"""`review`: a static HTML page that shows each changed paragraph of a rewrite
beside its input, to be read before the text is released (`review/`)."""
from pathlib import Path
from typing import Optional

import typer

from ._util import fail
from .app import app
from .detect_cmds import check_limit


@app.command("review")
def review_cmd(
    queries: Path = typer.Argument(..., help="JSONL of the documents the rewrite read, one {\"id\", \"text\"} a line."),
    rewritten: Path = typer.Argument(..., help="The rewrite's output (`rewrite -o`, `paraphrase -o`): JSONL with "
                                     "id and text, and where written safe, verdict and forced_redactions."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="The HTML page to write; default: stdout."),
    placeholder: Optional[str] = typer.Option(None, "--placeholder", help="The redaction placeholder, counted "
                                              "where the rewrite added or left it out (default: [REDACTED])."),
    all_paragraphs: bool = typer.Option(False, "--all-paragraphs", help="Show the unchanged paragraphs too."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N rewritten documents."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Write a page that shows every changed paragraph of a rewrite beside its
    input, the words that changed and the words the input does not ground
    marked, and per document the paragraphs to read first: facts changed,
    ungrounded words or text dropped or added, then placeholders alone.
    Needs WordNet (wordnet-base, or $WNSEARCHDIR) for the ungrounded words."""
    import sys
    from itertools import islice

    from tqdm import tqdm

    from ..corpus import count_lines, iter_json_lines, iter_records, record_from_obj, require_file
    from ..errors import Errors, LinkguardError
    from ..grounding import Grounder
    from ..ngrams import DEFAULT_PLACEHOLDER  # spaCy: loaded here, so that `--help` stays light
    from ..review import render_review, review_item
    from .output import refuse_same_file, write_text_atomic

    try:
        check_limit(limit)
        refuse_same_file(output, queries, rewritten)
        require_file(rewritten)
        placeholder = placeholder or DEFAULT_PLACEHOLDER
        grounder = Grounder(placeholder=placeholder)  # E280 before any document is read
        inputs = {rec.id: rec.text for rec in iter_records(queries)}
        total = count_lines(rewritten) if limit is None else limit
        items = []
        lines = islice(iter_json_lines(rewritten), limit)
        for line, obj in tqdm(lines, total=total, desc="review", unit="doc", file=sys.stderr, disable=not progress):
            rec = record_from_obj(obj, path=rewritten, line=line)
            if rec.id not in inputs:
                raise LinkguardError(Errors.E289.format(doc_id=rec.id, output=rewritten, line=line, queries=queries))
            items.append(review_item(inputs[rec.id], {**obj, "id": rec.id}, placeholder=placeholder,
                                     grounder=grounder))
        write_text_atomic(output, render_review(items, all_paragraphs=all_paragraphs), queries, rewritten)
    except LinkguardError as e:
        fail(e)
    n_changed = sum(item["n_changed"] for item in items)
    n_attention = sum(item["n_attention"] for item in items)
    n_check = sum(item["n_check"] for item in items)
    typer.echo(f"{len(items)} document(s), {n_changed} changed paragraph(s), {n_attention} to read first "
               f"({n_check} with facts changed, ungrounded words or text dropped or added) "
               f"-> {output or 'stdout'}", err=True)
    if not items:
        from .release import warn_empty

        warn_empty(rewritten, "review", f"wrote a page with no document to {output or 'stdout'}")
