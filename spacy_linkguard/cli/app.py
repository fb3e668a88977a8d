"""The typer app behind `python -m spacy_linkguard` and `spacy linkguard`.

Each command lives in its own module in this folder and registers itself on
`app`; `spacy_linkguard/cli/__init__.py` lists the command modules. Commands
import heavy libraries inside the function, so `--help` starts fast.
"""
import typer

app = typer.Typer(
    name="linkguard",
    help="spacy-linkguard: find and remove phrases that link a released document to its original.",
    no_args_is_help=True,
    add_completion=False,
)
