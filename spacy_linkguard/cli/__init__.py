"""Command-line interface. Importing this package registers every command on `app`."""
from importlib import import_module

from .app import app

# One module per command (or group of related commands), in help order.
COMMAND_MODULES = [
    "index_cmds",
    "detect_cmds",
    "deid_cmds",
    "rewrite_cmds",
    "model_cmds",
    "prepare_cmd",
    "evaluate_cmd",
    "perplexity_cmd",
    "semantic_linkage_cmd",
    "report_cmd",
    "rewrite_nospans_cmd",
    "deidentify_queries_cmd",
    "baseline_cmds",
]

for _name in COMMAND_MODULES:
    import_module(f"{__name__}.{_name}")

__all__ = ["app"]
