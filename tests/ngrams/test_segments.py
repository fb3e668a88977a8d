import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.ngrams import (
    NgramSettings,
    normalize_lookalikes,
    query_key,
    segment_ngrams,
    text_ngram_keys,
    text_segments,
)

S = NgramSettings()


def test_lookalikes_keep_length_and_fold_to_ascii():
    text = "non\u2011pecuniary \u201cquoted\u201d it\u2019s 5\u22122 \u00abx\u00bb `y"
    out = normalize_lookalikes(text)
    assert len(out) == len(text)
    assert out == "non-pecuniary \"quoted\" it's 5-2 \"x\" 'y"


def test_u2011_hyphen_splits_like_ascii_hyphen():
    a = [s.keys for s in text_segments("non\u2011pecuniary damage", S)]
    b = [s.keys for s in text_segments("non-pecuniary damage", S)]
    assert a == b == [("non",), ("pecuniary", "damage")]


def test_placeholder_is_a_boundary_and_punct_splits():
    segs = text_segments("[REDACTED], the applicant said X[REDACTED]Y no. 36110/97", S)
    assert [s.keys for s in segs] == [("the", "applicant", "said"), ("no",), ("36110/97",)]


def test_placeholder_with_possessive():
    segs = text_segments("[REDACTED]\u2019s car was red", S)
    assert [s.keys for s in segs] == [("'s", "car", "was", "red")]


def test_offsets_point_into_original_text():
    text = "The \u201cCourt\u201d held\n\nthat Mr Kotu\u0142a"
    for seg in text_segments(text, S):
        for key, start, end in zip(seg.keys, seg.starts, seg.ends):
            assert normalize_lookalikes(text[start:end]).casefold() == key


def test_casefold_and_blank_lines_are_boundaries():
    segs = text_segments("STRASSE Straße\n\nnext line", S)
    assert [s.keys for s in segs] == [("strasse", "strasse"), ("next", "line")]


def test_one_line_break_is_a_space():
    segs = text_segments("STRASSE Straße\nnext \r\n line", S)
    assert [s.keys for s in segs] == [("strasse", "strasse", "next", "line")]


def test_segment_ngrams_counts_and_max_n():
    seg = text_segments("a b c d e f g h i j", S)[0]
    grams = list(segment_ngrams(seg, 8))
    # n tokens, max_n 8: sum over i of min(8, n - i)
    assert len(grams) == sum(min(8, 10 - i) for i in range(10))
    assert (0, 8, "a b c d e f g h") in grams
    assert all(n <= 8 for _, n, _ in grams)


def test_text_ngram_keys_brute_force():
    keys = text_ngram_keys("Mr Smith, Mr Smith.", NgramSettings(max_n=2))
    assert keys == {"mr", "smith", "mr smith"}


def test_query_key_rules():
    assert query_key("The Court", S) == "the court"
    assert query_key("The  Court", S) == "the court"  # spacing is normalized
    assert query_key("The\u00a0\u200bCourt", S) == "the court"
    with pytest.raises(LinkguardError, match=r"\[E004\]"):
        query_key("The\n\nCourt", S)  # a blank line is a boundary
    with pytest.raises(LinkguardError, match=r"\[E004\]"):
        query_key("the Court, held", S)
    with pytest.raises(LinkguardError, match=r"\[E004\]"):
        query_key("  ", S)
    with pytest.raises(LinkguardError, match=r"\[E005\]"):
        query_key("a b c", NgramSettings(max_n=2))


def test_settings_validation_and_compat():
    with pytest.raises(LinkguardError, match=r"\[E001\]"):
        NgramSettings(max_n=0)
    with pytest.raises(LinkguardError, match=r"\[E002\]"):
        NgramSettings(placeholder="two words")
    other = NgramSettings(max_n=5)
    with pytest.raises(LinkguardError, match=r"\[E003\].*max_n"):
        S.check_compatible(other, where="index x")
    S.check_compatible(NgramSettings.from_dict(S.to_dict()), where="same")
