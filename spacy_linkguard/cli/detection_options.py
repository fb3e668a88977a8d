"""The detection options: one set, with one meaning and one help, for every
command that detects (detect, show, paraphrase, rewrite, deidentify).

Each is a function returning a fresh `typer.Option`, so a command declares
`k: int = k_option()`; `rewrite` passes `default=None` for the settings its
config holds (the config's value unless given). `check_index_settings` is
the one check of --verify, --max-n and --placeholder for commands whose
detector is built elsewhere (in a job or a pipeline).
"""
from pathlib import Path
from typing import Any, Optional

import typer

# The names every detecting command takes (tests/cli/test_detection_options.py holds them to it).
DETECTION_OPTIONS = ("--index", "--k", "--max-arity", "--verdict", "--verify", "--max-n", "--placeholder")

INDEX_HELP = "N-gram index folder of the original collection."
K_HELP = ("A phrase set singles out when it matches 1..k-1 documents; keep k well below the number of "
          "documents indexed (docs/detection.md: choosing k and the arity).")
MAX_ARITY_HELP = ("1: single N-grams (gives up the linkage by two or three facts together); 2-3: "
                  "combinations too (docs/detection.md: choosing k and the arity).")
VERIFY_HELP = "Check every byte of the index (SHA-256) before using it; cheap checks run anyway."
MAX_N_HELP = "Expected max_n of the index (E003 if it differs); default: the index's."
PLACEHOLDER_HELP = "Expected placeholder of the index (E003 if it differs); default: the index's."
SPAN_COST_HELP = ("How the spans that break linkable combinations are chosen: uniform: the phrase in most "
                  "combinations first; weighted: most combinations per unit of cost (its occurrences in the "
                  "document times log1p of its document frequency), so rarer phrases are preferred.")
VERDICT_HELP = ("source: a search links only when it finds one of the document's sources (a line's \"sources\", "
                "else its id when the index holds it); any: every search with fewer than k results links; "
                "auto: source when the sources are known, else any.")


def _with(help: str, note: str) -> str:
    """A note ending in ':' ("With --index:") goes before the help, any other after it."""
    if not note:
        return help
    return f"{note} {help}" if note.endswith(":") else f"{help} {note}"


def index_option(default: Any = ..., note: str = "") -> Any:
    return typer.Option(default, "--index", help=_with(INDEX_HELP, note))


def k_option(default: Optional[int] = 2, note: str = "") -> Any:
    return typer.Option(default, "--k", help=_with(K_HELP, note))


def max_arity_option(default: Optional[int] = 3, note: str = "") -> Any:
    return typer.Option(default, "--max-arity", help=_with(MAX_ARITY_HELP, note))


def verdict_option(note: str = "") -> Any:
    return typer.Option("auto", "--verdict", help=_with(VERDICT_HELP, note))


def span_cost_option(note: str = "") -> Any:
    return typer.Option("uniform", "--span-cost", help=_with(SPAN_COST_HELP, note))


def verify_option(note: str = "") -> Any:
    return typer.Option(False, "--verify", help=_with(VERIFY_HELP, note))


def max_n_option(note: str = "") -> Any:
    return typer.Option(None, "--max-n", help=_with(MAX_N_HELP, note))


def placeholder_option(note: str = "") -> Any:
    return typer.Option(None, "--placeholder", help=_with(PLACEHOLDER_HELP, note))


def check_index_settings(index: Path, *, verify: bool = False, max_n: Optional[int] = None,
                         placeholder: Optional[str] = None) -> Any:
    """Open the index as the detecting commands do: every byte checked with
    --verify, and the --max-n/--placeholder asked for compared with its own.

    RETURNS: the open index (cached per process, so the detector reuses it).
    RAISES: LinkguardError E003 (a setting differs), E001/E002 (a bad value),
        and the coded errors of `open_index` (E064 with --verify).
    """
    from ..index import open_index
    from ..pipeline.linkguard import requested_settings

    idx = open_index(index, verify=verify)
    asked = requested_settings(idx.settings, max_n=max_n, placeholder=placeholder)
    if asked is not None:
        asked.check_compatible(idx.settings, where=f"the index {index}")
    return idx
