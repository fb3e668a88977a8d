import pytest

from spacy_linkguard.baselines.inflect import indefinite_article, inflect, match_case


@pytest.mark.parametrize("lemma,tag,expected", [
    ("hound", "NNS", "hounds"), ("child", "NNS", "children"), ("bus", "NNS", "buses"),
    ("papers", "NNS", "papers"),  # already plural in WordNet: not "paperses"
    ("post office", "NNS", "post offices"), ("go", "VBD", "went"), ("go", "VBN", "gone"),
    ("decide", "VBZ", "decides"), ("run", "VBG", "running"), ("look into", "VBD", "looked into"),
    ("big", "JJS", "biggest"), ("glad", "JJR", "gladder"), ("beautiful", "JJR", "more beautiful"),
    ("rapidly", "RBR", "more rapidly"), ("tribunal", "NN", "tribunal"), ("decide", "VBP", "decide"),
    ("frobnicate", "VBD", "frobnicated"),  # unknown verb: lemminflect's rules
])
def test_inflect(lemma, tag, expected):
    assert inflect(lemma, tag) == expected


def test_inflect_other_tags_give_none():
    assert inflect("dog", "IN") is None
    assert inflect("dog", "PRP") is None


def test_match_case_and_article():
    assert match_case("Court", "tribunal") == "Tribunal"
    assert match_case("COURT", "tribunal") == "TRIBUNAL"
    assert match_case("court", "Tribunal") == "Tribunal"  # a proper-name synonym keeps its case
    assert match_case("I", "me") == "Me"
    assert indefinite_article("apple") == "an" and indefinite_article("car") == "a"
    assert indefinite_article("Old", capital=True) == "An"
