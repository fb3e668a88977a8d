"""The `linkguard` component: spans on the Doc, evidence, serialization, multiprocessing."""
import json
import subprocess
import sys

import pytest
import spacy

from spacy_linkguard.corpus import Record
from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex

from ..detect.corpora import mask, random_corpus

SEED = 11


@pytest.fixture(scope="module")
def corpus():
    return random_corpus(SEED, n_docs=20)


@pytest.fixture(scope="module")
def index_dir(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("lg") / "index"
    NgramIndex.build([Record(id=i, text=t) for i, t in corpus], path, progress=False)
    return path


@pytest.fixture(scope="module")
def texts(corpus):
    import random

    rng = random.Random(SEED)
    return [mask(rng, t) for _, t in corpus[:6]] + ["", "nothing here is in the index"]


def make_nlp(index_dir, **cfg):
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index_dir), **cfg})
    return nlp


def doc_result(doc, key="linkguard"):
    spans = [
        (s.start_char, s.end_char, s.label_, s._.linkguard_df, s._.linkguard_linked_ids, s._.linkguard_n_broken,
         s._.linkguard_examples)
        for s in doc.spans[key]
    ]
    report = dict(doc._.linkguard_report)
    report.pop("seconds")
    return spans, doc._.linkguard_safe, report


def test_spans_and_extensions_match_the_detector(index_dir, texts):
    nlp = make_nlp(index_dir, k=2, max_arity=3)
    det = Detector(NgramIndex.load(index_dir), k=2, max_arity=3)
    n_combo = 0
    for text in texts:
        doc = nlp(text)
        res = det.detect(text)
        got = [(s.start_char, s.end_char, s.label_) for s in doc.spans["linkguard"]]
        assert got == [(f.start_char, f.end_char, f.label) for f in res.spans]
        assert doc._.linkguard_safe == res.safe
        for span, f in zip(doc.spans["linkguard"], res.spans):
            assert span._.linkguard_df == f.df and span._.linkguard_n_broken == f.n_broken
            assert span._.linkguard_linked_ids == f.linked_ids and span._.linkguard_examples == f.examples
            n_combo += f.label == "COMBO"
    assert n_combo > 0
    assert nlp("")._.linkguard_safe is True


def test_hostile_spacing_gives_the_same_spans_on_the_doc(index_dir, texts):
    # No-break and zero-width spaces: the Doc's spans carry the plain text's
    # keys and sit on the hostile text's own characters.
    nlp = make_nlp(index_dir, k=2, max_arity=2)
    plain = nlp(texts[0])
    doc = nlp(texts[0].replace(" ", "\u00a0\u200b"))
    assert doc._.linkguard_safe == plain._.linkguard_safe is False
    assert [s.label_ for s in doc.spans["linkguard"]] == [s.label_ for s in plain.spans["linkguard"]]
    for span, ref in zip(doc.spans["linkguard"], plain.spans["linkguard"]):
        # the Doc's own tokens keep a zero-width space with the next word
        assert span.text.replace("\u00a0", " ").replace("\u200b", "") == ref.text


def test_spans_key_and_arity_config(index_dir, texts):
    nlp = make_nlp(index_dir, max_arity=1, spans_key="flags", k=5)
    doc = nlp(texts[0])
    assert "flags" in doc.spans and "linkguard" not in doc.spans
    assert {s.label_ for s in doc.spans["flags"]} == {"NGRAM"}
    assert doc._.linkguard_report["k"] == 5


