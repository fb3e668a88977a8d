"""Command-line interface. Importing this package registers every command on `app`."""
from importlib import import_module

from typer.core import TyperCommand

from .app import LinkguardCommand, app

# One module per command (or group of related commands), in help order: the
# product first, then the paper's evaluation harness (`cli/experiments/`,
# thin wrappers of `spacy_linkguard/experiments/`).
COMMAND_MODULES = [
    "index_cmds",
    "detect_cmds",
    "deid_cmds",
    "rewrite_cmds",
    "paraphrase_cmd",
    "review_cmd",
    "model_cmds",
    "experiments.prepare_cmd",
    "experiments.deidentify_queries_cmd",
    "experiments.rewrite_nospans_cmd",
    "experiments.evaluate_cmd",
    "experiments.perplexity_cmd",
    "experiments.semantic_linkage_cmd",
    "experiments.report_cmd",
]

for _name in COMMAND_MODULES:
    import_module(f"{__name__}.{_name}")

for _info in app.registered_commands:
    if _info.cls in (None, TyperCommand):
        _info.cls = LinkguardCommand  # help without `--help <bool>`

__all__ = ["app"]
