"""The typer app behind `python -m spacy_linkguard` and `spacy linkguard`.

Each command lives in its own module in this folder and registers itself on
`app`; `spacy_linkguard/cli/__init__.py` lists the command modules. Commands
import heavy libraries inside the function, so `--help` starts fast.
"""
import typer
from typer.core import TyperCommand, TyperGroup

from ..errors import LinkguardError
from ._util import extra_argument_error, fail, interrupt_said, plain_warnings


class PlainFlagsMixin:
    """Help that shows a flag as a flag: `--help`, `--verify`, not `--help <bool>`.

    typer's rich help prints every option's type, flags included (its plain
    help does not); a flag takes no value, so the type column stays empty.
    """

    def get_params(self, ctx):
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""  # typer shows the metavar, when set, instead of the type
        return params


class LinkguardCommand(PlainFlagsMixin, TyperCommand):
    """Every command of `app` (set in `cli/__init__.py`, so command modules need no `cls`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # typer's rich help reads help texts as Rich markup, where "[default: ...]" or
        # "[start, end, label]" is a tag and vanishes: our help texts are plain text.
        self.help = escape_markup(self.help)
        for param in self.params:
            if getattr(param, "help", None):
                param.help = escape_markup(param.help)

    def invoke(self, ctx):
        with plain_warnings(), interrupt_said(ctx.info_name):
            return super().invoke(ctx)

    def collect_usage_pieces(self, ctx):
        # A hidden argument stays out of the usage line too.
        rv = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if not getattr(param, "hidden", False):
                rv.extend(param.get_usage_pieces(ctx))
        return rv

    def parse_args(self, ctx, args):
        # An extra positional argument (`detect IN OUT`) is coded error E300 with
        # the fix (`-o OUT`), not click's "Got unexpected extra argument(s)".
        allowed = ctx.allow_extra_args
        ctx.allow_extra_args = True
        try:
            rest = super().parse_args(ctx, args)
        finally:
            ctx.allow_extra_args = allowed
        if rest and not allowed and not ctx.resilient_parsing:
            fail(extra_argument_error(ctx, rest[0]))
        return rest


def escape_markup(text):
    """`text` with its square brackets shown as written in Rich markup (None stays None)."""
    if not text:
        return text
    try:
        from rich.markup import escape
    except ImportError:  # typer's plain help shows text as written
        return text
    return escape(text)


class LinkguardGroup(PlainFlagsMixin, TyperGroup):
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
