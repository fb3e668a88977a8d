"""Guarantee mode returns safe texts, checked with the brute-force oracle,
both with the real Detector and with the brute-force detector double; both
units (whole spans, rarest tokens); the placeholders it writes next to each
other become one, the input's stay."""
import random
import re

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.rewrite.guarantee import (
    join_written,
    merge_intervals,
    redact_spans,
    redact_tracked,
    redact_until_safe,
)

from ..detect.oracle import oracle
from .oracle import CORPUS, QUERY, BruteDetector, DictIndex, brute_force

VOCAB = "the court applicant state held that was in of a case law police on he".split()


def random_text(rng, n_words):
    words = [rng.choice(VOCAB) for _ in range(n_words)]
    for i in range(5, n_words, rng.randint(5, 9)):
        words[i] += rng.choice([".", ",", ""])
    return " ".join(words)


def random_world(seed):
    rng = random.Random(seed)
    corpus = [random_text(rng, rng.randint(15, 40)) for _ in range(8)]
    # the query copies pieces of one document (so it links) plus noise
    src = corpus[0].split()
    query = " ".join(src[: rng.randint(8, len(src))] + random_text(rng, 10).split())
    return corpus, query


@pytest.mark.parametrize("seed", range(25))
def test_real_detector_guarantee_is_safe_by_the_oracle(seed):
    corpus, query = random_world(seed)
    index = DictIndex(corpus)
    text, n, rounds, was_safe = redact_until_safe(query, Detector(index, k=2, max_arity=3), "[REDACTED]")
    assert brute_force(text, index, k=2, m=3).safe
    assert was_safe == brute_force(query, index).safe
    assert (n > 0) == (not was_safe) and (rounds > 0) == (not was_safe)


def small_vocab_world(seed):
    rng = random.Random(seed)
    vocab = VOCAB[: rng.randint(4, 10)]

    def text(n):
        return " ".join(rng.choice(vocab) for _ in range(n))

    corpus = [text(rng.randint(10, 30)) for _ in range(rng.randint(4, 10))]
    return corpus, text(rng.randint(10, 30))


@pytest.mark.parametrize("seed", [21, 95, 227] + list(range(40)))
def test_one_redaction_round_is_enough_with_closed_candidates(seed):
    # Redacting a candidate splits frequent N-grams into shorter ones; with only
    # maximal candidates these could form new linkable combinations (seeds 21,
    # 95 and 227 needed a second round then). The closed candidates already
    # include every shorter piece that singles a document out, and every N-gram
    # left after redaction was one of the text before: one round is enough.
    corpus, query = small_vocab_world(seed)
    index = DictIndex(corpus)
    detector = Detector(index)
    first = detector.detect(query)
    once, _ = redact_spans(query, [(s.start_char, s.end_char) for s in first.spans], "[REDACTED]")
    assert brute_force(once, index).safe
    text, n, rounds, was_safe = redact_until_safe(query, detector, "[REDACTED]")
    # the query holds no placeholder: every run of them separated by spaces was written here
    assert text == RUN.sub("[REDACTED]", once) and rounds == (0 if was_safe else 1)


RUN = re.compile(r"\[REDACTED\](?:[ \t]+\[REDACTED\])+")


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("sources", [None, ["d0"]])
def test_token_unit_is_safe_by_the_oracle_and_replaces_the_rarest_token(seed, sources):
    corpus, query = random_world(seed)
    index = DictIndex(corpus)
    detector = Detector(index, k=2, max_arity=3)
    text, n, rounds, was_safe = redact_until_safe(query, detector, "[REDACTED]", sources=sources, unit="token")
    src = None if sources is None else {0}
    assert oracle(text, index.keysets, index.settings, 2, 3, sources=src).safe
    assert was_safe == oracle(query, index.keysets, index.settings, 2, 3, sources=src).safe
    # its first round: each flagged span loses exactly its token of lowest df (brute force), the first on ties
    first = detector.detect(query, sources) if sources else detector.detect(query)
    expected = []
    for sp in first.spans:
        words = [(m.start() + sp.start_char, m.end() + sp.start_char, m.group(0))
                 for m in re.finditer(r"[^\s.,]+|[.,]", query[sp.start_char:sp.end_char])]
        dfs = [len(index.docs_of(w.casefold())) for _, _, w in words]
        s, e, _ = words[dfs.index(min(dfs))]
        expected.append((s, e))
    once, _ = redact_spans(query, expected, "[REDACTED]")
    if rounds == 1:
        assert text == RUN.sub("[REDACTED]", once)
    # never more words lost than the whole spans of the first round took, when one round did it
    span_text, *_ = redact_until_safe(query, detector, "[REDACTED]", sources=sources)
    if rounds == 1:
        assert len(text.replace("[REDACTED]", " ").split()) >= len(span_text.replace("[REDACTED]", " ").split())


