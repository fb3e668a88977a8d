"""Shared error handling of the commands.

A coded `LinkguardError` ends a command with its message on stderr and exit
code 1, never with a traceback: commands call `fail(e)` in their own
`except LinkguardError` (or wrap a block in `coded_errors()`), and
`app.LinkguardGroup` does the same for whatever they let through (it is not
on the path when typer hands a command to another group, e.g. `spacy
linkguard ...`, so commands that can raise while loading configs catch
their own).
"""
from contextlib import contextmanager
from typing import Any, Iterator, List, NoReturn, Optional, Union

import typer

from ..errors import LinkguardError

EXIT_ERROR = 1


def fail(error: Union[Exception, str], *, code: int = EXIT_ERROR) -> NoReturn:
    """Print `error` (a coded message) on stderr and end the command with `code`.

    RAISES: typer.Exit, which click turns into the exit status (no traceback).
    """
    typer.echo(str(error), err=True)
    raise typer.Exit(code=code)


@contextmanager
def coded_errors() -> Iterator[None]:
    """`fail` on a LinkguardError raised in the block; other errors pass (bugs keep their traceback)."""
    try:
        yield
    except LinkguardError as e:
        fail(e)


def extra_argument_error(ctx: Any, extra: str) -> LinkguardError:
    """E300 for a positional argument that the command `ctx` does not take
    (`detect IN OUT`): what it takes, and `-o OUT` when it writes an output."""
    from ..errors import Errors

    params = ctx.command.params
    takes = [(getattr(p, "metavar", None) or p.name.upper()) for p in params
             if getattr(p, "param_type_name", None) == "argument" and not getattr(p, "hidden", False)]
    takes_text = " and ".join(takes) if takes else "no argument"
    if any("-o" in getattr(p, "opts", ()) for p in params):
        fix = f"To write the output to {extra}, use `-o {extra}`."
    else:
        fix = f"See `{ctx.command_path} --help`."
    return LinkguardError(Errors.E300.format(command=ctx.info_name, extra=extra, takes=takes_text, fix=fix))


def stray_argument(args: List[str]) -> Optional[str]:
    """The first of a command's extra `args` that is not part of a spaCy-style
    config override (`--section.name value`, `--section.name=value`, or a
    bare `--flag`), as `rewrite` reads them; None when there is none."""
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            return arg
        if "=" not in arg and i + 1 < len(args) and not args[i + 1].startswith("--"):
            i += 1  # its value
        i += 1
    return None


@contextmanager
def plain_warnings() -> Iterator[None]:
    """While a command runs, our coded warnings print as their message alone
    ("[W002] --out is deprecated: ..."), on stderr as before, without the source
    path, line and `warnings.warn(...)` line of Python's format. The library
    still warns with `warnings.warn` (a caller can filter or record them);
    other packages' warnings keep Python's format."""
    import warnings

    from ..errors import LinkguardWarning

    python_format = warnings.formatwarning

    def formatwarning(message, category, filename, lineno, line=None):
        if isinstance(category, type) and issubclass(category, LinkguardWarning):
            return f"{message}\n"
        return python_format(message, category, filename, lineno, line)

    warnings.formatwarning = formatwarning
    try:
        yield
    finally:
        warnings.formatwarning = python_format


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
# What each command leaves when stopped (every output is written whole or not at all: `output.py`).
INTERRUPTED_LEAVES = {
    "build-index": "the index folder is as it was (a new index replaces it only once complete)",
    "add-docs": "the index is as it was (the documents are added only once the new index is complete)",
    "rewrite": "no output was written (with --checkpoint, the finished documents are kept in OUTPUT.partial: "
               "run the same command again to go on after them)",
}


@contextmanager
def interrupt_said(command: str) -> Iterator[None]:
    """Ctrl-C ends the command with a line that says so and what it left
    (exit status 130), not silently."""
    try:
        yield
    except KeyboardInterrupt:
        leaves = INTERRUPTED_LEAVES.get(command, "no output was written (outputs are written whole or not at all)")
        typer.echo(f"Interrupted: `{command}` stopped before it finished; {leaves}. Nothing is left half-written.",
                   err=True)
        raise typer.Exit(code=EXIT_INTERRUPTED) from None


def quiet_model_loading() -> None:
    """`--no-progress`: no progress bar from the libraries that load models
    either (transformers' "Loading weights", the Hugging Face hub's). Through
    the environment, so that worker processes started later are quiet too."""
    import os
    import sys

    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"  # read when huggingface_hub and transformers load
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
