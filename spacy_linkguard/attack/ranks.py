"""A document's rank fields: where each ranking attacker puts its best-ranked source.

One shape for every place that reports ranks (a `detect --rank` line's
"rank", `doc._.linkguard_rank`, the `show` header):
{"bm25": int|None, "embedding": int|None, "sources": [ids]}, ranks 1-based
(1: a source comes out first), an attacker left out (None) giving None.
Detection-side: it imports only the BM25 attacker; the embedding attacker
(which looks its model up among the local models) is built above and handed in.
"""
from typing import Any, Dict, List, Mapping, Optional, Sequence

ATTACKERS = ("bm25", "embedding")
# The embedding attacker's model unless one is named (`detect --rank-model`, the component's rank_model).
DEFAULT_RANK_MODEL = "all-MiniLM-L6-v2"


def rank_model_name(value: Optional[str]) -> Optional[str]:
    """The embedding model asked for: None for None, "" or "none" (any case): BM25 only."""
    if value is None or not str(value).strip() or str(value).strip().lower() == "none":
        return None
    return str(value)


def index_rankers(index: Any, embedding: Any = None) -> Dict[str, Any]:
    """The attackers over an open index: its BM25 attacker (built once per process,
    `bm25_attacker`) and the given embedding attacker (None: left out)."""
    from .bm25 import bm25_attacker

    return {"bm25": bm25_attacker(index), "embedding": embedding}


def rank_fields(rankers: Mapping[str, Any], text: str, sources: List[str],
                numbers: Sequence[int]) -> Dict[str, Any]:
    """{"bm25": rank, "embedding": rank, "sources": sources} of `text`, whose sources
    are the collection ids `sources` (document numbers `numbers`)."""
    numbers = [int(n) for n in numbers]
    out: Dict[str, Any] = {name: (None if rankers.get(name) is None else rankers[name].rank(text, numbers))
                           for name in ATTACKERS}
    out["sources"] = list(sources)
    return out
