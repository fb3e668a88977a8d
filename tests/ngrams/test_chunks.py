"""`ChunkTokenizer` (memo per whitespace chunk) against spaCy's tokenizer on whole texts.

The oracle is `spacy_tokens`: iterate `get_tokenizer(placeholder)(text)` and
flag boundary tokens, the SPEC's definition word for word. `text_segments`
gives it the normalized text; `ChunkTokenizer` must also equal it on any
text, normalized or not.
"""
import itertools
import json
import random
from pathlib import Path

import pytest
import spacy
from spacy.symbols import ORTH

from spacy_linkguard.ngrams import NgramSettings, get_tokenizer, normalize_text, text_segments
from spacy_linkguard.ngrams.chunks import ChunkTokenizer, can_memoise, get_chunk_tokenizer
from spacy_linkguard.ngrams.segments import spacy_tokens, tokens_to_segments

ASSETS = Path(__file__).parents[2] / "assets"
S = NgramSettings()

# Pieces chosen to hit the tokenizer's special cases, affixes, infixes, URLs
# and every kind of whitespace spaCy treats differently (one plain space is
# trailing whitespace, anything else a whitespace token).
WORDS = [
    "the", "Court", "Mr.", "Mrs", "e.g.", "i.e.", "don't", "can't", "U.S.", "No.", "no.", "36110/97",
    "[REDACTED]", "[REDACTED],", "([REDACTED])", "X[REDACTED]Y", "[REDACTED]'s", "non-pecuniary",
    "\u201cquoted\u201d", "it\u2019s", "(see", "§", "Article", "6", "§1", "1.", "€5,000", "5-2",
    "http://hudoc.echr.coe.int/eng?i=001-57590", "x@example.org", ":)", "...", "--", "'", '"',
    "Straße", "STRASSE", "Kotu\u0142a", "a.m.", "p.m.", "etc.", "vs.", "Jan.", "1999.", "ECHR", "v.",
]
SPACES = [" ", " ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", " \n", "\u2009", "\u3000", " \u00a0 "]


def reference_segments(text, placeholder=S.placeholder):
    norm = normalize_text(text)
    tokens = spacy_tokens(norm.text, placeholder)
    if norm.offsets is not None:
        tokens = norm.offsets.map_tokens(tokens)
    return tokens_to_segments(tokens)


