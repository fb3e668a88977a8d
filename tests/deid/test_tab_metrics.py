"""TAB's official metrics (ER_di, ER_qi, token precision) on hand-made records."""
from spacy_linkguard.deid.tab_metrics import TabCounts, count_tab, entities, mention_masked, tab_metrics

TEXT = "Mr John Smith met the Court of Oslo on 3 May 1961. Smith paid."
#       0123456789012345678901234567890123456789012345678901234567890


def mention(ann, eid, start, end, kind="QUASI", etype="PERSON"):
    return {"entity_id": f"{ann}_{eid}", "start_offset": start, "end_offset": end, "identifier_type": kind,
            "entity_type": etype}


def find(sub, nth=0):
    i = -1
    for _ in range(nth + 1):
        i = TEXT.index(sub, i + 1)
    return i, i + len(sub)


def annotations():
    smith = find("Smith", 1)
    return {"a1": {"entity_mentions": [
        mention("a1", "e1", *find("Mr John Smith"), kind="DIRECT"),
        mention("a1", "e1", *smith, kind="DIRECT"),
        mention("a1", "e2", *find("the Court of Oslo"), etype="ORG"),
        mention("a1", "e3", *find("3 May 1961"), etype="DATETIME"),
        mention("a1", "e4", *find("paid"), kind="NO_MASK", etype="MISC"),
    ]}}


def test_ignored_words_and_punctuation():
    masked = set(range(*find("John Smith")))
    assert mention_masked(TEXT, masked, *find("Mr John Smith"))  # "Mr" is ignored
    court = set(range(*find("Court"))) | set(range(*find("Oslo")))
    assert mention_masked(TEXT, court, *find("the Court of Oslo"))  # "the", "of" and spaces too
    assert not mention_masked(TEXT, set(range(*find("Court"))), *find("the Court of Oslo"))


def test_an_entity_is_masked_only_with_all_its_mentions():
    spans = [find("John Smith"), find("the Court of Oslo"), find("3 May 1961")]
    m = tab_metrics(count_tab(TEXT, annotations(), spans))
    assert m["ER_di"] == 0.0  # the second "Smith" is not masked
    assert m["ER_qi"] == 1.0 and m["n_quasi_entities"] == 2 and m["n_direct_entities"] == 1
    m = tab_metrics(count_tab(TEXT, annotations(), spans + [find("Smith", 1)]))
    assert m["ER_di"] == 1.0


def test_token_precision_counts_tokens_per_annotator():
    # 2 true tokens (John, Smith) + 1 false (met), one annotator -> 2/3
    m = tab_metrics(count_tab(TEXT, annotations(), [(find("John")[0], find("met")[1])]))
    assert m["token_precision"] == round(2 / 3, 4)
    # A second annotator who masked only "Smith": John counts 1 of 2, Smith 2 of 2, met 0 of 2.
    two = annotations()
    two["a2"] = {"entity_mentions": [mention("a2", "e1", *find("Smith"), kind="DIRECT")]}
    assert len(entities(two)) == 5
    m = tab_metrics(count_tab(TEXT, two, [(find("John")[0], find("met")[1])]))
    assert m["token_precision"] == round(3 / 6, 4)


def test_counts_add_up():
    a = count_tab(TEXT, annotations(), [find("John Smith")])
    total = TabCounts().add(a).add(a)
    assert total.direct == [0, 2] and total.system_tokens == 2 * a.system_tokens
