"""Adds our commands to spaCy's CLI as `spacy linkguard ...` (entry point `spacy_cli`)."""
from spacy.cli._util import app as spacy_app

from . import app as linkguard_app

spacy_app.add_typer(linkguard_app, name="linkguard")
