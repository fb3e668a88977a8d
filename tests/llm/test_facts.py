"""The facts of a text (llm/facts.py) and the fact guard (filters/f2_facts.py).

Sentences are from ECHR judgments (assets/echr/queries.jsonl); candidates are
hand-written rewrites, standing for model replies (no LLM runs here).
"""
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters import reasons as guards
from spacy_linkguard.filters.f2_facts import check_facts, fact_diff, generalizes
from spacy_linkguard.llm.facts import NEG, UNANIMOUS, fact_spans, facts_of

QUERIES = Path(__file__).parents[2] / "assets" / "echr" / "queries.jsonl"


def echr_sentences():
    texts = [json.loads(line)["text"] for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [s for t in texts for s in re.split(r"(?<=[.;])\s+(?=[A-Z])|\n+", t) if s.strip()]


# --- facts_of: canonical forms ------------------------------------------------
@pytest.mark.parametrize("text,facts", [
    ("he was convicted of three counts of battery and robbery", {"num:3": 1}),
    ("two counts of robbery", {"num:2": 1}),
    ("one offences of theft", {"num:1": 1}),
    ("EUR 1,000 and 3.50 euros", {"num:1000": 1, "num:3.5": 1}),
    ("twenty-one days; two hundred and fifty euros; 5 million", {"qty:21 day": 1, "num:250": 1, "num:5000000": 1}),
    # a number with a unit of time or a percentage is one quantity, not a number
    ("within two weeks; a 3-month delay; five years' imprisonment; 10 per cent; 4%",
     {"qty:2 week": 1, "qty:3 month": 1, "qty:5 year": 1, "qty:10 percent": 1, "qty:4 percent": 1}),
    ("two applicants over several weeks", {"num:2": 1}),
    ("a dozen witnesses", {"num:12": 1}),
    ("on 1 November 1998", {"num:1": 1, "num:1998": 1}),
    ("in the 1990s", {"decade:1990": 1}),
    ("in the twentieth century, the 21st century", {"century:20": 1, "century:21": 1}),
    ("The application was allocated to the Third Section of the Court (Rule 52 § 1 of the Rules of Court).",
     {"ord:3": 1, "ref:rule 52 § 1": 1}),
    ("third place; 23rd; the twenty-first day", {"ord:3": 1, "ord:23": 1, "ord:21": 1}),
    ("He relied on Articles 6, 13, 14 and 18 of the Convention and Article 1 of Protocol No. 1.",
     {"ref:art 6": 1, "ref:art 13": 1, "ref:art 14": 1, "ref:art 18": 1, "ref:art 1": 1, "ref:protocol 1": 1}),
    ("Article 14 being taken together with Article 9 (art. 14+9)", {"ref:art 14": 2, "ref:art 9": 2}),
    ("Article 35 §§ 3 (a) and 4; Article 5 § 1 (c)",
     {"ref:art 35 § 3 (a)": 1, "ref:art 35 § 4": 1, "ref:art 5 § 1 (c)": 1}),
    ("Rule 39; § 3; para. 1; paragraphs 25-27 above", {"ref:rule 39": 1, "ref:§ 3": 1, "ref:§ 1": 1,
                                                       "ref:§ 25": 1, "ref:§ 27": 1}),
    ("Article 5 § 2 of Protocol No. 11", {"ref:art 5 § 2": 1, "ref:protocol 11": 1}),
    ("application (no. [REDACTED]); Law no. 466; applications nos. 123/01 and 456/02",
     {"num:466": 1, "num:123/01": 1, "num:456/02": 1}),
    ("The appeal against conviction was unanimously dismissed.", {UNANIMOUS: 1}),
    ("he no longer posed a threat; she had told no one", {NEG: 2}),
    ("He didn't and cannot, without fail; neither he nor she; never; nothing",
     {NEG: 8}),
    ("several, some, a number of, many, few, hundreds of, dozens of applicants", {}),
    ("the Court declared the application partly inadmissible", {}),
])
def test_facts_of(text, facts):
    assert facts_of(text) == Counter(facts)


@pytest.mark.parametrize("a,b", [
    ("two", "2"),
    ("1,000", "one thousand"),
    ("3.5", "3.50"),
    ("twenty-one", "21"),
    ("the third applicant", "the 3rd applicant"),
    ("Article 6 § 1", "Article 6 para. 1"),
    ("Article 6 § 1", "art. 6-1"),
    ("Article 6 § 1", "ARTICLE 6 PARAGRAPH 1"),
    ("Protocol No. 1", "protocol no 1"),
    ("did not", "never"),
    ("§ 3", "paragraph 3"),
    ("within two weeks", "within 2 weeks"),
    ("five years' imprisonment", "a five-year prison term"),
    ("10 per cent", "ten percent"),
    ("10 per cent", "10%"),
])
def test_one_fact_written_two_ways(a, b):
    assert facts_of(a) == facts_of(b) and facts_of(a)


@pytest.mark.parametrize("a,b", [
    ("two", "second"),  # a number is not an ordinal
    ("Article 6 § 1", "Article 6"),
    ("Article 6", "Rule 6"),
    ("unanimously", "not"),  # unanimity is its own cue
    ("1998", "1990s"),
    # the unit is part of the quantity (both from the GPU rows' outputs, read by hand)
    ("within two weeks", "within two months"),
    ("three weeks", "three days"),
    ("two weeks", "two"),
])
def test_different_facts(a, b):
    assert facts_of(a) != facts_of(b)


def test_protocol_number_is_not_a_negation():
    for text in ("Article 1 of Protocol No. 1", "Protocol No. 11 to the Convention", "Protocols Nos. 1 and 4",
                 "application no. [REDACTED]", "Law No 466"):
        assert NEG not in facts_of(text), text
    assert facts_of("there was no appeal")[NEG] == 1


def test_spans_on_echr_sentences():
    """On every ECHR sentence: spans in order, not overlapping, inside the
    text, the multiset facts_of; the same facts in upper and lower case."""
    sentences = echr_sentences()
    assert len(sentences) > 500
    n_facts = 0
    for s in sentences:
        spans = fact_spans(s)
        assert all(0 <= a < b <= len(s) for a, b, _ in spans), s
        assert all(b1 <= a2 for (_, b1, _), (a2, _, _) in zip(spans, spans[1:])), s
        assert Counter(v for _, _, v in spans) == facts_of(s)
        assert facts_of(s.upper()) == facts_of(s) == facts_of(s.lower()), s
        n_facts += len(spans)
    assert n_facts > 1000


def test_span_offsets_cover_the_words():
    s = "The application was transmitted to the Court on 1 November 1998 (Article 5 § 2 of Protocol No. 11)."
    got = [(s[a:b], v) for a, b, v in fact_spans(s)]
    assert got == [("1", "num:1"), ("1998", "num:1998"), ("Article 5 § 2", "ref:art 5 § 2"),
                   ("Protocol No. 11", "ref:protocol 11")]


# --- the fact guard -------------------------------------------------------------
def spans(sentence, *phrases):
    """The character span of each phrase in the sentence (first occurrence)."""
    out = []
    for p in phrases:
        i = sentence.index(p)
        out.append((i, i + len(p)))
    return out


CONVICTED = "In 1998 he was convicted of three counts of battery and robbery by the Bristol Crown Court."
ALLOCATED = "The application was allocated to the Third Section of the Court (Rule 52 § 1 of the Rules of Court)."
RELIED = "He relied on Articles 6, 13, 14 and 18 of the Convention and Article 1 of Protocol No. 1."
UNANIMOUS_S = "The appeal against conviction was unanimously dismissed by the Court of Appeal in Leeds."
PARTLY = "On 3 May 2004 the Court declared the application partly inadmissible."
NEVER = "The prosecution had never cited a witness, W., to appear at the trial in Lyon."
OBSERVATIONS = "He was asked to submit his final written observations within two weeks."

GUARD_CASES = [
    # (sentence, flagged phrases, candidate, expected reason)
    # kept: the flagged court reworded, every fact in place
    (CONVICTED, ["the Bristol Crown Court"],
     "In 1998 he was convicted of three counts of battery and robbery by a criminal court.", None),
    (CONVICTED, ["the Bristol Crown Court"],
     "In 1998 a court found him guilty on 3 counts of battery and robbery.", None),
    # dropped / changed outside the flagged span
    (CONVICTED, ["the Bristol Crown Court"],
     "In 1998 he was convicted of battery and robbery by a criminal court.", guards.FACT_DROPPED),
    (CONVICTED, ["the Bristol Crown Court"],
     "In 1998 he was convicted of one count of battery and robbery by a criminal court.", guards.FACT_DROPPED),
    # invented: a number the sentence lacks
    (CONVICTED, ["the Bristol Crown Court"],
     "In 1998 he was convicted of three counts of battery and robbery by a court of 12 jurors.",
     guards.FACT_INVENTED),
    # a flagged year generalized: accepted
    (CONVICTED, ["In 1998"],
     "In the late 1990s he was convicted of three counts of battery and robbery by the Bristol Crown Court.", None),
    (CONVICTED, ["In 1998"],
     "In the twentieth century he was convicted of three counts of battery and robbery by the Bristol Crown "
     "Court.", None),
    (CONVICTED, ["In 1998"],
     "Some years ago he was convicted of three counts of battery and robbery by the Bristol Crown Court.", None),
    # ... replaced by another year, or a decade that does not cover it: rejected
    (CONVICTED, ["In 1998"],
     "In 1997 he was convicted of three counts of battery and robbery by the Bristol Crown Court.",
     guards.FACT_INVENTED),
    (CONVICTED, ["In 1998"],
     "In the 1980s he was convicted of three counts of battery and robbery by the Bristol Crown Court.",
     guards.FACT_INVENTED),
    # the same generalization of a year outside the flagged spans: rejected
    (CONVICTED, ["the Bristol Crown Court"],
     "In the late 1990s he was convicted of three counts of battery and robbery by a criminal court.",
     guards.FACT_DROPPED),
    # a flagged count generalized (vague, no fact) vs replaced
    (CONVICTED, ["three counts of battery and robbery"],
     "In 1998 he was convicted of several violent offences by the Bristol Crown Court.", None),
    (CONVICTED, ["three counts of battery and robbery"],
     "In 1998 he was convicted of two violent offences by the Bristol Crown Court.", guards.FACT_INVENTED),
    # ordinals and legal references
    (ALLOCATED, [], "The application was assigned to the Court's Third Section (Rule 52 para. 1 of the Rules of "
                    "Court).", None),
    (ALLOCATED, [], "The application was allocated to the first section of the Court (Rule 52 § 1 of the Rules "
                    "of Court).", guards.FACT_DROPPED),
    (ALLOCATED, [], "The application was allocated to the Third Section of the Court (Rule 52 of the Rules "
                    "of Court).", guards.FACT_DROPPED),
    (RELIED, [], "He invoked Articles 6, 13, 14 and 18 of the Convention, and Article 1 of Protocol No. 1.", None),
    (RELIED, [], "He relied on Articles 6, 13 and 14 of the Convention and Article 1 of Protocol No. 1.",
     guards.FACT_DROPPED),
    (RELIED, [], "He relied on Articles 6, 13, 14 and 18 of the Convention and Article 1 of Protocol No. 4.",
     guards.FACT_DROPPED),
    # negations: "unanimously" -> "by a majority"; "never" dropped or added; "No." is not one
    (UNANIMOUS_S, ["the Court of Appeal in Leeds"],
     "The appeal against conviction was dismissed by a majority of the appellate court.", guards.NEGATION_CHANGED),
    (UNANIMOUS_S, ["the Court of Appeal in Leeds"],
     "The appellate court unanimously dismissed the appeal against conviction.", None),
    (NEVER, ["in Lyon"], "The prosecution had cited a witness, W., to appear at the trial.", guards.NEGATION_CHANGED),
    (NEVER, ["in Lyon"], "The prosecution did not cite a witness, W., to appear at the trial.", None),
    (NEVER, ["in Lyon"], "The prosecution had never cited a witness, W., to appear at no trial.",
     guards.NEGATION_CHANGED),
    # a negation inside a flagged span is kept all the same
    (NEVER, ["had never cited"], "The prosecution summoned a witness, W., to appear at the trial in Lyon.",
     guards.NEGATION_CHANGED),
    # a unit changed under a kept number (seen in the GPU rows: "two weeks" -> "two months")
    (OBSERVATIONS, [], "He was asked to submit his final written observations by the end of two months.",
     guards.FACT_DROPPED),
    (OBSERVATIONS, [], "He was asked to submit his final written observations within 2 weeks.", None),
    (OBSERVATIONS, ["within two weeks"], "He was asked to submit his final written observations shortly.", None),
    (OBSERVATIONS, ["within two weeks"], "He was asked to submit his final written observations within three "
                                         "weeks.", guards.FACT_INVENTED),
    # what the guard does not catch: "partly inadmissible" -> "inadmissible" changes no number or negation
    (PARTLY, ["On 3 May 2004"], "In the 2000s the Court declared the application inadmissible.", None),
]


@pytest.mark.parametrize("sentence,flagged,candidate,reason", GUARD_CASES)
def test_check_facts(sentence, flagged, candidate, reason):
    assert check_facts(sentence, candidate, spans(sentence, *flagged)) == reason


def test_reasons_are_registered():
    for reason in (guards.FACT_DROPPED, guards.FACT_INVENTED, guards.NEGATION_CHANGED, guards.UNKNOWN_WORD):
        assert reason in guards.REASONS
    assert len(set(guards.REASONS)) == len(guards.REASONS)


def test_diff_names_the_facts():
    diff = fact_diff(CONVICTED, "In 1998 he was convicted of one count of theft by a court.",
                     spans(CONVICTED, "the Bristol Crown Court"))
    assert diff.dropped == Counter({"num:3": 1}) and diff.invented == Counter({"num:1": 1})
    assert diff.reason() == guards.FACT_DROPPED


def test_generalization_edges():
    flagged = Counter({"num:1998": 1, "decade:1960": 1, "num:12": 1})
    assert generalizes("decade:1990", flagged)
    assert not generalizes("decade:1980", flagged) and not generalizes("decade:2000", flagged)
    assert not generalizes("decade:1995", flagged)  # not a decade
    assert generalizes("century:20", flagged)  # 1998 and the 1960s
    assert not generalizes("century:19", flagged) and not generalizes("century:21", flagged)
    assert generalizes("century:20", Counter({"num:1900": 1})) and generalizes("century:19", Counter({"num:1900": 1}))
    assert generalizes("century:20", Counter({"num:2000": 1})) and generalizes("century:21", Counter({"num:2000": 1}))
    assert not generalizes("century:21", Counter({"num:1999": 1})) and not generalizes("century:20", Counter({"num:2001": 1}))
    assert generalizes("century:20", Counter({"decade:1900": 1})) and not generalizes("century:19", Counter({"decade:1900": 1}))
    assert not generalizes("decade:10", flagged)  # 12 is not a year
    assert not generalizes("num:1990", flagged) and not generalizes("ord:20", flagged)
    for year in (1000, 1009, 2999):
        assert generalizes(f"decade:{year // 10 * 10}", Counter({f"num:{year}": 1}))
    assert not generalizes("decade:990", Counter({"num:999": 1}))  # 999 is no year


def test_properties_on_echr_sentences():
    """Every ECHR sentence with facts: it passes as its own candidate whatever
    is flagged; without a fact outside the flagged spans it fails; flagged in
    full, its years may become decades."""
    checked = 0
    for s in echr_sentences()[:400]:
        facts = fact_spans(s)
        assert check_facts(s, s, []) is None
        assert check_facts(s, s, [(0, len(s))]) is None
        if not facts:
            continue
        for a, b, value in facts:  # a fact whose words state nothing else
            cut = s[:a] + s[b:]
            if facts_of(cut) == facts_of(s) - Counter([value]):
                reason = guards.NEGATION_CHANGED if value.startswith("neg") else guards.FACT_DROPPED
                assert check_facts(s, cut, []) == reason, (s, value)
                assert check_facts(s, cut, [(a, b)]) == (reason if reason == guards.NEGATION_CHANGED else None)
                break
        years = [(a, b, v) for a, b, v in facts if re.fullmatch(r"num:(1[89]|20)\d\d", v)]
        if years:
            a, b, v = years[-1]
            decade = s[:a] + f"the {v[4:7]}0s" + s[b:]
            assert check_facts(s, decade, [(a, b)]) is None, (s, decade)
            assert check_facts(s, decade, []) == guards.FACT_DROPPED
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("bad", [(5, 3), (-1, 2), (0, 10**6), ("a", 2), (1,)])
def test_bad_span(bad):
    with pytest.raises(LinkguardError, match=r"\[E231\]"):
        check_facts(CONVICTED, CONVICTED, [bad])
