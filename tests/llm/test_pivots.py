"""`llm/pivots.py`: the fewest words whose change removes every flagged phrase.

The stabbing set is checked against a brute-force oracle (every subset of
positions) on random instances; the words against the SPEC's "still occurs":
a sentence with each chosen word written differently holds none of its flagged
phrases.
"""
import itertools
import random

import pytest

from spacy_linkguard.llm.pivots import FROZEN, STOPWORD, min_cost_stabbing, token_costs, words_to_change
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.ngrams.segments import text_tokens_flat
from spacy_linkguard.rewrite.occurs import occurs

SETTINGS = NgramSettings(placeholder="[REDACTED]")


def brute_force(costs, intervals):
    """The least total cost of a set of positions holding one of every interval."""
    best = float("inf")
    for r in range(len(costs) + 1):
        for subset in itertools.combinations(range(len(costs)), r):
            if all(any(a <= i <= b for i in subset) for a, b in intervals):
                best = min(best, sum(costs[i] for i in subset))
    return best


@pytest.mark.parametrize("seed", range(300))
def test_the_stabbing_set_is_a_cheapest_one(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    costs = [rng.choice([1.0, 1.5, 2.0, STOPWORD, FROZEN]) for _ in range(n)]
    intervals = []
    for _ in range(rng.randint(1, 6)):
        a = rng.randrange(n)
        intervals.append((a, rng.randint(a, min(n - 1, a + 4))))
    chosen = min_cost_stabbing(costs, intervals)
    assert chosen == sorted(set(chosen))
    assert all(any(a <= i <= b for i in chosen) for a, b in intervals)
    assert sum(costs[i] for i in chosen) == pytest.approx(brute_force(costs, intervals))


def test_no_interval_no_choice():
    assert min_cost_stabbing([1.0, 1.0], []) == []


def test_one_word_inside_overlapping_phrases_breaks_them_all():
    s = "The commission also considered that the applicant was particularly depraved."
    phrases = ["commission also considered", "also considered that the", "considered that the applicant"]
    flagged = [(s.index(p), s.index(p) + len(p)) for p in phrases]
    assert words_to_change(s, flagged, SETTINGS) == ["considered"]


def test_facts_and_placeholders_are_never_named():
    s = "On [REDACTED] the court sentenced him under Article 5 of the Code to three years."
    flagged = [(s.index("sentenced him under Article 5"), s.index(" of the Code")),
               (s.index("[REDACTED] the"), s.index(" court"))]
    # "sentenced" is the one content word of the first phrase that states no fact; the
    # second holds only the placeholder and "the", a function word: dearer, but allowed
    assert words_to_change(s, flagged, SETTINGS) == ["the", "sentenced"]
    only_facts = [(s.index("Article 5"), s.index(" of the Code"))]
    assert words_to_change(s, only_facts, SETTINGS) == []


def test_a_rare_word_is_chosen_over_a_word_of_every_document():
    s = "The applicant was particularly depraved."
    flagged = [(0, len(s) - 1)]
    share = {"applicant": 1.0, "particularly": 0.2, "depraved": 0.001}
    assert words_to_change(s, flagged, SETTINGS, lambda keys: [share.get(k, 0.5) for k in keys]) == ["depraved"]
    assert words_to_change(s, flagged, SETTINGS) == ["depraved"]  # ties: the later word
    starts, ends, keys = _tokens(s)
    costs = token_costs(s, starts, ends, keys, lambda keys: [share.get(k, 0.5) for k in keys])
    assert costs[0] == costs[2] == STOPWORD  # "The", "was"
    assert costs[1] == pytest.approx(2.5) and costs[4] == pytest.approx(1.0015)


@pytest.mark.parametrize("seed", range(40))
def test_changing_the_words_removes_every_phrase_that_holds_a_word(seed):
    s = ("On 3 May 2001 the Regional Court rejected an appeal lodged by the applicant and dismissed his "
         "request for leave to examine the appeal outside the statutory time-limit of 14 days.")
    rng = random.Random(seed)
    starts, ends, keys = _tokens(s)
    costs = token_costs(s, starts, ends, keys)
    flagged = []
    for _ in range(rng.randint(1, 8)):
        a = rng.randrange(len(keys))
        b = rng.randint(a, min(len(keys) - 1, a + 6))
        flagged.append((starts[a], ends[b]))
    words = words_to_change(s, flagged, SETTINGS)
    # every occurrence of a chosen word written differently
    edited, last = [], 0
    for st, en in zip(starts, ends):
        if s[st:en] in words:
            edited.append(s[last:st] + "zz" + s[st:en])
            last = en
    edited = "".join(edited) + s[last:]
    for a, b in flagged:
        inside = [i for i in range(len(keys)) if starts[i] < b and ends[i] > a]
        if all(costs[i] >= FROZEN for i in inside):
            assert not any(s[starts[i]:ends[i]] in words for i in inside)  # facts only: nothing to name
        else:
            assert not occurs(s[a:b], edited, SETTINGS), (s[a:b], words)


def _tokens(s):
    flat = text_tokens_flat(s, SETTINGS)
    return [int(x) for x in flat.starts], [int(x) for x in flat.ends], list(flat.keys)
