import random

import pytest

from spacy_linkguard.deid.pieces import split_pieces


def test_split_pieces_covers_text_and_respects_limit():
    rng = random.Random(1)
    for _ in range(200):
        text = "".join(rng.choice("abc  \n") for _ in range(rng.randint(0, 300)))
        limit = rng.randint(1, 50)
        pieces = split_pieces(text, limit)
        assert "".join(text[a:b] for a, b in pieces) == text
        assert all(0 < b - a <= limit for a, b in pieces)
        assert all(p[1] == q[0] for p, q in zip(pieces, pieces[1:]))


def test_split_pieces_prefers_paragraph_then_space():
    text = "aaa bbb\n\nccc ddd eee"
    assert split_pieces(text, 12) == [(0, 9), (9, 20)]
    assert split_pieces("aaaa bbbb cccc", 10) == [(0, 10), (10, 14)]


def test_split_pieces_empty_and_bad_limit():
    assert split_pieces("", 5) == []
    with pytest.raises(ValueError):
        split_pieces("abc", 0)
