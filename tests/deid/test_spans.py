import itertools
import random

from spacy_linkguard.deid.spans import PiiSpan, bridge_gaps, covered_chars, merge_overlaps, trim_spans


def _oracle_merge(spans):
    """Brute force: union-find over pairs sharing a character."""
    spans = [s for s in spans if s.end > s.start]
    groups = [{i} for i in range(len(spans))]
    for i, j in itertools.combinations(range(len(spans)), 2):
        a, b = spans[i], spans[j]
        if a.start < b.end and b.start < a.end:
            gi = next(g for g in groups if i in g)
            gj = next(g for g in groups if j in g)
            if gi is not gj:
                gi |= gj
                groups.remove(gj)
    out = []
    for g in groups:
        members = [spans[i] for i in g]
        best = min(members, key=lambda s: (-len(s), -s.score, s.start))
        out.append((min(s.start for s in members), max(s.end for s in members), best.label))
    return sorted(out)


def test_merge_overlaps_longest_wins():
    spans = [PiiSpan(0, 5, "A", 0.9), PiiSpan(3, 12, "B", 0.5), PiiSpan(12, 15, "C")]
    merged = merge_overlaps(spans)
    assert [(s.start, s.end, s.label) for s in merged] == [(0, 12, "B"), (12, 15, "C")]


def test_merge_overlaps_tie_goes_to_higher_score():
    merged = merge_overlaps([PiiSpan(0, 4, "A", 0.5), PiiSpan(2, 6, "B", 0.9)])
    assert [(s.start, s.end, s.label, s.score) for s in merged] == [(0, 6, "B", 0.9)]


def test_merge_overlaps_matches_bruteforce_oracle():
    rng = random.Random(7)
    for _ in range(300):
        spans = []
        for _ in range(rng.randint(0, 8)):
            a = rng.randint(0, 30)
            spans.append(PiiSpan(a, a + rng.randint(0, 8), rng.choice("XYZ"), rng.choice([0.3, 0.6, 0.9])))
        got = [(s.start, s.end, s.label) for s in merge_overlaps(spans)]
        assert got == _oracle_merge(spans)
        # non-overlapping and sorted
        assert all(a[1] <= b[0] for a, b in zip(got, got[1:]))


def test_trim_spans_drops_edge_whitespace_and_empty():
    text = "  Mr X  \n"
    assert trim_spans(text, [PiiSpan(0, 8, "P"), PiiSpan(7, 9, "P")]) == [PiiSpan(2, 6, "P")]


def test_bridge_gaps_joins_same_label_across_separator():
    text = "born in Częstochowa, Poland and Mr A"
    a = text.index("Częstochowa")
    b = text.index("Poland")
    spans = [PiiSpan(a, a + 11, "LOCATION"), PiiSpan(b, b + 6, "LOCATION")]
    assert [(s.start, s.end) for s in bridge_gaps(text, spans)] == [(a, b + 6)]


def test_bridge_gaps_keeps_different_labels_and_words_apart():
    text = "Istanbul, 1998 and Ankara in Izmir"
    spans = [PiiSpan(0, 8, "LOCATION"), PiiSpan(10, 14, "DATE_TIME"), PiiSpan(19, 25, "LOCATION"), PiiSpan(29, 34, "LOCATION")]
    assert bridge_gaps(text, spans) == spans


def test_bridge_gaps_closes_bracket():
    text = "PLN 200 [approx. EUR 50] paid"
    spans = [PiiSpan(0, 7, "MONEY"), PiiSpan(17, 23, "MONEY")]
    assert [(s.start, s.end) for s in bridge_gaps(text, spans)] == [(0, 24)]


def test_covered_chars_clips_to_text():
    assert covered_chars([(1, 3), (5, 99)], 6) == bytearray([0, 1, 1, 0, 0, 1])
