from spacy_linkguard.deid import CONF_DIR
from spacy_linkguard.deid.denylist import DenyList, filter_denied, normalize_phrase
from spacy_linkguard.deid.spans import PiiSpan


def test_normalize_phrase():
    assert normalize_phrase("  “The  Court” ") == "the court"


def test_deny_list_rules():
    deny = DenyList.from_config(
        phrases=["the facts"],
        patterns=[r"article\s+\d+.*"],
        generic_words=["the", "supreme", "court", "of"],
        label_patterns={"DATE_TIME": [r"(?!.*[A-Z\u0130])(?!.*\d).*"]},
    )
    assert deny.denies("THE FACTS")
    assert deny.denies("Article 6 § 1")
    assert deny.denies("the Supreme Court")
    assert not deny.denies("the Ankara Supreme Court")  # "Ankara" is not generic
    assert not deny.denies("1932 of 1934")  # numbers are never generic words
    assert deny.denies("the same day", "DATE_TIME")
    assert not deny.denies("the same day", "PERSON")
    assert not deny.denies("İzmir", "DATE_TIME")  # capital: a name the model mislabelled
    assert not deny.denies("3 May", "DATE_TIME")


def test_shipped_deny_list_keeps_identifiers():
    deny = DenyList.from_file(CONF_DIR / "deny_list.yaml")
    for boiler in ["the Court", "Grand Chamber", "THE FACTS", "the Government", "the Turkish Government",
                   "the Supreme Administrative Court", "the Ministry of Foreign Affairs", "the Republic of Turkey",
                   "Fourth Section", "1 November 1998"]:
        assert deny.denies(boiler), boiler
    for ident in ["Mr S. Kotuła", "the Söke Labour Court", "Istanbul", "36110/97", "12 March 1998", "United Kingdom"]:
        assert not deny.denies(ident), ident


def test_filter_denied_uses_span_text_and_label():
    text = "the Court and Mr X"
    deny = DenyList.from_config(phrases=["court"])
    spans = [PiiSpan(0, 9, "ORGANIZATION"), PiiSpan(14, 18, "PERSON")]
    assert filter_denied(text, spans, deny) == [spans[1]]
