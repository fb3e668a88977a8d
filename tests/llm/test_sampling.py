"""llm/models/sampling.py: the nucleus is the brute-force one (plain Python:
tokens by falling probability, kept while the mass before them is below
top_p), and draws follow its probabilities."""
import math
import random

import pytest

torch = pytest.importorskip("torch")

from spacy_linkguard.llm.models import sampling  # noqa: E402


def brute_nucleus(row, top_p):
    """{token: probability renormalized over the nucleus}."""
    z = max(row)
    weights = [math.exp(x - z) for x in row]
    total = sum(weights)
    probs = [w / total for w in weights]
    kept, before = [], 0.0
    for t in sorted(range(len(row)), key=lambda t: -probs[t]):
        if before >= top_p and top_p < 1.0:  # top_p 1: no nucleus (not even float rounding cuts the tail)
            break
        kept.append(t)
        before += probs[t]
    mass = sum(probs[t] for t in kept)
    return {t: probs[t] / mass for t in kept}


def as_dict(kept, r):
    p = kept[r].softmax(-1)
    return {t: float(x) for t, x in enumerate(p) if x > 0}


def test_nucleus_is_the_brute_force_nucleus():
    rng = random.Random(7)
    for trial in range(60):
        vocab = rng.choice([5, 40, 300])
        scale = rng.choice([0.3, 2.0, 8.0])  # flat to peaked
        logits = torch.tensor([[rng.gauss(0, scale) for _ in range(vocab)] for _ in range(3)], dtype=torch.float64)
        top_p = rng.choice([0.5, 0.9, 0.99, 1.0])
        kept = sampling.nucleus(logits, top_p)
        for r in range(3):
            want = brute_nucleus(logits[r].tolist(), top_p)
            got = as_dict(kept, r)
            assert got.keys() == want.keys(), (trial, r)
            for t in want:
                assert got[t] == pytest.approx(want[t], rel=1e-9)


def test_sample_draws_only_nucleus_tokens_at_their_rates():
    torch.manual_seed(3)
    logits = torch.tensor([[4.0, 3.5, 3.0, 0.0, -1.0, -2.0]] * 4000)
    want = brute_nucleus(logits[0].tolist(), 0.8)  # scaled by the temperature below: 1.0
    draws = sampling.sample(logits, 1.0, 0.8).tolist()
    assert set(draws) <= set(want)
    for t, p in want.items():
        assert draws.count(t) / len(draws) == pytest.approx(p, abs=0.03)
    assert sampling.sample(logits[:2], 0.0, 0.8).tolist() == [0, 0]  # greedy


def test_temperature_divides_the_logits():
    logits = torch.tensor([[2.0, 1.0, 0.0, -5.0]])
    assert set(as_dict(sampling.nucleus(logits / 0.25, 0.9), 0)) == {0}  # cold: the top token holds 0.98
    assert set(as_dict(sampling.nucleus(logits, 0.9), 0)) == {0, 1}  # 0.665 + 0.245
    assert set(as_dict(sampling.nucleus(logits / 4, 0.9), 0)) == {0, 1, 2}  # hot


def test_row_noise_draws_follow_the_nucleus():
    """Gumbel-max over each row's own noise: the draws' frequencies are the
    brute-force nucleus's probabilities."""
    rng = random.Random(11)
    row = [rng.gauss(0, 1.5) for _ in range(12)]
    n = 6000
    logits = torch.tensor([row] * n, dtype=torch.float64)
    keys = torch.tensor([sampling.row_key(0, "p", i) for i in range(n)])
    drawn = sampling.sample(logits, 1.0, 0.8, keys, torch.zeros(n, dtype=torch.long)).tolist()
    want = brute_nucleus(row, 0.8)
    assert set(drawn) <= set(want)
    for t, p in want.items():
        assert abs(drawn.count(t) / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-3


def test_a_rows_draw_does_not_depend_on_its_batch():
    rng = random.Random(5)
    logits = torch.tensor([[rng.gauss(0, 2) for _ in range(50)] for _ in range(8)])
    keys = torch.tensor([sampling.row_key(1, f"prompt {i}", 0) for i in range(8)])
    steps = torch.tensor([rng.randrange(30) for _ in range(8)])
    together = sampling.sample(logits, 0.7, 0.9, keys, steps).tolist()
    alone = [sampling.sample(logits[i:i + 1], 0.7, 0.9, keys[i:i + 1], steps[i:i + 1]).item() for i in range(8)]
    order = [3, 1, 7, 0, 2, 6, 5, 4]
    shuffled = sampling.sample(logits[order], 0.7, 0.9, keys[order], steps[order]).tolist()
    assert together == alone == [together[i] for i in range(8)]
    assert shuffled == [together[i] for i in order]
    # another step or another key is other noise
    assert sampling.row_noise(keys, steps + 1, 50).tolist() != sampling.row_noise(keys, steps, 50).tolist()


def test_banning_the_drawn_token_draws_the_next_of_the_same_perturbed_order():
    rng = random.Random(2)
    logits = torch.tensor([[rng.gauss(0, 1) for _ in range(20)]])
    key, step = torch.tensor([sampling.row_key(0, "x", 0)]), torch.tensor([4])
    order = (logits.double() + sampling.gumbel(sampling.row_noise(key, step, 20))).argsort(descending=True)[0]
    first = sampling.sample(logits, 1.0, 1.0, key, step).item()
    banned = logits.clone()
    banned[0, first] = float("-inf")
    assert [first, sampling.sample(banned, 1.0, 1.0, key, step).item()] == order[:2].tolist()
