"""The review page's word diff gives both texts back exactly, marks only what
differs, and agrees with a brute-force token comparison."""
import random

import pytest

from spacy_linkguard.review.diff import Segment, tokens, word_diff

WORDS = ["the", "applicant", "applicant's", "court", "Court", "claim", "[REDACTED]", "two", "not", "on",
         "é", "10", "§", "1"]
SPACES = [" ", " ", " ", "  ", "\n", "\t", ""]
PUNCT = [",", ".", "(", ")", "’", "-"]


def random_text(rng: random.Random) -> str:
    parts = [rng.choice(["", " ", "\n"])]
    for _ in range(rng.randint(0, 14)):
        parts.append(rng.choice(WORDS + PUNCT) + rng.choice(SPACES))
    return "".join(parts)


def test_tokens_cover_the_text():
    text = "  The applicant's claim (no. 12345/01) was\n\nnot heard, §\t1. "
    toks = tokens(text)
    assert "".join(toks) == text
    assert toks[:3] == ["  ", "The ", "applicant's "]
    assert "12345" in [t.strip() for t in toks] and "/" in [t.strip() for t in toks]


def test_one_replaced_word():
    assert word_diff("the applicant's claim was heard", "the applicant's demand was heard") == [
        Segment("equal", "the applicant's ", "the applicant's "),
        Segment("replace", "claim ", "demand "),
        Segment("equal", "was heard", "was heard"),
    ]


def test_identical_and_disjoint_texts():
    assert word_diff("a b c", "a b c") == [Segment("equal", "a b c", "a b c")]
    assert word_diff("a b", "c d") == [Segment("replace", "a b", "c d")]
    assert word_diff("", "new words") == [Segment("insert", "", "new words")]
    assert word_diff("old words", "") == [Segment("delete", "old words", "")]
    assert word_diff("", "") == []


def test_spacing_alone_is_no_change():
    segs = word_diff("the  court\nheld", "the court held")
    assert [s.op for s in segs] == ["equal"]
    assert (segs[0].old, segs[0].new) == ("the  court\nheld", "the court held")
    assert word_diff("\n the court", "the court") == [Segment("equal", "\n the court", "the court")]


@pytest.mark.parametrize("seed", range(300))
def test_random_texts_come_back_exactly(seed):
    rng = random.Random(seed)
    old, new = random_text(rng), random_text(rng)
    segs = word_diff(old, new)
    assert "".join(s.old for s in segs) == old
    assert "".join(s.new for s in segs) == new
    assert all(a.op != b.op for a, b in zip(segs, segs[1:]))  # neighbours are merged
    for s in segs:
        keys_old, keys_new = words(s.old), words(s.new)
        if s.op == "equal":
            assert keys_old == keys_new  # the same words, whatever the spacing
        else:
            assert s.op == {(True, False): "delete", (False, True): "insert", (True, True): "replace"}[
                (bool(s.old), bool(s.new))]
    # brute force: the tokens marked equal are a common subsequence of both texts' tokens
    kept = [w for s in segs if s.op == "equal" for w in words(s.old)]
    assert is_subsequence(kept, words(old))
    assert is_subsequence(kept, words(new))
    if old.split() == new.split():
        assert all(s.op == "equal" for s in segs)


def words(text: str):
    """The tokens of `text` without their spacing (none for spacing alone)."""
    return [t.strip() for t in tokens(text) if t.strip()]


def is_subsequence(needle, haystack) -> bool:
    it = iter(haystack)
    return all(any(x == y for y in it) for x in needle)