def test_spans_expand_to_the_pipelines_tokens(index_dir, corpus):
    # The Doc keeps "alpha/beta" as one token where the detector sees three.
    from spacy.tokens import Doc

    nlp = make_nlp(index_dir)
    words = corpus[0][1].split(" ")
    merged = []
    for w in words:
        if merged and len(merged) % 3 == 0 and merged[-1].isalpha() and w.isalpha():
            merged[-1] += "/" + w
        else:
            merged.append(w)
    doc = nlp.get_pipe("linkguard")(Doc(nlp.vocab, words=merged))
    res = Detector(NgramIndex.load(index_dir)).detect(doc.text)
    spans = list(doc.spans["linkguard"])
    assert any("/" in s.text for s in spans)
    assert len(spans) == len(res.spans)
    for span, f in zip(spans, res.spans):
        assert span.start_char <= f.start_char and f.end_char <= span.end_char


def test_span_cost_config_reaches_the_detector_and_the_disk(index_dir, texts, tmp_path):
    nlp = make_nlp(index_dir, span_cost="weighted")
    det = Detector(NgramIndex.load(index_dir), span_cost="weighted")
    assert nlp.get_pipe("linkguard").detector.span_cost == "weighted"
    for text in texts[:3]:
        want = det.detect(text)
        doc = nlp(text)
        assert [(s.start_char, s.end_char, s.label_) for s in doc.spans["linkguard"]] == [
            (f.start_char, f.end_char, f.label) for f in want.spans]
    nlp.to_disk(tmp_path / "pipe")
    assert spacy.load(tmp_path / "pipe").get_pipe("linkguard").detector.span_cost == "weighted"
    with pytest.raises(LinkguardError, match="E330"):
        make_nlp(index_dir, span_cost="cheap")


def test_to_disk_from_disk_round_trip(index_dir, texts, tmp_path):
    nlp = make_nlp(index_dir, k=5, max_arity=2)
    nlp.to_disk(tmp_path / "pipe")
    cfg = json.loads((tmp_path / "pipe" / "linkguard" / "cfg.json").read_text())
    assert cfg["index_checksum"] == NgramIndex.load(index_dir).checksum and cfg["k"] == 5
    nlp2 = spacy.load(tmp_path / "pipe")
    assert nlp2.get_pipe("linkguard").cfg == nlp.get_pipe("linkguard").cfg
    for text in texts:
        assert doc_result(nlp2(text)) == doc_result(nlp(text))
    nlp3 = spacy.blank("en")
    nlp3.add_pipe("linkguard").from_bytes(nlp.get_pipe("linkguard").to_bytes())
    assert doc_result(nlp3(texts[0])) == doc_result(nlp(texts[0]))


def test_changed_index_is_an_error(corpus, tmp_path):
    index = tmp_path / "index"
    NgramIndex.build([Record(id=i, text=t) for i, t in corpus[:10]], index, progress=False)
    nlp = make_nlp(index)
    nlp.to_disk(tmp_path / "pipe")
    NgramIndex.build([Record(id=i, text=t) for i, t in corpus[:12]], index, progress=False)
    with pytest.raises(LinkguardError, match="E112"):
        spacy.load(tmp_path / "pipe")


def test_config_errors(index_dir, tmp_path):
    with pytest.raises(LinkguardError, match="E110"):
        spacy.blank("en").add_pipe("linkguard")(spacy.blank("en")("a b"))
    with pytest.raises(LinkguardError, match="E003"):
        make_nlp(index_dir, max_n=4)("alpha beta")
    with pytest.raises(LinkguardError, match="E059"):  # the opener's code, as in every command
        make_nlp(tmp_path / "missing")("alpha beta")
    with pytest.raises(LinkguardError, match="E100"):
        make_nlp(index_dir, k=1)
    with pytest.raises(LinkguardError, match="E101"):
        make_nlp(index_dir, max_arity=0)


def test_pipe_with_two_processes(index_dir, texts):
    nlp = make_nlp(index_dir)
    one = [doc_result(d) for d in nlp.pipe(texts, batch_size=2)]
    two = [doc_result(d) for d in nlp.pipe(texts, batch_size=2, n_process=2)]
    assert one == two
    assert any(spans for spans, _, _ in one)


