import math

from spacy_linkguard.deid.evaluation import DocCounts, GoldMention, count_doc, mention_masked, metrics, span_recall
from spacy_linkguard.deid.spans import covered_chars

TEXT = "Mr Jo Li lives in Oslo since 1990."
#       0123456789012345678901234567890123


def test_mention_masked_ignores_spaces():
    mask = covered_chars([(0, 2), (3, 8)], len(TEXT))
    assert mention_masked(TEXT, mask, 0, 8)  # the space at 2 need not be masked
    assert not mention_masked(TEXT, mask, 0, 10)  # "l" of "lives" is not masked


def test_count_doc_hand_computed():
    gold = [
        GoldMention(0, 8, "PERSON", "DIRECT"),      # "Mr Jo Li"  fully masked
        GoldMention(18, 22, "LOC", "QUASI"),        # "Oslo"      half masked
        GoldMention(29, 33, "DATETIME", "QUASI"),   # "1990"      masked
        GoldMention(9, 14, "MISC", "NO_MASK"),      # "lives"     not counted in precision
    ]
    masked = [(0, 8), (18, 20), (29, 33), (23, 28)]  # (23, 28) = "since": a false positive
    c = count_doc(TEXT, masked, gold)
    m = metrics(c)
    assert m["mention_recall"] == {"DIRECT": 1.0, "QUASI": 0.5, "MASKED": round(2 / 3, 4)}
    # tokens: Mr, Jo, Li (3/3 DIRECT); Oslo (0/1), 1990 (1/1) QUASI
    assert m["token_recall"] == {"DIRECT": 1.0, "QUASI": 0.5, "MASKED": 0.8}
    assert m["recall_by_entity_type"] == {"DATETIME": 1.0, "LOC": 0.0, "PERSON": 1.0}
    # masked non-space chars: "MrJoLi"=6 + "Os"=2 + "1990"=4 + "since"=5 = 17; inside gold: 12
    assert c.masked_chars == 17 and c.masked_in_gold == 12
    assert m["precision"] == round(12 / 17, 4)


def test_counts_add_up_over_documents():
    a = count_doc(TEXT, [(0, 8)], [GoldMention(0, 8, "PERSON", "DIRECT")])
    b = count_doc(TEXT, [], [GoldMention(18, 22, "LOC", "DIRECT")])
    total = DocCounts().add(a).add(b)
    assert metrics(total)["mention_recall"]["DIRECT"] == 0.5
    assert math.isnan(metrics(DocCounts())["precision"])


def test_span_recall_hand_computed():
    assert span_recall(TEXT, [(0, 8), (18, 20)], [(0, 8), (18, 22)]) == (1, 2, 6 + 2, 6 + 4)