def generated_texts(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        parts = []
        if rng.random() < 0.3:
            parts.append(rng.choice(SPACES))
        for _ in range(rng.randint(0, 60)):
            parts.append(rng.choice(WORDS))
            parts.append(rng.choice(SPACES))
        if parts and rng.random() < 0.5:
            parts.pop()
        yield "".join(parts)


def bundled_texts(limit):
    for path in (ASSETS / "echr" / "queries.jsonl", ASSETS / "wiki" / "queries.jsonl"):
        with path.open(encoding="utf8") as f:
            for line in itertools.islice(f, limit):
                yield json.loads(line)["text"]


def test_rules_allow_the_memo_for_the_default_placeholder():
    assert can_memoise(get_tokenizer(S.placeholder), S.placeholder)
    assert get_chunk_tokenizer(S.placeholder) is not None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_texts_match_spacy(seed):
    for text in generated_texts(300, seed):
        assert text_segments(text, S) == reference_segments(text), repr(text)


@pytest.mark.parametrize("seed", [4, 5])
def test_chunk_tokenizer_matches_spacy_on_raw_text(seed):
    # Odd whitespace between chunks (normalization removes it) is still exact.
    tokenizer = get_chunk_tokenizer(S.placeholder)
    for text in generated_texts(200, seed):
        want = tokens_to_segments(spacy_tokens(text, S.placeholder))
        assert tokens_to_segments(tokenizer(text)) == want, repr(text)


def test_bundled_documents_match_spacy():
    # Twice: the second pass is answered from the memo alone.
    texts = list(bundled_texts(40))
    for _ in range(2):
        for text in texts:
            assert text_segments(text, S) == reference_segments(text)


def test_small_memo_is_emptied_and_stays_exact():
    tokenizer = ChunkTokenizer(get_tokenizer(S.placeholder), S.placeholder, memo_size=7)
    most = 7  # the memo holds at most memo_size chunks, or one text's chunks
    cleared = 0
    for text in generated_texts(100, 3):
        norm = normalize_text(text).text
        before = len(tokenizer.memo)
        assert tokens_to_segments(tokenizer(norm)) == tokens_to_segments(spacy_tokens(norm, S.placeholder))
        most = max(most, len(set(norm.split())))
        assert len(tokenizer.memo) <= most
        cleared += len(tokenizer.memo) < before
    assert cleared > 0


def test_whitespace_between_chunks():
    tokenizer = get_chunk_tokenizer(S.placeholder)
    # In raw text one plain space joins chunks and any other gap is a boundary
    # token; normalized, a gap with at most one line break is one space and a
    # blank line a boundary.
    for gap in (" ", "  ", "\t", "\u00a0", "\n", " \n\t"):
        assert [s.keys for s in text_segments(f"a{gap}b", S)] == [("a", "b")]
        if gap != " ":
            assert (1, 1 + len(gap), None) in tokenizer(f"a{gap}b")
    for gap in ("\n\n", "\n \n", "\r\n\r\n", "\u2029\u2029"):
        assert [s.keys for s in text_segments(f"a{gap}b", S)] == [("a",), ("b",)]


def test_rules_that_join_chunks_turn_the_memo_off():
    # A special case with a space inside matches across two chunks, so chunks
    # are no longer tokenized on their own: the memo must not be used.
    tokenizer = spacy.blank("en").tokenizer
    assert can_memoise(tokenizer, S.placeholder)
    tokenizer.add_special_case("Mr Smith", [{ORTH: "Mr Smith"}])
    assert not can_memoise(tokenizer, S.placeholder)
    assert [t.text for t in tokenizer("Mr Smith said")] == ["Mr Smith", "said"]
    assert not can_memoise(get_tokenizer(S.placeholder), "[NAME REMOVED]")


def test_special_cases_split_by_whitespace_match_spacy():
    # Special cases of several affix tokens (":)", "e.g.") are found by a
    # matcher over tokens; split by whitespace they must not join across chunks.
    affixes_only = spacy.blank("en").tokenizer
    affixes_only.rules = {}
    tried = 0
    for rule in get_tokenizer(S.placeholder).rules:
        pieces = [t.text for t in affixes_only(rule)]
        for i in range(1, len(pieces)):
            for gap in (" ", "  ", "\n"):
                text = "The " + "".join(pieces[:i]) + gap + "".join(pieces[i:]) + " said"
                assert text_segments(text, S) == reference_segments(text), repr(text)
                tried += 1
    assert tried > 1000


def _flat_equal(a, b):
    import numpy as np

    return (a.keys == b.keys and a.n_segments == b.n_segments
            and all(np.array_equal(x, y) for x, y in zip(a[1:5], b[1:5])))


@pytest.mark.parametrize("seed", [6, 7])
def test_flat_tokens_match_segments(seed):
    # The detector's flat form (no tuple per token) against text_segments,
    # on generated and bundled texts and texts with whitespace at the ends.
    from spacy_linkguard.ngrams.segments import flat_from_segments, text_tokens_flat

    texts = list(generated_texts(300, seed)) + list(bundled_texts(30))
    texts += ["", " ", "\n\n", "a", " a ", "a  b", "\n\na. b\n\n", "[REDACTED]", "x [REDACTED]. y z"]
    for text in texts:
        assert _flat_equal(text_tokens_flat(text, S), flat_from_segments(text_segments(text, S))), repr(text)


@pytest.mark.parametrize("seed", [8, 9])
def test_chunk_flat_matches_call_on_raw_text(seed):
    # `flat` gives the tokens of `__call__`, its whitespace boundary tokens as
    # gap flags, also on raw text with odd gaps between chunks.
    tokenizer = get_chunk_tokenizer(S.placeholder)
    for text in list(generated_texts(200, seed)) + ["", " ", " a\tb  c ", "\u3000x", "a\n\nb"]:
        keys, starts, ends, gap = tokenizer.flat(text)
        got, prev_end = [], -1
        for key, s, e, g in zip(keys, starts.tolist(), ends.tolist(), gap.tolist()):
            if g:
                got.append((prev_end, s, None))
            got.append((s, e, key))
            prev_end = e
        assert got == tokenizer(text), repr(text)


def test_lean_tokenizer_flags_like_spacy():
    # The chunk tokenizer's own vocabulary computes only is_punct / is_space.
    tokenizer = get_chunk_tokenizer(S.placeholder).tokenizer
    full = get_tokenizer(S.placeholder)
    text = " ".join(WORDS) + " \n\n . , ; : ( ) [ ] ' \" \u2014 \u00a7"
    assert [(t.text, t.idx, t.is_punct, t.is_space) for t in tokenizer(text)] == [
        (t.text, t.idx, t.is_punct, t.is_space) for t in full(text)]


def _letter_runs_of_affix_patterns(tokenizer):
    """Every run of ASCII letters in the prefix, suffix and infix patterns
    ("km", "US", "mph", ...): the words most likely to be split if a rule could
    split a word of letters."""
    import re

    patterns = [f.__self__.pattern for f in (tokenizer.prefix_search, tokenizer.suffix_search,
                                             tokenizer.infix_finditer)]
    return {run for p in patterns for run in re.findall(r"[A-Za-z]+", p)}


def test_plain_words_are_one_token_as_spacy_makes_them():
    # The memo's shortcut (`is_plain_word`) against the tokenizer itself, on
    # every plain word of a bundled collection, every string of one or two
    # ASCII letters, and the letter runs of the affix patterns.
    tokenizer = get_chunk_tokenizer(S.placeholder)
    full = get_tokenizer(S.placeholder)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = set(letters) | {a + b for a in letters for b in letters}
    words |= _letter_runs_of_affix_patterns(full)
    words |= set(full.rules)  # special cases ("cannot", "Im") must not take the shortcut
    with (ASSETS / "echr" / "collection.jsonl").open(encoding="utf8") as f:
        for line in f:
            words.update(normalize_text(json.loads(line)["text"]).text.split())
    plain = sorted(w for w in words if tokenizer.is_plain_word(w))
    assert len(plain) > 15_000 and "cannot" not in plain and "km" in plain
    got = [[(t.text, t.is_punct) for t in doc] for doc in full.pipe(plain, batch_size=5000)]
    wrong = [(w, toks) for w, toks in zip(plain, got) if toks != [(w, False)]]
    assert not wrong, wrong[:10]
    # The placeholder and non-ASCII or mixed chunks go to the tokenizer.
    letters_placeholder = ChunkTokenizer(get_tokenizer("XXMASKXX"), "XXMASKXX")
    assert not letters_placeholder.is_plain_word("fooXXMASKXXbar") and letters_placeholder.is_plain_word("foobar")
    assert not any(tokenizer.is_plain_word(w) for w in ("Straße", "km2", "it's", "U.S", "", S.placeholder))
