"""Arity 1: which minimal rare N-gram occurrences to report (SPEC.md "Single N-grams")."""
from typing import List

from .occurrences import Occurrence


def choose_rare_spans(minimal_rare: List[Occurrence], n_tokens: int) -> List[Occurrence]:
    """Non-overlapping minimal rare occurrences, shortest first (ties: leftmost),
    such that every minimal rare occurrence overlaps a chosen one.

    An occurrence is taken unless it overlaps one already taken; so the chosen
    ones never overlap, and every one left out overlaps a chosen one.

    minimal_rare (List[Occurrence]): (first token, n, key, df) tuples.
    n_tokens (int): Number of N-gram tokens of the text.
    RETURNS (List[Occurrence]): The chosen occurrences, in text order.
    """
    # A plain list: slices of 1..8 items are cheaper than numpy calls.
    taken = [False] * n_tokens
    chosen: List[Occurrence] = []
    for occ in sorted(minimal_rare, key=lambda o: (o[1], o[0])):
        first, n = occ[0], occ[1]
        if not any(taken[first : first + n]):
            taken[first : first + n] = [True] * n
            chosen.append(occ)
    chosen.sort(key=lambda o: o[0])
    return chosen
