"""parse_reply against canned replies, well-formed and malformed."""
import pytest

from spacy_linkguard.llm.tasks.rewrite.parser import parse_reply, parse_responses_v1

CASES = [
    # plain: reasoning then the object
    ('I swap a synonym.\n{"text": "The applicant resides in [REDACTED]."}', "The applicant resides in [REDACTED]."),
    # code fences and trailing chatter
    ('Reasoning: short.\n```json\n{"text": "A new text."}\n```\nHope this helps!', "A new text."),
    # escaped quotes and a unicode escape inside the string
    ('{"text": "He said \\"no\\" to the \\u00a7 2 claim."}', 'He said "no" to the \u00a7 2 claim.'),
    # a raw line break inside the string (not valid strict JSON)
    ('{"text": "First paragraph.\nSecond paragraph."}', "First paragraph.\nSecond paragraph."),
    # the reasoning quotes the input object: the LAST object wins
    ('Input was {"text": "old words", "spans": ["old"]}. Answer: {"text": "new words"}', "new words"),
    # extra keys and surrounding whitespace
    ('{"reasoning": "x", "text": "  edited  "}', "edited"),
    # a trailing comma (loose fallback)
    ('{"text": "edited text",}', "edited text"),
    # a <think> block with a decoy object inside
    ('<think>{"text": "draft"}</think>{"text": "final"}', "final"),
    # nested object after the answer without the field: answer still found
    ('{"text": "answer"} and then {"note": {"a": 1}}', "answer"),
]


@pytest.mark.parametrize("reply,expected", CASES)
def test_parse_reply_extracts_the_edited_chunk(reply, expected):
    assert parse_reply(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "Sorry, I cannot help with that.",
        '{"text": "cut off before the end',  # truncated by max_new_tokens
        '{"answer": "wrong key"}',
        '{"text": 42}',
        "[1, 2, 3]",
        None,
        {"text": "not a string reply"},
    ],
)
def test_parse_reply_gives_none_without_a_usable_object(reply):
    assert parse_reply(reply) is None


def test_parse_responses_v1_keeps_the_nesting():
    out = list(parse_responses_v1(None, [[1, 2], [3]], [['{"text": "a"}', "junk"], ['{"text": "b"}']]))
    assert out == [["a", None], ["b"]]