def test_factory_resolves_in_a_fresh_process(index_dir):
    code = (
        "import spacy; nlp = spacy.blank('en'); "
        f"nlp.add_pipe('linkguard', config={{'index': {str(index_dir)!r}}}); "
        "doc = nlp('alpha beta gamma delta'); print(doc._.linkguard_safe in (True, False))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_moved_index_with_same_content_loads_via_config_override(corpus, index_dir, texts, tmp_path):
    import shutil

    nlp = make_nlp(index_dir)
    nlp.to_disk(tmp_path / "pipe")
    moved = tmp_path / "moved-index"
    shutil.copytree(index_dir, moved)
    nlp2 = spacy.load(tmp_path / "pipe", config={"components": {"linkguard": {"index": str(moved)}}})
    assert nlp2.get_pipe("linkguard").cfg["index"] == str(moved)
    assert doc_result(nlp2(texts[0])) == doc_result(nlp(texts[0]))
    other = tmp_path / "other-index"
    NgramIndex.build([Record(id=i, text=t) for i, t in corpus[:5]], other, progress=False)
    with pytest.raises(LinkguardError, match="E112"):
        spacy.load(tmp_path / "pipe", config={"components": {"linkguard": {"index": str(other)}}})


def test_spans_that_do_not_fit_the_doc_are_reported(index_dir, texts):
    from spacy_linkguard.errors import LinkguardWarning
    from spacy_linkguard.pipeline.linkguard import install_extensions, set_annotations

    install_extensions()
    install_extensions()  # idempotent
    res = Detector(NgramIndex.load(index_dir)).detect(texts[0])
    assert res.spans
    short = spacy.blank("en")("alpha")
    with pytest.warns(LinkguardWarning, match="W100"):
        set_annotations(short, res, "linkguard")
    assert len(short.spans["linkguard"]) < len(res.spans)
    assert short._.linkguard_safe is res.safe


CONFIG = """
[paths]
index = null

[nlp]
lang = "en"
pipeline = ["linkguard"]

[components]

[components.linkguard]
factory = "linkguard"
k = 2
max_arity = 3

[initialize]

[initialize.components]

[initialize.components.linkguard]
index = ${paths.index}
"""


def test_the_index_arrives_in_initialize_from_the_config(index_dir, texts, tmp_path):
    from spacy.util import load_config_from_str, load_model_from_config

    cfg = load_config_from_str(CONFIG, overrides={"paths.index": str(index_dir)}, interpolate=False)
    nlp = load_model_from_config(cfg, auto_fill=True, validate=True)
    assert nlp.get_pipe("linkguard").cfg["index"] is None  # not in the component block
    nlp.initialize()
    assert nlp.get_pipe("linkguard").cfg["index"] == str(index_dir)
    expected = make_nlp(index_dir)
    assert [doc_result(nlp(t)) for t in texts] == [doc_result(expected(t)) for t in texts]
    # saved and loaded without initialize: the folder travels in cfg.json (relative)
    nlp.to_disk(tmp_path / "pipe")
    saved = json.loads((tmp_path / "pipe" / "linkguard" / "cfg.json").read_text())
    assert not saved["index"].startswith("/")
    loaded = spacy.load(tmp_path / "pipe")
    assert [doc_result(loaded(t)) for t in texts] == [doc_result(expected(t)) for t in texts]


def test_initialize_takes_an_open_index_and_reads_its_settings(index_dir, texts):
    from spacy_linkguard.index import open_index

    index = open_index(index_dir)
    nlp = spacy.blank("en")
    linkguard = nlp.add_pipe("linkguard")
    linkguard.initialize(nlp=nlp, index=index)
    assert linkguard.index is index and linkguard.detector.index is index
    assert linkguard.settings == index.settings and linkguard.cfg["index"] == str(index.path)
    assert doc_result(nlp(texts[0])) == doc_result(make_nlp(index_dir)(texts[0]))
    # a path opens through the same cache: the same object
    other = spacy.blank("en").add_pipe("linkguard")
    other.initialize(index=str(index_dir))
    assert other.index is index


def test_initialize_errors(index_dir):
    with pytest.raises(LinkguardError, match="E110"):
        spacy.blank("en").add_pipe("linkguard").initialize()
    with pytest.raises(LinkguardError, match="E114"):
        spacy.blank("en").add_pipe("linkguard").initialize(index=42)
    # max_n / placeholder need not be set; set and different from the index's: E003, at initialize
    with pytest.raises(LinkguardError, match="E003"):
        spacy.blank("en").add_pipe("linkguard", config={"max_n": 4}).initialize(index=str(index_dir))
    with pytest.raises(LinkguardError, match="E003"):
        spacy.blank("en").add_pipe("linkguard", config={"placeholder": "[X]"}).initialize(index=str(index_dir))
    same = spacy.blank("en").add_pipe("linkguard", config={"max_n": 8, "placeholder": "[REDACTED]"})
    same.initialize(index=str(index_dir))  # equal to the index's: accepted


def test_a_sharded_index_through_initialize_and_disk(corpus, index_dir, texts, tmp_path):
    NgramIndex.build([Record(id=i, text=t) for i, t in corpus], tmp_path / "sharded", progress=False, shards=2)
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard").initialize(index=str(tmp_path / "sharded"))
    plain = make_nlp(index_dir)
    assert [doc_result(nlp(t)) for t in texts] == [doc_result(plain(t)) for t in texts]
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe", config={"components": {"linkguard": {"index": str(tmp_path / "sharded")}}})
    assert doc_result(loaded(texts[0])) == doc_result(plain(texts[0]))


def test_sources_on_the_doc_give_the_source_verdict(corpus, index_dir, texts, tmp_path):
    nlp = make_nlp(index_dir)
    det = Detector(NgramIndex.load(index_dir), k=2, max_arity=3)
    own, other = corpus[0][0], corpus[1][0]
    doc = nlp.make_doc(texts[0])
    doc._.linkguard_sources = [own]
    doc = nlp(doc)
    expected = det.detect(texts[0], [own])
    assert doc._.linkguard_report["verdict"] == "source" and doc._.linkguard_report["sources"] == [own]
    assert [(s.start_char, s.end_char) for s in doc.spans["linkguard"]] == [
        (s.start_char, s.end_char) for s in expected.spans]
    assert doc._.linkguard_safe == expected.safe
    # No sources on the Doc: the any verdict under "auto".
    plain = nlp(texts[0])
    assert plain._.linkguard_report["verdict"] == "any" and plain._.linkguard_safe == det.detect(texts[0]).safe
    # Through nlp.pipe, Docs with and without sources.
    docs = [nlp.make_doc(t) for t in texts[:3]]
    docs[1]._.linkguard_sources = [other]
    got = [d._.linkguard_report["verdict"] for d in nlp.pipe(docs)]
    assert got == ["any", "source", "any"]
    # verdict "any" ignores the sources; "source" needs them.
    doc = nlp.make_doc(texts[0])
    doc._.linkguard_sources = [own]
    assert make_nlp(index_dir, verdict="any")(doc)._.linkguard_report["verdict"] == "any"
    with pytest.raises(LinkguardError, match=r"\[E108\]"):
        make_nlp(index_dir, verdict="source")(texts[0])
    with pytest.raises(LinkguardError, match=r"\[E107\]"):
        make_nlp(index_dir, verdict="strict")
    doc = nlp.make_doc(texts[0])
    doc._.linkguard_sources = ["not-a-document"]
    with pytest.raises(LinkguardError, match=r"\[E106\]"):
        nlp(doc)
    # The setting survives to_disk / from_disk.
    make_nlp(index_dir, verdict="any").to_disk(tmp_path / "p")
    assert spacy.load(tmp_path / "p").get_pipe("linkguard").cfg["verdict"] == "any"
