"""The typer app behind `python -m spacy_linkguard` and `spacy linkguard`.

Each command lives in its own module in this folder and registers itself on
`app`; `spacy_linkguard/cli/__init__.py` lists the command modules. Commands
import heavy libraries inside the function, so `--help` starts fast.
"""
import typer
from typer.core import TyperGroup

from ..errors import LinkguardError
from ._util import fail


class LinkguardGroup(TyperGroup):
    """Every coded error of a command ends it with its message and exit code 1,
    never with a traceback (whether or not the command catches it itself;
    `_util.fail`)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except LinkguardError as e:
            fail(e)


app = typer.Typer(
    cls=LinkguardGroup,
    name="linkguard",
    help="spacy-linkguard: find and remove phrases that link a released document to its original.",
    no_args_is_help=True,
    add_completion=False,
)
