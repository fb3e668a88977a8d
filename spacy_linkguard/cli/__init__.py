"""Command-line interface. Importing this package registers every command on `app`."""
from importlib import import_module

from .app import app

# One module per command (or group of related commands), in help order.
COMMAND_MODULES = [
    "rewrite_nospans_cmd",
    "deidentify_queries_cmd",
    "baseline_cmds",
    "index_cmds",
    "deid_cmds",
    "detect_cmds",
    "prepare_cmd",
    "evaluate_cmd",
    "semantic_linkage_cmd",
    "report_cmd",
]

for _name in COMMAND_MODULES:
    import_module(f"{__name__}.{_name}")

__all__ = ["app"]
