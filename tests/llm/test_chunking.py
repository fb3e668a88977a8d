"""Sentence bounds and chunks: offsets, layout, spans never cut."""
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.chunking import ChunkSettings, apply_chunk_edits, make_chunks, sentence_bounds

TEXT = (
    "PROCEDURE\n\n"
    "1. The case originated in an application (no. 12345/01) lodged by Mr J. Smith. "
    "He complained under Art. 6 § 1 of the Convention! Was it fair? The Court held so.\n\n"
    "2. The applicant was born in 1961."
)


def test_sentences_respect_abbreviations_initials_and_lines():
    sents = [TEXT[s:e] for s, e in sentence_bounds(TEXT)]
    assert sents == [
        "PROCEDURE",
        "1. The case originated in an application (no. 12345/01) lodged by Mr J. Smith.",
        "He complained under Art. 6 § 1 of the Convention!",
        "Was it fair?",
        "The Court held so.",
        "2. The applicant was born in 1961.",
    ]


def test_chunks_partition_the_sentences_and_keep_offsets():
    chunks = make_chunks(TEXT, [], ChunkSettings(sentences_per_chunk=2))
    assert [c.text for c in chunks] == [
        "PROCEDURE",
        "1. The case originated in an application (no. 12345/01) lodged by Mr J. Smith. "
        "He complained under Art. 6 § 1 of the Convention!",
        "Was it fair? The Court held so.",
        "2. The applicant was born in 1961.",
    ]
    for c in chunks:
        assert TEXT[c.start : c.end] == c.text and not c.flagged
    # only whitespace lies between chunks
    for a, b in zip(chunks, chunks[1:]):
        assert TEXT[a.end : b.start].strip() == ""


def test_max_chunk_chars_splits_but_keeps_long_sentences_whole():
    chunks = make_chunks(TEXT, [], ChunkSettings(sentences_per_chunk=10, max_chunk_chars=60))
    assert "1. The case originated in an application (no. 12345/01) lodged by Mr J. Smith." in [c.text for c in chunks]
    sentences = {TEXT[s:e] for s, e in sentence_bounds(TEXT)}
    assert all(len(c.text) <= 60 or c.text in sentences for c in chunks)
    assert "Was it fair? The Court held so." in [c.text for c in chunks]  # short ones still grouped


def test_spans_are_attached_relative_to_their_chunk():
    s = TEXT.index("born in 1961")
    t = TEXT.index("Art. 6")
    chunks = make_chunks(TEXT, [(s, s + 12), (t, t + 6), (t, t + 6)], ChunkSettings(sentences_per_chunk=1))
    flagged = [c for c in chunks if c.flagged]
    assert [c.spans for c in flagged] == [["Art. 6"], ["born in 1961"]]
    assert len(flagged[0].span_offsets) == 2  # occurrences kept, texts de-duplicated


def test_a_span_across_a_sentence_boundary_merges_the_chunks():
    s = TEXT.index("fair? The")
    chunks = make_chunks(TEXT, [(s, s + 9)], ChunkSettings(sentences_per_chunk=1))
    hit = [c for c in chunks if c.flagged]
    assert len(hit) == 1 and hit[0].text == "Was it fair? The Court held so."
    assert hit[0].spans == ["fair? The"]


def test_apply_chunk_edits_right_to_left():
    text = "aaa bbb ccc"
    assert apply_chunk_edits(text, [(0, 3, "A"), (8, 11, "CCCC")]) == "A bbb CCCC"
    with pytest.raises(LinkguardError, match="E207"):
        apply_chunk_edits(text, [(0, 5, "x"), (4, 8, "y")])


@pytest.mark.parametrize("kwargs", [{"sentences_per_chunk": 0}, {"max_chunk_chars": 10}])
def test_bad_chunk_settings_raise(kwargs):
    with pytest.raises(LinkguardError, match="E207"):
        ChunkSettings(**kwargs)
