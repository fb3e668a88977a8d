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
from typing import Iterator, NoReturn, Union

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
