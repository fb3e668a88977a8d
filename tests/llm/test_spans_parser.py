"""linkguard.RewriteSpans.v1's pure functions: parse_replacements on canned
replies (well-formed and malformed), merge_spans and apply_replacements."""
import pytest

from spacy_linkguard.llm.tasks.rewrite_spans.parser import (
    apply_replacements,
    merge_spans,
    parse_replacements,
    trim_overlap,
    parse_responses_spans_v1,
)

A = '{"span": "lives in", "replacement": "resides in"}'
B = '{"span": "Kraljevo", "replacement": "[REDACTED]"}'
BOTH = [("lives in", "resides in"), ("Kraljevo", "[REDACTED]")]

CASES = [
    # the asked-for object
    ('{"replacements": [%s, %s]}' % (A, B), BOTH),
    # a sentence of preamble, code fences, chatter after it
    ('Here are the replacements:\n```json\n{"replacements": [%s, %s]}\n```\nDone.' % (A, B), BOTH),
    # the wrapper dropped: a bare list of items
    ("[%s, %s]" % (A, B), BOTH),
    # bare strings, in span order
    ('{"replacements": ["resides in", "[REDACTED]"]}', [(None, "resides in"), (None, "[REDACTED]")]),
    # the preamble quotes the input object (its spans list must not win)
    ('Input: {"text": "x", "spans": ["lives in"]}\n{"replacements": [%s]}' % A, BOTH[:1]),
    # cut off by max_new_tokens in the middle of the second item: the first is kept
    ('{"replacements": [%s, {"span": "Kraljevo", "replacem' % A, BOTH[:1]),
    # items without a string replacement are skipped; whitespace stripped
    ('{"replacements": [{"span": "a"}, {"span": "b", "replacement": 3}, '
     '{"span": "lives in", "replacement": "  resides in "}]}', BOTH[:1]),
    # "nothing to replace" is an empty list, not a parse failure
    ('{"replacements": []}', []),
    # a raw line break inside a string
    ('{"replacements": [{"span": "lives in", "replacement": "resides\nin"}]}', [("lives in", "resides\nin")]),
    # <think> with a decoy answer
    ('<think>{"replacements": [{"span": "x", "replacement": "y"}]}</think>{"replacements": [%s]}' % A, BOTH[:1]),
]


@pytest.mark.parametrize("reply,expected", CASES)
def test_parse_replacements(reply, expected):
    assert parse_replacements(reply) == expected


@pytest.mark.parametrize("reply", [
    None, 42, "", "I cannot help with that.", '{"text": "a whole chunk"}', '{"replacements": "resides in"}',
    '{"replacements": [', "[1, 2]", '[{"span": 1}]',
])
def test_unusable_replies_give_none(reply):
    assert parse_replacements(reply) is None


def test_parse_responses_keeps_the_nesting():
    got = list(parse_responses_spans_v1(None, [[1, 2], [3]], [['{"replacements": []}', "junk"], ["[%s]" % A]]))
    assert got == [[[], None], [BOTH[:1]]]


TEXT = "He said stop and lives in Kraljevo. He lives in Kraljevo now."
KR1, KR2 = TEXT.index("Kraljevo"), TEXT.rindex("Kraljevo")
LI1, LI2 = TEXT.index("lives in"), TEXT.rindex("lives in")
SPANS = [(LI1, LI1 + 8), (KR1, KR1 + 8), (LI2, LI2 + 8), (KR2, KR2 + 8)]


def test_named_replacements_go_to_every_flagged_occurrence():
    # regions: "lives in Kraljevo" twice (adjacent spans merge)
    regions = merge_spans(TEXT, SPANS)
    assert [TEXT[s:e] for s, e in regions] == ["lives in Kraljevo", "lives in Kraljevo"]
    edited, n = apply_replacements(TEXT, regions, [("Lives in  KRALJEVO", "resides in [REDACTED]")])
    assert edited == "He said stop and resides in [REDACTED]. He resides in [REDACTED] now." and n == 1


def test_bare_strings_pair_with_distinct_spans_only_when_counts_match():
    spans = [(LI1, LI1 + 8), (KR1, KR1 + 8)]
    edited, n = apply_replacements(TEXT, spans, [(None, "resides in"), (None, "[X]")])
    assert edited == "He said stop and resides in [X]. He lives in Kraljevo now." and n == 2
    assert apply_replacements(TEXT, spans, [(None, "resides in")]) == (TEXT, 0)


def test_a_widened_span_replaces_the_occurrence_around_a_flagged_one():
    spans = [(KR1, KR1 + 8)]
    edited, n = apply_replacements(TEXT, spans, [("in Kraljevo.", "in [X]."), ("said stop", "halt")])
    assert edited == "He said stop and lives in [X]. He lives in Kraljevo now." and n == 1  # "said stop" not flagged


def test_overlapping_edits_keep_the_first_and_unknown_spans_are_ignored():
    spans = [(LI1, LI1 + 8), (KR1, KR1 + 8)]
    items = [("lives in Kraljevo", "is at home in [X]"), ("Kraljevo", "[Y]"), ("nowhere", "x"), ("", "y")]
    edited, n = apply_replacements(TEXT, spans, items)
    assert edited == "He said stop and is at home in [X]. He lives in Kraljevo now." and n == 2


def test_merge_spans_joins_overlaps_and_whitespace_gaps_only():
    text = "a bb cc, dd ee ff"
    offs = [(0, 4), (2, 7), (9, 11), (12, 14)]
    assert [text[s:e] for s, e in merge_spans(text, offs)] == ["a bb cc", "dd ee"]
    assert merge_spans(text, []) == []


@pytest.mark.parametrize("before,new,after,expected", [
    # runs past its span: "properties properties" (seen with Qwen2.5-Coder-1.5B at temperature 0.3)
    ("of Cyprus ", "had taken away her home and properties", " properties.", "had taken away her home and"),
    # repeats the words before its span
    ("In X the applicant ", "the applicant filed a complaint with the", " [X] claiming", "filed a complaint with the"),
    ("was ", "paid to the applicant", " to the applicant.", "paid"),
    # nothing repeated, or nothing would be left: unchanged
    ("a ", "resides in", " Kraljevo", "resides in"),
    ("the ", "[REDACTED]", " court", "[REDACTED]"),
    ("a ", "b", " b c", "b"),
])
def test_trim_overlap(before, new, after, expected):
    assert trim_overlap(before, new, after) == expected


def test_apply_trims_a_replacement_that_runs_past_its_span():
    text = "The occupation had deprived her of her home and properties."
    s = text.index("had")
    e = text.index(" properties")
    edited, n = apply_replacements(text, [(s, e)], [(text[s:e], "had taken away her home and properties")])
    assert edited == "The occupation had taken away her home and properties." and n == 1
