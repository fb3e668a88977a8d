import random

import pytest

from spacy_linkguard.baselines.scoring import (
    EmbeddingSimilarity,
    HarmonicScorer,
    ScoringRequest,
    harmonic_mean,
    levenshtein,
    load_sentence_model,
    normalized_edit_distance,
)
from spacy_linkguard.errors import LinkguardError


def _brute_levenshtein(a: str, b: str) -> int:
    """Oracle: the recursive definition, memoized."""
    memo = {}

    def d(i, j):
        if (i, j) not in memo:
            if i == 0 or j == 0:
                memo[i, j] = i + j
            else:
                memo[i, j] = min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
        return memo[i, j]

    return d(len(a), len(b))


def test_levenshtein_known_and_against_oracle():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("abc", "") == 3
    rng = random.Random(7)
    for _ in range(300):
        a = "".join(rng.choice("abc ") for _ in range(rng.randint(0, 7)))
        b = "".join(rng.choice("abc ") for _ in range(rng.randint(0, 7)))
        assert levenshtein(a, b) == _brute_levenshtein(a, b), (a, b)


def test_normalized_edit_distance():
    assert normalized_edit_distance("Court", "court") == 0.0  # case-folded, like N-gram keys
    assert normalized_edit_distance("abcd", "abxy") == 0.5
    assert normalized_edit_distance("ab", "abcd") == 0.5
    assert normalized_edit_distance("", "") == 0.0
    assert normalized_edit_distance("abc", "") == 1.0


def test_harmonic_mean_hand_computed():
    assert harmonic_mean(0.5, 1.0) == pytest.approx(2 / 3)
    assert harmonic_mean(0.25, 0.75) == pytest.approx(0.375)
    assert harmonic_mean(1.0, 1.0) == 1.0
    assert harmonic_mean(0.0, 1.0) == 0.0
    assert harmonic_mean(0.0, 0.0) == 0.0


def test_harmonic_scorer_hand_computed():
    seen = []

    def similarity(a, b):
        seen.append((list(a), list(b)))
        table = {"ctx abxy": 1.0, "ctx wxyz": 0.5, "ctx abcz": 1.7, "ctx zzzz": -0.3, "ctx 12": 0.6}
        return [table[y] for y in b]

    scorer = HarmonicScorer(similarity)
    requests = [
        ScoringRequest("abcd", ("abxy", "wxyz", "abcz", "zzzz"), "ctx abcd",
                       ("ctx abxy", "ctx wxyz", "ctx abcz", "ctx zzzz")),
        ScoringRequest("ab", ("12",), "ctx ab", ("ctx 12",)),
    ]
    scores = scorer(requests)
    # edit 0.5, sim 1.0 -> 2/3; edit 1.0, sim 0.5 -> 2/3; edit 0.25, sim 1.7 clipped to 1 -> 0.4;
    # edit 1.0, sim -0.3 clipped to 0 -> 0; edit 1.0, sim 0.6 -> 0.75.
    assert scores[0] == pytest.approx([2 / 3, 2 / 3, 0.4, 0.0])
    assert scores[1] == pytest.approx([0.75])
    # One batched call, each candidate context paired with its own request's context.
    assert len(seen) == 1
    assert seen[0][0] == ["ctx abcd"] * 4 + ["ctx ab"]
    assert scorer([]) == []


def test_unknown_sentence_model_is_a_coded_error(tmp_path):
    with pytest.raises(LinkguardError, match="E282"):
        load_sentence_model(str(tmp_path / "no-such-model"))


@pytest.mark.slow
def test_embedding_similarity_real_model():
    sim = EmbeddingSimilarity()
    a = "The court rejected the applicant's complaint."
    values = sim([a, a, a], [a, "The tribunal dismissed the applicant's grievance.", "Bananas are rich in potassium."])
    assert values[0] == pytest.approx(1.0, abs=1e-4)
    assert values[1] > values[2] + 0.3
    assert all(-1.0 <= v <= 1.0 + 1e-6 for v in values)
