"""Paragraphs of a document and of its rewrite, paired.

A rewrite keeps the paragraph breaks of its input, mostly: the paragraph
metrics (SPEC.md "Metrics") and the review page (`review/`) compare each
input paragraph with the output paragraph it became. Pure functions.
"""
import re
from collections import Counter
from typing import List, Sequence, Tuple

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


def split_paragraphs(text: str) -> List[str]:
    """The paragraphs of `text`: blocks separated by a blank line (a single
    newline stays inside its paragraph), stripped; empty blocks dropped.

    RETURNS (List[str]): Paragraphs in order; [] for a blank text.
    """
    return [p.strip() for p in _BLANK_LINE.split(text) if p.strip()]


_WORD = re.compile(r"\w+")


def word_bag(paragraph: str) -> "Counter[str]":
    """The words of a paragraph (runs of letters and digits, case-folded) with their counts."""
    return Counter(_WORD.findall(paragraph.casefold()))


def pair_score(a: "Counter[str]", b: "Counter[str]") -> float:
    """Dice overlap of two word multisets, in [0, 1]: how alike two paragraphs
    are for alignment (2 * shared words / all words; 0.0 when both are empty)."""
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def align_paragraphs(inputs: Sequence[str], outputs: Sequence[str]) -> List[Tuple[int, int]]:
    """Pair each input paragraph with its output paragraph.

    The rewrite keeps the paragraph breaks, so lists of the same length are
    paired by position. Otherwise (the model merged, split, dropped or added a
    paragraph) the pairing is the monotone one (order kept, each paragraph in
    at most one pair) that maximizes the summed Dice overlap of the paired
    paragraphs' word multisets (`word_bag`, `pair_score`); only pairs that share a word
    count. Among pairings of equal score, dynamic programming picks one.

    inputs, outputs (Sequence[str]): Paragraphs of d' and of its rewrite.
    RETURNS (List[Tuple[int, int]]): (input index, output index) pairs,
        increasing in both; unpaired paragraphs are absent.
    """
    n, m = len(inputs), len(outputs)
    if n == m:
        return [(i, i) for i in range(n)]
    if not n or not m:
        return []
    bags_in = [word_bag(p) for p in inputs]
    bags_out = [word_bag(p) for p in outputs]
    # best[i][j]: the best total over inputs[i:] and outputs[j:].
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    score = [[0.0] * m for _ in range(n)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            s = score[i][j] = pair_score(bags_in[i], bags_out[j])
            best[i][j] = max(best[i + 1][j], best[i][j + 1], s + best[i + 1][j + 1] if s > 0 else 0.0)
    pairs: List[Tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        s = score[i][j]
        if s > 0 and best[i][j] == s + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def paragraph_pairs(input_text: str, output_text: str) -> Tuple[List[str], List[str], List[Tuple[int, int]]]:
    """Paragraphs of a document and of its rewrite, and their alignment
    (`split_paragraphs`, `align_paragraphs`)."""
    a, b = split_paragraphs(input_text), split_paragraphs(output_text)
    return a, b, align_paragraphs(a, b)