def test_written_placeholders_join_and_the_inputs_stay():
    ph = "[REDACTED]"
    text = "On [REDACTED] [REDACTED] the police came.\n\nThe police left."

    def at(t, word, nth=0):
        i = -1
        for _ in range(nth + 1):
            i = t.index(word, i + 1)
        return (i, i + len(word))

    out, written, n = redact_tracked(text, [at(text, "the police"), at(text, "police", 1)], ph, [])
    assert n == 2 and all(out[w:w + len(ph)] == ph for w in written)
    # "came.\n\nThe" lies between the two written ones; the input's two stay two beside the first
    assert join_written(out, written, ph) == out == "On [REDACTED] [REDACTED] [REDACTED] came.\n\nThe [REDACTED] left."
    out2, written2, _ = redact_tracked(out, [at(out, "came")], ph, written)
    assert join_written(out2, written2, ph) == "On [REDACTED] [REDACTED] [REDACTED].\n\nThe [REDACTED] left."
    # a line break between two written placeholders keeps them apart
    t = "alpha beta\ngamma"
    o, w, _ = redact_tracked(t, [at(t, "beta"), at(t, "gamma")], ph, [])
    assert join_written(o, w, ph) == o == "alpha [REDACTED]\n[REDACTED]"


@pytest.mark.parametrize("seed", range(30))
def test_redact_tracked_writes_what_redact_spans_writes_and_knows_where(seed):
    rng = random.Random(seed)
    text = "".join(rng.choice("ab .\n") for _ in range(rng.randint(5, 40)))
    written: list = []
    current = text
    for _ in range(3):  # rounds: spans never touch the placeholders written before
        free = [i for i in range(len(current)) if not any(w <= i < w + 1 for w in written)]
        spans = []
        for _ in range(rng.randint(0, 3)):
            if free:
                s = rng.choice(free)
                e = s + 1
                if all(not (w <= s < w + 1) for w in written):
                    spans.append((s, e))
        expected, n_expected = current, 0
        for s, e in reversed(merge_intervals(spans)):  # the plain definition: right to left
            expected, n_expected = expected[:s] + "#" + expected[e:], n_expected + 1
        current, written, n = redact_tracked(current, spans, "#", written)
        assert (current, n) == (expected, n_expected)
        assert all(current[w] == "#" for w in written) and written == sorted(set(written))
    assert current.count("#") == len(written) + text.count("#")


def test_an_unknown_unit_is_a_coded_error():
    from spacy_linkguard.rewrite import RewriteLoop

    with pytest.raises(LinkguardError, match="E288"):
        redact_until_safe("some text", Detector(DictIndex(CORPUS)), "[REDACTED]", unit="word")
    with pytest.raises(LinkguardError, match="E288"):
        RewriteLoop(Detector(DictIndex(CORPUS)), object(), guarantee_unit="words")
    import spacy

    from . import canned  # noqa: F401  (registers linkguard_test.Canned.v1)

    nlp = spacy.blank("en")
    config = {"task": {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []},
              "model": {"@llm_models": "linkguard_test.Canned.v1"}}
    with pytest.raises(LinkguardError, match="E288"):
        nlp.add_pipe("linkguard_rewrite", config={**config, "guarantee_unit": "sentence"})
    assert nlp.add_pipe("linkguard_rewrite", config={**config, "guarantee_unit": "token"}).cfg["guarantee_unit"] == "token"


def test_fixture_query_with_both_detectors():
    index = DictIndex(CORPUS)
    for det in (Detector(index), BruteDetector(index)):
        for unit in ("span", "token"):
            text, n, rounds, was_safe = redact_until_safe(QUERY, det, "[REDACTED]", unit=unit)
            assert not was_safe and n > 0 and brute_force(text, index).safe
            assert text.count("\n\n") == QUERY.count("\n\n")


class _Liar:
    """Says unsafe but flags nothing (a broken detector)."""
    settings = None

    def detect(self, text):
        return type("D", (), {"safe": False, "spans": []})()


def test_an_unsafe_verdict_without_spans_is_an_error_not_a_hang():
    with pytest.raises(LinkguardError, match="E208"):
        redact_until_safe("some text", _Liar(), "[REDACTED]")


def test_redact_spans_merges_overlaps():
    assert merge_intervals([(5, 8), (0, 2), (1, 3), (8, 9)]) == [(0, 3), (5, 9)]
    assert redact_spans("abcdefghij", [(1, 3), (2, 4), (6, 7)], "#") == ("a#ef#hij", 2)
