"""spacy-linkguard: protect de-identified documents from search-based linkage.

Factories, registered functions and CLI commands are reached through the
entry points in setup.cfg; importing this package has no side effects.
"""
from .about import __version__


def __getattr__(name):
    # `spacy_linkguard.render(doc)` without importing displaCy at start-up.
    if name == "render":
        from .display import render

        return render
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
