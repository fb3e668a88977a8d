"""Figure 3 pieces: word redaction, ranks against a brute-force sort, levels."""
import random

import numpy as np
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.semantic_linkage import (
    LevelResult,
    hits_at_k,
    parse_levels,
    plot_figure3,
    redact_words,
    target_ranks,
)

TEXT = "The applicant, Mr X, was born in 1960 and lives in [REDACTED] with his wife."


def test_redact_words_counts_and_keeps_layout():
    words = [w for w in TEXT.split() if "[REDACTED]" not in w]
    for frac in (0.0, 0.25, 0.5, 1.0):
        out = redact_words(TEXT, frac, random.Random(1))
        n_red = sum(1 for w in out.split() if w == "[REDACTED]") - 1  # one was there already
        assert n_red == round(frac * len(words))
        assert len(out.split()) == len(TEXT.split())  # whitespace-separated words map 1:1
    assert redact_words(TEXT, 0.0, random.Random(0)) == TEXT
    assert redact_words("a\n\nb c", 1.0, random.Random(0)) == "[REDACTED]\n\n[REDACTED] [REDACTED]"


def test_redact_words_is_seeded():
    a = redact_words(TEXT, 0.5, random.Random(3))
    b = redact_words(TEXT, 0.5, random.Random(3))
    assert a == b
    outs = {redact_words(TEXT, 0.5, random.Random(s)) for s in range(10)}
    assert len(outs) > 1


def test_redact_words_rejects_bad_fraction():
    with pytest.raises(LinkguardError, match="E258"):
        redact_words(TEXT, 1.5, random.Random(0))


def _unit(m):
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_target_ranks_match_brute_force_sort():
    rng = np.random.default_rng(0)
    coll = _unit(rng.normal(size=(30, 8)))
    queries = _unit(coll[:10] + rng.normal(scale=0.8, size=(10, 8)))
    targets = list(range(10))
    ranks = target_ranks(queries, coll, targets)
    for i, t in enumerate(targets):
        scores = [float(queries[i] @ c) for c in coll]
        order = sorted(range(len(coll)), key=lambda j: -scores[j])
        assert ranks[i] == order.index(t)
    assert hits_at_k(ranks, [1, 5, 30]) == {1: sum(r == 0 for r in ranks), 5: sum(r < 5 for r in ranks), 30: 10}


def test_ties_favour_the_target():
    coll = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert target_ranks(np.array([[1.0, 0.0]]), coll, [1]) == [0]


def test_parse_levels():
    assert parse_levels("0.5,0,0.2,0.2") == [0.0, 0.2, 0.5]
    for bad in ("1.0", "-0.1", "x"):
        with pytest.raises(LinkguardError, match="E258"):
            parse_levels(bad)


def test_level_result_and_plot(tmp_path):
    res = LevelResult(0.2, 10, {1: 7, 10: 10}).to_dict()
    assert res["by_k"]["1"]["rate"] == 0.7
    assert res["by_k"]["1"]["low"] < 0.7 < res["by_k"]["1"]["high"]
    assert res["by_k"]["10"]["high"] == 1.0
    out = tmp_path / "fig3.png"
    plot_figure3({"model": "m", "ks": [1, 10], "levels": [LevelResult(0.0, 10, {1: 9, 10: 10}).to_dict(), res],
                  "systems": {"llm_a3": LevelResult(0.0, 2, {1: 1, 10: 2}).to_dict()}}, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
