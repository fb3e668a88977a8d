"""The linkguard_rewrite component: extensions, real index + Detector, the
brute-force oracle, serialization, borrowing the linkguard detector, n_process.
The model is the canned-reply test model (no real LLM)."""
import pytest
import spacy

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex
from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from tests.rewrite.oracle import CORPUS, QUERY, DictIndex, brute_force

CANNED = {"@llm_models": "linkguard_test.Canned.v1", "behaviour": "good"}
TASK = {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []}


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("rw") / "index"
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], path, progress=False, n_process=1)
    return path


def make_nlp(index_dir=None, **cfg):
    nlp = spacy.blank("en")
    config = {"task": TASK, "model": CANNED, "max_passes": 8, **cfg}
    if index_dir is not None:
        config["index"] = str(index_dir)
    nlp.add_pipe("linkguard_rewrite", config=config)
    return nlp


def test_component_writes_a_safe_text_and_pass_records(index_dir):
    nlp = make_nlp(index_dir)
    doc = nlp(QUERY)
    assert doc.text == QUERY  # the Doc itself is untouched
    assert doc._.linkguard_safe is True
    assert brute_force(doc._.linkguard_text, DictIndex(CORPUS)).safe
    passes = doc._.linkguard_passes
    assert passes and set(passes[0]) >= {"spans_sent", "spans_removed", "llm_calls", "prompt_tokens",
                                         "completion_tokens", "seconds"}
    assert passes[0]["spans_sent"] > 0 and doc._.linkguard_forced_redactions == 0
    assert doc._.linkguard_text_before_guarantee == doc._.linkguard_text  # nothing was forced


def test_old_verdict_name_is_a_deprecated_alias_of_linkguard_safe(index_dir):
    doc = make_nlp(index_dir)(QUERY)
    with pytest.warns(DeprecationWarning, match="linkguard_safe"):
        assert doc._.linkguard_rewrite_safe is doc._.linkguard_safe is True


def test_guarantee_redacts_what_a_model_never_removes(index_dir):
    nlp = make_nlp(index_dir, model={**CANNED, "behaviour": "unchanged"}, max_passes=1, max_retries=0)
    doc = nlp(QUERY)
    assert doc._.linkguard_forced_redactions > 0
    assert "[REDACTED]" in doc._.linkguard_text
    assert brute_force(doc._.linkguard_text, DictIndex(CORPUS)).safe
    # the model left the text unchanged: before guarantee mode it is the input, still unsafe
    assert doc._.linkguard_text_before_guarantee == QUERY
    assert not brute_force(doc._.linkguard_text_before_guarantee, DictIndex(CORPUS)).safe


def test_index_can_arrive_in_initialize(index_dir):
    nlp = make_nlp()
    with pytest.raises(LinkguardError, match="E209"):
        nlp("The applicant lives in Kraljevo.")
    nlp.get_pipe("linkguard_rewrite").initialize(index=str(index_dir))
    assert brute_force(nlp(QUERY)._.linkguard_text, DictIndex(CORPUS)).safe


def test_initialize_takes_an_open_index(index_dir):
    from spacy_linkguard.index import open_index

    index = open_index(index_dir)
    nlp = make_nlp()
    comp = nlp.get_pipe("linkguard_rewrite")
    comp.initialize(nlp=nlp, index=index)
    assert comp.detector.index is index and comp.cfg["index"] == str(index.path)
    assert brute_force(nlp(QUERY)._.linkguard_text, DictIndex(CORPUS)).safe
    with pytest.raises(LinkguardError, match="E114"):
        comp.initialize(index=["not", "an", "index"])


def test_a_config_names_the_index_once_in_initialize(index_dir, tmp_path):
    """As the shipped configs do: [paths] index, read by [initialize.components.linkguard_rewrite]."""
    from spacy.util import load_config_from_str, load_model_from_config

    text = """
[paths]
index = null

[nlp]
lang = "en"
pipeline = ["linkguard_rewrite"]

[components]

[components.linkguard_rewrite]
factory = "linkguard_rewrite"
max_passes = 8

[components.linkguard_rewrite.task]
@llm_tasks = "linkguard.Rewrite.v1"
examples = []

[components.linkguard_rewrite.model]
@llm_models = "linkguard_test.Canned.v1"
behaviour = "good"

[initialize]

[initialize.components]

[initialize.components.linkguard_rewrite]
index = ${paths.index}
"""
    cfg = load_config_from_str(text, overrides={"paths.index": str(index_dir)}, interpolate=False)
    nlp = load_model_from_config(cfg, auto_fill=True, validate=True)
    nlp.initialize()
    comp = nlp.get_pipe("linkguard_rewrite")
    assert comp.cfg["index"] == str(index_dir)
    assert brute_force(nlp(QUERY)._.linkguard_text, DictIndex(CORPUS)).safe
    nlp.to_disk(tmp_path / "pipe")  # spacy assemble's way: the folder is saved with the component
    assert spacy.load(tmp_path / "pipe").get_pipe("linkguard_rewrite").cfg["index"] == str(index_dir)


def test_the_detector_of_a_linkguard_component_is_reused(index_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index_dir)})
    nlp.add_pipe("linkguard_rewrite", config={"task": TASK, "model": CANNED, "max_passes": 8})
    doc = nlp(QUERY)
    assert doc.spans["linkguard"]  # flagged on the input
    assert nlp.get_pipe("linkguard_rewrite").detector is nlp.get_pipe("linkguard").detector
    assert brute_force(doc._.linkguard_text, DictIndex(CORPUS)).safe


def test_round_trip_to_disk_and_bytes(index_dir, tmp_path):
    nlp = make_nlp(index_dir, max_passes=3, guarantee=True)
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    comp = loaded.get_pipe("linkguard_rewrite")
    assert comp.cfg == nlp.get_pipe("linkguard_rewrite").cfg
    assert loaded(QUERY)._.linkguard_text == nlp(QUERY)._.linkguard_text
    other = make_nlp(None).get_pipe("linkguard_rewrite")
    other.from_bytes(nlp.get_pipe("linkguard_rewrite").to_bytes())
    assert other.cfg["index"] == str(index_dir) and other.cfg["max_passes"] == 3


def test_pipe_batches_documents_and_runs_in_two_processes(index_dir):
    nlp = make_nlp(index_dir, batch_size=2)
    texts = [QUERY, CORPUS[0] + " He moved to Kraljevo.", "Nothing links here at all.", QUERY]
    single = [d._.linkguard_text for d in nlp.pipe(texts)]
    multi = [d._.linkguard_text for d in nlp.pipe(texts, n_process=2, batch_size=2)]
    assert single == multi
    assert single[0] == single[3] and single[2] == texts[2]
    assert all(brute_force(t, DictIndex(CORPUS)).safe for t in single)
