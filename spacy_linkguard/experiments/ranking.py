"""Ranking attackers in the evaluation: per row, how often a search engine still
puts a document's source first (or in the top 10) after rewriting.

The attackers are the product's (`spacy_linkguard.attack`): BM25 over the
index's own documents, and the embedding search of Figure 3 over the
collection's texts (the `semantic-linkage` step's cached embeddings are
reused: same file name, same first-window embeddings). A row gets
`ranking = {attacker: {"top1": {...}, "top10": {...}}}`, each a share of the
row's documents with known sources and its 95% Wilson interval.
"""
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..attack.ranks import DEFAULT_RANK_MODEL
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from .metrics import wilson_interval

RANK_KS = (1, 10)
ATTACKERS = ("bm25", "embedding")


def top_k_rates(ranks: Sequence[Optional[int]], ks: Sequence[int] = RANK_KS) -> Dict[str, Any]:
    """Share of the defined ranks (1-based) that are <= k, per k, with its Wilson interval.

    RETURNS (dict): {"top<k>": {"hits", "n", "rate", "low", "high"}} (rate None when n = 0).
    """
    defined = [r for r in ranks if r is not None]
    n = len(defined)
    out: Dict[str, Any] = {}
    for k in ks:
        hits = sum(1 for r in defined if r <= k)
        lo, hi = wilson_interval(hits, n)
        out[f"top{k}"] = {"hits": hits, "n": n, "rate": hits / n if n else None, "low": lo, "high": hi}
    return out


def rank_documents(attackers: Dict[str, Any], outputs: Sequence[str],
                   source_numbers: Sequence[Optional[Sequence[int]]]) -> Dict[str, List[Optional[int]]]:
    """Per attacker, each output's sources' best rank ("rank_<attacker>"; None without known sources)."""
    out: Dict[str, List[Optional[int]]] = {}
    for name, attacker in attackers.items():
        srcs = [list(s) if s is not None else [] for s in source_numbers]
        out[f"rank_{name}"] = attacker.ranks(list(outputs), srcs)
    return out


def ranking_row(per_doc: Dict[str, Any]) -> Dict[str, Any]:
    """The row's `ranking` from its per-document ranks."""
    return {key[len("rank_"):]: top_k_rates(vals) for key, vals in per_doc.items()
            if key.startswith("rank_") and key[len("rank_"):] in ATTACKERS}


def load_attackers(index: Any, *, rank_model: Optional[str] = DEFAULT_RANK_MODEL,
                   collection: Optional[Path] = None, cache_dir: Optional[Path] = None,
                   progress: bool = True, embedder: Optional[Any] = None) -> Dict[str, Any]:
    """The BM25 attacker of `index` and, unless `rank_model` is None/"none", the
    embedding attacker (W010 and left out when the model is not installed).

    collection: the JSONL the index was built from: its texts are embedded
        (cached in `cache_dir` as the semantic-linkage step does); None: the
        index's own documents (its normalized words).
    embedder: an `Embedder` of `rank_model` already loaded (the similarity
        metric's), or None to load one.
    RAISES: LinkguardError E045 (an index without document tokens), E046 (bm25s
        missing), E267 (a collection that does not match the index).
    """
    from ..attack import bm25_attacker

    attackers: Dict[str, Any] = {"bm25": bm25_attacker(index)}
    if rank_model and rank_model.lower() != "none":
        emb = embedding_attacker(index, rank_model, collection=collection, cache_dir=cache_dir, progress=progress,
                                 embedder=embedder)
        if emb is not None:
            attackers["embedding"] = emb
    return attackers


def embedding_attacker(index: Any, model: str, *, collection: Optional[Path] = None,
                       cache_dir: Optional[Path] = None, progress: bool = True,
                       embedder: Optional[Any] = None) -> Optional[Any]:
    """The embedding attacker over `index`'s documents, or None (W010) without the model
    (`embedder`: that model already loaded, or None to load it)."""
    import numpy as np

    from ..attack.embedding import EmbeddingAttacker, index_texts, load_embedder
    from ..llm.local_models import locate_sentence_model

    avail = locate_sentence_model(model)
    if not avail.available:
        warnings.warn(Warnings.W010.format(reason=f"{model!r} is not on this machine ({avail.reason})"),
                      LinkguardWarning)
        return None
    if embedder is None:
        embedder = load_embedder(model)
    if collection is None:
        return EmbeddingAttacker.from_texts(embedder, index_texts(index))
    from ..corpus import iter_records
    from .semantic_linkage import collection_embeddings

    recs = list(iter_records(collection))
    ids = set(index.doc_ids)
    unknown = [r.id for r in recs if r.id not in ids and r.text.strip()]  # empty ones are not indexed (W050)
    recs = [r for r in recs if r.id in ids]
    if unknown or len(recs) != index.n_docs:
        detail = (f"{len(unknown)} of its ids are not in the index (first: {unknown[0]!r})" if unknown else
                  f"it has {len(recs)} documents, the index {index.n_docs}")
        raise LinkguardError(Errors.E267.format(path=collection, detail=detail))
    emb = collection_embeddings(embedder, [r.text for r in recs], collection=Path(collection), model=model,
                                cache_dir=cache_dir, progress=progress)
    by_number = np.zeros((index.n_docs, emb.shape[1]), dtype=emb.dtype)
    for row, rec in zip(emb, recs):
        by_number[index.doc_number(rec.id)] = row
    return EmbeddingAttacker(embedder, by_number)
