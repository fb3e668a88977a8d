"""Every spaCy factory of spacy-linkguard, registered apart from the classes.

Reached through the `spacy_factories` entry points in setup.cfg, so
`nlp.add_pipe("linkguard")` works without importing this package first.
"""
from typing import Any, Dict, List, Optional  # noqa: F401

from spacy.language import Language  # noqa: F401


# --- linkguard (spacy_linkguard/pipeline/linkguard.py) -----------------------
@Language.factory(
    "linkguard",
    default_config={
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_n": 8,
        "placeholder": "[REDACTED]",
        "spans_key": "linkguard",
    },
    assigns=[
        "doc.spans",
        "doc._.linkguard_safe",
        "doc._.linkguard_report",
        "span._.linkguard_df",
        "span._.linkguard_linked_ids",
        "span._.linkguard_n_broken",
        "span._.linkguard_examples",
    ],
)
def make_linkguard(
    nlp: Language,
    name: str,
    index: Optional[str],
    k: int,
    max_arity: int,
    max_n: int,
    placeholder: str,
    spans_key: str,
):
    """Exact linkage detection against an N-gram index (see pipeline/linkguard.py)."""
    from .linkguard import Linkguard

    return Linkguard(
        nlp, name, index=index, k=k, max_arity=max_arity, max_n=max_n, placeholder=placeholder, spans_key=spans_key
    )
