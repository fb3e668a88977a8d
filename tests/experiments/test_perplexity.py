"""Perplexity: window arithmetic against a brute-force count, and the real Gemma 3 270M."""
import math

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.perplexity import locate_causal_lm, perplexity_from_nll, window_spans


@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 17, 40, 100])
@pytest.mark.parametrize("max_length,stride", [(16, 8), (16, 15), (8, 1), (1024, 512)])
def test_every_token_after_the_first_is_scored_once(n, max_length, stride):
    scored = []
    for begin, end, n_scored in window_spans(n, max_length, stride):
        assert 0 <= begin < end <= n and end - begin <= max_length
        assert 0 <= n_scored <= end - begin - 1  # a window predicts end - begin - 1 tokens
        scored.extend(range(end - n_scored, end))
    assert sorted(scored) == list(range(1, n)) if n > 1 else scored == []


def test_window_spans_rejects_bad_stride():
    with pytest.raises(ValueError):
        window_spans(10, 8, 8)


def test_perplexity_from_nll():
    assert perplexity_from_nll(0.0, 5) == 1.0
    assert perplexity_from_nll(10 * math.log(4), 10) == pytest.approx(4.0)
    assert perplexity_from_nll(1.0, 0) is None


def test_missing_model_is_a_coded_error(tmp_path):
    with pytest.raises(LinkguardError, match="E252"):
        locate_causal_lm("no-such-model", tmp_path)


@pytest.mark.slow
def test_gemma_perplexity_matches_transformers_loss(gemma_dir):
    import torch

    from spacy_linkguard.experiments.perplexity import PerplexityScorer

    text = "The Court held that there had been a violation of Article 6 of the Convention. " * 2
    scorer = PerplexityScorer(str(gemma_dir), max_length=1024, stride=512)
    ids = scorer.tokenizer(text, return_tensors="pt").input_ids
    with torch.no_grad():
        loss = scorer.model(ids, labels=ids).loss.item()
    assert scorer.perplexity(text) == pytest.approx(math.exp(loss), rel=1e-3)
    # Sliding windows: compare with a brute-force oracle that scores every
    # token separately, with exactly the context its window gives it.
    small = PerplexityScorer(str(gemma_dir), max_length=8, stride=4)
    short = "The Court held that there had been a violation of Article 6."
    nll, n = small.token_nll(short)
    ids = small.tokenizer(short, return_tensors="pt").input_ids
    assert n == ids.shape[1] - 1
    oracle = 0.0
    for begin, end, n_scored in window_spans(ids.shape[1], 8, 4):
        for t in range(end - n_scored, end):
            with torch.no_grad():
                logits = small.model(ids[:, begin:t]).logits[0, -1].float()
            oracle -= torch.log_softmax(logits, dim=-1)[ids[0, t]].item()
    assert nll == pytest.approx(oracle, rel=1e-3)
    # Fluent text scores lower than shuffled words.
    reversed_words = " ".join(text.split()[::-1])
    assert scorer.perplexity(text) < scorer.perplexity(reversed_words)
