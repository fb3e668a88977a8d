"""Each shipped court-case recognizer: positive and negative examples.

Checked through Presidio on a blank pipeline, so only the YAML patterns speak.
"""
import pytest

POSITIVE = [
    # (recognizer's entity, text, expected detected substring)
    ("APPLICATION_NUMBER", "an application (no. 36110/97) against", "36110/97"),
    ("APPLICATION_NUMBER", "applications nos. 65731/01 and 65900/01", "65900/01"),
    ("CASE_NUMBER", "under case no. 1996/276 before", "1996/276"),
    ("CASE_NUMBER", "registered under registration no. D-4840 in", "D-4840"),
    ("CASE_NUMBER", "located at no. 128 of the street", "128"),
    ("CASE_NUMBER", "the decision (E. 1995/123, K. 1996/45) was", "E. 1995/123"),
    ("CASE_NUMBER", "in the case NJA 2005 p. 884 the", "NJA 2005 p. 884"),
    ("DATE_TIME", "on 31 May 1991 the applicant", "31 May 1991"),
    ("DATE_TIME", "between 10-12 May 2000 he", "10-12 May 2000"),
    ("DATE_TIME", "on May 5, 2001 he", "May 5, 2001"),
    ("DATE_TIME", "in March 1998 she", "March 1998"),
    ("DATE_TIME", "dated 18.02.1996 was", "18.02.1996"),
    ("DATE_TIME", "born in 1925 in", "1925"),
    ("DATE_TIME", "from 1960-1979 he", "from 1960-1979"),
    ("DATE_TIME", "in 1960–79 he", "1960–79"),
    ("DATE_TIME", "detained between 5 May 2006 and 24 October 2008 in", "between 5 May 2006 and 24 October 2008"),
    ("DATE_TIME", "in 1994, 1995 and 1997 he", "1994, 1995 and 1997"),
    ("PERSON", "represented by Mr S. Kotuła, a lawyer", "Mr S. Kotuła"),
    ("PERSON", "by Mrs Anna Evagorou Christou (“the applicant”)", "Mrs Anna Evagorou Christou"),
    ("PERSON", "their Agent, Mr H.İ. Er, of the", "Mr H.İ. Er"),
    ("PERSON", "the witness Mr J.S. said", "Mr J.S."),
    ("MONEY", "the sum of EUR 4,684.40 for", "EUR 4,684.40"),
    ("MONEY", "a total of 200,000 Turkish liras (TRY) was", "200,000 Turkish liras (TRY)"),
    ("MONEY", "a fine of 1,500 Austrian schillings to", "1,500 Austrian schillings"),
    ("MONEY", "he paid 1,579 New Turkish liras (YTL) in", "1,579 New Turkish liras (YTL)"),
    ("QUANTITY", "close to the sea (about 50 metres)", "50 metres"),
    ("QUANTITY", "exceeding the speed limit by 26 km/h on", "26 km/h"),
    ("QUANTITY", "a plot of 6,299 m² in", "6,299 m²"),
    ("QUANTITY", "along with twenty-one other persons were", "twenty-one other persons"),
    ("NRP", "by a Turkish national, Mr X", "Turkish national"),
    ("OCCUPATION", "he worked as a ballet dancer in", "ballet dancer"),
    ("OCCUPATION", "she is a lawyer practising in", "lawyer"),
    ("PHONE_NUMBER", "call him on telephone +44 20 7946 0958 today", "+44 20 7946 0958"),
    ("EMAIL_ADDRESS", "write to jan.kowalski@example.pl now", "jan.kowalski@example.pl"),
    ("URL", "published at https://www.example.org/article/12 in", "https://www.example.org/article/12"),
    ("URL", "see www.hudoc.echr.coe.int.", "www.hudoc.echr.coe.int"),
    ("IP_ADDRESS", "from the address 192.168.10.7 at", "192.168.10.7"),
    ("IBAN_CODE", "paid into account DE89 3704 0044 0532 0130 00 by", "DE89 3704 0044 0532 0130 00"),
    ("CREDIT_CARD", "card number 4111 1111 1111 1111 was", "4111 1111 1111 1111"),
    ("ORGANIZATION", "brought an action before the Söke Labour Court, which", "Söke Labour Court"),
    ("ORGANIZATION", "the Mersin Civil Court of First-instance held", "Mersin Civil Court of First-instance"),
    ("CASE_NUMBER", "under file number reference AB-1234 the", "AB-1234"),
]

NEGATIVE = [
    # (entity that must NOT be found, text)
    ("APPLICATION_NUMBER", "Article 6 § 1 of the Convention and Protocol No. 11"),
    ("APPLICATION_NUMBER", "the ratio was 1/2 and 3/4"),
    ("CASE_NUMBER", "under Law no. 3713 on the Prevention of Terrorism"),
    ("CASE_NUMBER", "Article 5 § 2 of Protocol No. 11"),
    ("DATE_TIME", "he waited for a while in the corridor"),
    ("DATE_TIME", "paragraph 1234567 of the report"),
    ("DATE_TIME", "between 5 and 24 of the items, from 3000 to 4000 euros"),
    ("PERSON", "Mr and Mrs were written without names."),
    ("PERSON", "the mrs smith note in lower case"),
    ("MONEY", "the Euro area and pounds of flour"),
    ("QUANTITY", "the metres were not measured"),
    ("NRP", "the national authorities decided"),
    ("OCCUPATION", "the Lawyers' Association building"),
    ("PHONE_NUMBER", "application no. 36110/97 and 12 March 1998"),
    ("PHONE_NUMBER", "the figures 20 7946 0958 without any context"),
    ("ORGANIZATION", "the court of appeal dismissed the appeal"),
    ("URL", "the applicant's e.g. statement ended."),
    ("IP_ADDRESS", "paragraphs 1.2.3 and 4.5 of the report"),
    ("IBAN_CODE", "Article 6 § 1 and DE 12 of the Code"),
    ("CREDIT_CARD", "the sum of 1234 5678 9012 3456 euros is not a valid card"),
    ("CASE_NUMBER", "the KGB-1234 letters without any context"),
]


@pytest.mark.parametrize("entity,text,expected", POSITIVE)
def test_recognizer_positive(pattern_analyzer, entity, text, expected):
    found = pattern_analyzer(text)
    assert (entity, expected) in found, found


@pytest.mark.parametrize("entity,text", NEGATIVE)
def test_recognizer_negative(pattern_analyzer, entity, text):
    found = pattern_analyzer(text)
    assert not [f for f in found if f[0] == entity], found


def test_titled_name_stops_at_line_break(pattern_analyzer):
    found = pattern_analyzer("represented by Mr Karl Strobel\nThe Government objected")
    assert ("PERSON", "Mr Karl Strobel") in found
