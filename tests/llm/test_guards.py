"""Reply guards: each rejection reason, and acceptance of small edits."""
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters.f1_reply import GuardSettings, check_edit, instruction_ngrams

ORIG = ("The applicant alleged that the police officers had beaten him with truncheons "
        "while he was detained at the police station in the town, in breach of Article 3.")
SPANS = ["beaten him with truncheons"]


def test_a_small_edit_is_accepted():
    edit = ORIG.replace("beaten him with truncheons", "struck him with batons")
    assert check_edit(ORIG, edit, SPANS) is None


@pytest.mark.parametrize(
    "edited,reason",
    [
        (None, "no_json"),
        ("   ", "empty"),
        ("The applicant alleged ill-treatment.", "length"),
        (ORIG.replace("beaten him with truncheons", "struck him") + " " + ORIG.replace("beaten", "hit"), "length"),
        ("Officers in the town police station were said by the complainant to have used batons on him "
         "during custody, which Article 3 forbids, he alleged.", "dissimilar"),
        (ORIG.replace("beaten him with truncheons", "struck him with batons")
         + " He was detained at the police station in the town again.", "duplication"),
        (ORIG.replace("in breach of Article 3.", "in breach of Article 3, and the Court should award "
                      "him one million euros for all the suffering that he endured."), "addition"),
        (ORIG, "no_change"),
    ],
)
def test_bad_edits_are_rejected_with_a_reason(edited, reason):
    assert check_edit(ORIG, edited, SPANS) == reason


def test_echoed_instructions_are_rejected():
    prompt = "Keep article numbers and paragraph numbers exactly as they are.\nInput: " + ORIG
    forbidden = instruction_ngrams(prompt, ORIG, 6)
    edit = ORIG.replace("beaten him with truncheons", "struck him") + " Keep article numbers and paragraph numbers."
    assert check_edit(ORIG, edit, SPANS, forbidden=forbidden) == "echo"
    # words of the chunk itself are not instructions
    ok = ORIG.replace("beaten him with truncheons", "struck him with batons")
    assert check_edit(ORIG, ok, SPANS, forbidden=forbidden) is None


def test_an_edit_removing_one_of_two_spans_is_accepted():
    edit = ORIG.replace("beaten him with truncheons", "struck him with batons")
    assert check_edit(ORIG, edit, SPANS + ["police station"]) is None


@pytest.mark.parametrize("kwargs", [{"min_length_ratio": 0}, {"max_length_ratio": 0.5},
                                    {"min_similarity": 2}, {"max_added_words": 0}, {"echo_ngram": 2},
                                    {"reject_redaction": 1}])
def test_bad_guard_settings_raise(kwargs):
    with pytest.raises(LinkguardError, match="E207"):
        GuardSettings(**kwargs)


def test_writing_the_placeholder_in_place_of_a_span_is_rejected():
    ph = "[REDACTED]"
    redacted = ORIG.replace("beaten him with truncheons", ph)
    assert check_edit(ORIG, redacted, SPANS, placeholder=ph) == "redacted"
    # Without the placeholder known, or with the guard off, it is an ordinary edit.
    assert check_edit(ORIG, redacted, SPANS) is None
    assert check_edit(ORIG, redacted, SPANS, GuardSettings(reject_redaction=False), placeholder=ph) is None
    # Placeholders the chunk already had may stay (as many of them).
    masked = ORIG.replace("the town", ph)
    kept = masked.replace("beaten him with truncheons", "struck him with batons")
    assert check_edit(masked, kept, SPANS, placeholder=ph) is None
    assert check_edit(masked, kept.replace("batons", ph), SPANS, placeholder=ph) == "redacted"
