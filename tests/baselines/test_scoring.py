import random

import pytest

from spacy_linkguard.baselines.scoring import (
    SCORE_TIE,
    EmbeddingSimilarity,
    HarmonicScorer,
    ScoringRequest,
    best_candidate,
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


def _table_levenshtein(a: str, b: str) -> int:
    """Oracle for long strings: the textbook table, row by row (the former implementation)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def test_levenshtein_long_strings_against_oracle():
    # Longer than a machine word (the bit vectors are Python integers), with a
    # shared prefix and suffix (cut before the bit-vector pass), non-ASCII letters.
    rng = random.Random(11)
    for _ in range(400):
        alphabet = rng.choice(["ab", "abcdefgh ", "aé漢 x"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 150)))
        if rng.random() < 0.5:
            b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 150)))
        else:
            cut = rng.randint(0, len(a))
            b = a[:cut] + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) + a[rng.randint(cut, len(a)):]
        assert levenshtein(a, b) == _table_levenshtein(a, b), (a, b)
        assert levenshtein(b, a) == levenshtein(a, b)


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
    # edit 0.5, sim 1.0 -> 2/3; edit 1.0, sim 0.5 -> 2/3; edit 1.0, sim -0.3 clipped to 0 -> 0;
    # edit 1.0, sim 0.6 -> 0.75. "abcz" (edit 0.25) could score at most 0.4 < 2/3: never compared.
    assert scores[0][:2] == pytest.approx([2 / 3, 2 / 3]) and scores[0][3] == 0.0
    assert scores[0][2] == float("-inf")
    assert scores[1] == pytest.approx([0.75])
    # Rounds by bound (edit 1.0: bound 1; 0.5: 2/3), one candidate of each phrase a round,
    # each candidate context paired with its own request's context.
    assert seen == [(["ctx abcd", "ctx ab"], ["ctx wxyz", "ctx 12"]),
                    (["ctx abcd"], ["ctx zzzz"]),
                    (["ctx abcd"], ["ctx abxy"])]  # bound 2/3 ties the best: still compared
    assert scorer([]) == []


def _best(scores):
    """The caller's choice (baselines/paraphrase.py): the highest score, the first on ties."""
    k = best_candidate(scores)
    return k, scores[k]


def test_best_candidate_against_oracle():
    """Oracle: the first candidate that no other beats by SCORE_TIE or more. Scores
    come from a few values nudged by less than the tolerance (as float32 sums in
    another thread count are), so near ties occur: the nudges never change the choice."""
    assert best_candidate([0.5, 0.9, 0.9]) == 1
    assert best_candidate([0.9 - SCORE_TIE / 2, 0.9]) == 0  # a near tie: the earlier one
    assert best_candidate([0.9 - 2 * SCORE_TIE, 0.9]) == 1
    assert best_candidate([None, 0.1]) == 1 and best_candidate([None]) == 0
    rng = random.Random(5)
    for _ in range(2000):
        base = [rng.choice([0.1, 0.5, 0.7, 0.9]) for _ in range(rng.randint(1, 7))]
        nudged = [b + rng.uniform(-0.4, 0.4) * SCORE_TIE for b in base]
        want = next(k for k, b in enumerate(base) if all(b >= o for o in base))
        assert best_candidate(base) == want and best_candidate(nudged) == want


def test_pruned_scorer_picks_what_scoring_every_candidate_picks():
    """Oracle: every candidate scored (the harmonic mean of edit distance and the
    clipped similarity). Similarities are drawn from a few values so that ties occur,
    some nudged by less than SCORE_TIE (a near tie is a tie: the earlier candidate wins,
    so the pruning must still compare it)."""
    rng = random.Random(11)
    total = compared = 0
    for _ in range(300):
        table = {}

        def similarity(a, b):
            nonlocal compared
            compared += len(b)
            return [table[y] for y in b]

        requests = []
        for r in range(rng.randint(1, 6)):
            original = "".join(rng.choice("abcd") for _ in range(rng.randint(1, 5)))
            cands = tuple(dict.fromkeys("".join(rng.choice("abcdxy") for _ in range(rng.randint(1, 5)))
                                        for _ in range(rng.randint(1, 8))))
            ctxs = tuple(f"{r}:{c}" for c in cands)
            for c in ctxs:
                table[c] = rng.choice([-0.2, 0.3, 0.5, 0.8, 1.0, 1.2]) + rng.choice([0.0, SCORE_TIE / 4])
            requests.append(ScoringRequest(original, cands, f"ctx{r}", ctxs))
        got = HarmonicScorer(similarity)(requests)
        for req, scores in zip(requests, got):
            full = [harmonic_mean(normalized_edit_distance(req.original, c), min(1.0, max(0.0, table[x])))
                    for c, x in zip(req.candidates, req.candidate_contexts)]
            assert _best(scores) == _best(full)
            # Every score given is the true one; the others could not have won.
            for s, f in zip(scores, full):
                assert s == f or (s == float("-inf") and f < _best(full)[1] - SCORE_TIE)
            total += len(req.candidates)
    assert compared < total  # and some candidates were never compared


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


@pytest.mark.slow
def test_embedding_similarity_reuses_embeddings_between_calls():
    sim = EmbeddingSimilarity(cache_size=4)
    a, b, c = "The court rejected the complaint.", "The tribunal dismissed it.", "Bananas are yellow."
    first = sim([a], [b])
    encoded = []
    original = sim.model.encode
    sim.model.encode = lambda texts, **kw: (encoded.append(list(texts)), original(texts, **kw))[1]
    assert sim([a], [b]) == first and encoded == []  # both cached
    assert sim([a], [c])[0] == pytest.approx(EmbeddingSimilarity()([a], [c])[0], abs=1e-5)
    assert encoded == [[c]]
    sim([b], ["one"])  # a, b, c and "one": 4, still fits
    assert encoded[-1] == ["one"]
    sim([b], ["two"])  # a fifth text: the cache is emptied, then holds what this call needs
    assert encoded[-1] == [b, "two"] and set(sim._cache) == {b, "two"}


@pytest.mark.slow
def test_embedding_similarity_is_the_same_whatever_the_threads_and_history():
    """The bits of a similarity depend on the texts only: not on the process's
    torch thread count (the parent of --workers 1 runs one a core, workers fewer)
    nor on the texts embedded before (HarmonicScorer forgets them per document)."""
    import torch

    a = "The applicant lodged a complaint with the regional court."
    others = ["The applier filed a complaint with the regional court.",
              "The applicant stuck an ill with the regional tribunal.", "It was in Paris on Monday."]
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        fresh = EmbeddingSimilarity()
        one = [fresh([a], [o])[0] for o in others]  # the second and third call embed one text
        torch.set_num_threads(2)
        sim = EmbeddingSimilarity()
        sim(["Bananas are yellow.", "The judges rejected it."], ["Apples are red.", a])  # another history
        sim.forget()
        two = [sim([a], [o])[0] for o in others]
        assert torch.get_num_threads() == 2  # restored after encoding
    finally:
        torch.set_num_threads(before)
    assert two == one  # to the last bit: a score written to the output is the same in every process
