"""Ranking attackers: where an ordinary search engine puts a released text's sources.

The exact verdict (detect/) asks whether some phrase, or combination of up to
m phrases, narrows the collection below k documents. An adversary with a
search engine ranks every document instead. `BM25Attacker` (bm25.py, built
from the index's own documents) and `EmbeddingAttacker` (embedding.py, a
sentence-transformers model) give the rank of a text's best-ranked source
among all collection documents (1: the source comes out on top).
"""
from .bm25 import BM25Attacker, bm25_attacker, source_rank

__all__ = ["BM25Attacker", "bm25_attacker", "source_rank"]
