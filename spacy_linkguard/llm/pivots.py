"""The fewest words of a sentence whose change removes every flagged phrase.

A flagged phrase is an N-gram: it no longer occurs once any one of its tokens
is written differently. So a sentence need not be rewritten as a whole: it is
enough to change one word of every flagged phrase, and a word inside several
overlapping phrases breaks them all. At k = 2 a judgment's flagged phrases
cover most words of a sentence (median 79% on 16 ECHR test documents, about
9 phrases a sentence) but a few words hit all of them (about 5, median 4).
The sentence task (`words_to_change = true`) names those words in the prompt,
and the model changes them and keeps the rest, instead of regenerating a
sentence from a list of phrases it must avoid.

Which words: the set of least total cost that holds a token of every flagged
phrase (a minimum-cost stabbing set of intervals on a line, exact by dynamic
programming), where a word costs

- FROZEN when it states a fact (`facts.fact_spans`: a number, ordinal,
  number word, negation, legal reference, a quantity such as "three years"):
  the fact guard keeps it, so it is never named; a phrase made only of such
  words names nothing (it is left to the ban while decoding and, in the end,
  to guarantee mode). A placeholder is no token at all (a boundary token,
  SPEC.md), so it is never named either;
- STOPWORD (10) for a function word ("of", "the", "had"): hard to change
  without changing the grammar;
- 1 + DF_WEIGHT * (share of the collection's documents holding it) otherwise,
  when the collection's document frequencies are known, else 1: a rare word
  ("depraved", "remonstrance") is what makes a phrase rare, and replacing it
  by a plainer word both breaks the phrase and keeps the sentence; a word of
  every document ("applicant", "Court") is the last choice.

Ties go to the word written later (the head of an English phrase is usually
its last word). Pure function, no model.
"""
from typing import Callable, List, Optional, Sequence, Tuple

from spacy.lang.en.stop_words import STOP_WORDS

from ..ngrams import NgramSettings
from ..ngrams.segments import text_tokens_flat
from .facts import fact_spans

FROZEN = 100.0
STOPWORD = 10.0
DF_WEIGHT = 1.5

# token keys -> the share of the collection's documents holding each
DocShare = Callable[[Sequence[str]], Sequence[float]]


def words_to_change(sentence: str, flagged: Sequence[Tuple[int, int]], settings: NgramSettings,
                    doc_share: Optional[DocShare] = None) -> List[str]:
    """The words to change in `sentence` (module docstring), in sentence order,
    each once (case-sensitive, as written).

    sentence (str): The sentence.
    flagged (Sequence[Tuple[int, int]]): Character spans of the flagged phrases.
    settings (NgramSettings): Tokenization (the index's).
    doc_share: token keys -> share of documents; None: every content word costs 1.
    RETURNS (List[str]): The words; empty when nothing is flagged. A FROZEN
        word is never named.
    """
    flat = text_tokens_flat(sentence, settings)
    starts, ends, keys = [int(x) for x in flat.starts], [int(x) for x in flat.ends], list(flat.keys)
    costs = token_costs(sentence, starts, ends, keys, doc_share)
    intervals = []
    for s, e in flagged:
        inside = [i for i in range(len(keys)) if starts[i] < e and ends[i] > s]
        # a phrase made only of facts and placeholders names nothing (the fact guard keeps them)
        if inside and any(costs[i] < FROZEN for i in inside):
            intervals.append((inside[0], inside[-1]))
    if not intervals:
        return []
    # a fact never stabs: every phrase that holds another word gets one of those named
    chosen = min_cost_stabbing([c if c < FROZEN else float("inf") for c in costs], intervals)
    out: List[str] = []
    for i in chosen:
        word = sentence[starts[i]:ends[i]]
        if word not in out:
            out.append(word)
    return out


def token_costs(sentence: str, starts: Sequence[int], ends: Sequence[int], keys: Sequence[str],
                doc_share: Optional[DocShare] = None) -> List[float]:
    """The cost of changing each token (module docstring)."""
    facts = [(s, e) for s, e, _ in fact_spans(sentence)]
    shares = list(doc_share(keys)) if doc_share is not None and keys else [0.0] * len(keys)
    costs = []
    for s, e, key, share in zip(starts, ends, keys, shares):
        if any(fs < e and fe > s for fs, fe in facts):
            costs.append(FROZEN)
        elif key in STOP_WORDS or not any(c.isalpha() for c in key):
            costs.append(STOPWORD)
        else:
            costs.append(1.0 + DF_WEIGHT * float(share))
    return costs


def min_cost_stabbing(costs: Sequence[float], intervals: Sequence[Tuple[int, int]]) -> List[int]:
    """The positions of least total cost such that every interval [a, b]
    (inclusive positions into `costs`) holds one; ties: later positions.

    Dynamic programming over the last chosen position: best[i] is the least
    cost of a set whose last position is i and that stabs every interval
    ending before i; a step from j to i is allowed when no interval lies
    strictly between them. O(n^2 + n * m) for n positions, m intervals.
    """
    n = len(costs)
    if not intervals:
        return []
    # max_start_ending_before[x]: the largest start among intervals ending before
    # position x (an interval [a, b] with b < i and a > j lies strictly between j and i)
    max_start_ending_before = [-1] * (n + 1)
    for a, b in intervals:
        for x in range(b + 1, n + 1):
            if a > max_start_ending_before[x]:
                max_start_ending_before[x] = a
    inf = float("inf")
    best = [inf] * n
    prev = [-1] * n
    for i in range(n):
        # j = -1 (no earlier choice) is allowed when no interval ends before i
        if max_start_ending_before[i] < 0:
            best[i], prev[i] = costs[i], -1
        for j in range(i):
            if best[j] < inf and max_start_ending_before[i] <= j:
                c = best[j] + costs[i]
                if c < best[i] or (c == best[i] and j > prev[i]):
                    best[i], prev[i] = c, j
    last_start = max(a for a, _ in intervals)
    # the last choice must lie at or after every interval's start (one starting after it is missed)
    ends_ok = [i for i in range(n) if i >= last_start and best[i] < inf]
    i = min(ends_ok, key=lambda x: (best[x], -x))
    chosen = []
    while i >= 0:
        chosen.append(i)
        i = prev[i]
    return sorted(chosen)
