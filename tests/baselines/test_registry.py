"""`linkguard.Lexical.v1` is reached through the `spacy_misc` entry point."""
import subprocess
import sys

import pytest
from spacy import registry
from thinc.api import Config

from spacy_linkguard.baselines.paraphraser import LexicalParaphraser
from spacy_linkguard.errors import LinkguardError


def test_fresh_process_resolves_the_registered_name():
    # A new interpreter that never imported spacy_linkguard finds it via the entry point.
    code = ("from spacy import registry; "
            "f = registry.misc.get('linkguard.Lexical.v1'); "
            "print(f.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "spacy_linkguard.baselines.registry"


def test_config_builds_a_paraphraser_with_its_settings():
    cfg = Config().from_str("""
[lexical]
@misc = "linkguard.Lexical.v1"
rate = 0.25
seed = 7
max_candidates = 8
drop_modifiers = false
""")
    lexical = registry.resolve(cfg)["lexical"]
    assert isinstance(lexical, LexicalParaphraser)
    assert lexical.rate == 0.25 and lexical.seed == 7
    assert lexical.settings.max_candidates == 8 and lexical.settings.drop_modifiers is False
    assert lexical._nlp is None  # the spaCy pipeline loads on first use, not when resolving


def test_config_errors_are_coded(tmp_path):
    make = registry.misc.get("linkguard.Lexical.v1")
    with pytest.raises(LinkguardError, match="apt-get install wordnet-base"):
        make(wordnet_dir=str(tmp_path))
    with pytest.raises(LinkguardError, match="E283"):
        make(max_synonyms=0)


def test_missing_spacy_pipeline_is_a_coded_error():
    from spacy_linkguard.baselines.paraphraser import load_tagger

    with pytest.raises(LinkguardError, match=r"E285.*no_such_pipeline_xyz"):
        load_tagger("no_such_pipeline_xyz")
