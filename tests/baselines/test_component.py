"""The `linkguard_lexical_rewrite` component (real spaCy tagger and WordNet, cheap scorer)."""
import pytest
import spacy

from spacy_linkguard.baselines import registry as _registry  # noqa: F401 -- linkguard.LexicalRewriter.v1
from spacy_linkguard.baselines.paraphraser import LexicalParaphraser
from spacy_linkguard.baselines.rewriter import LexicalRewriter
from spacy_linkguard.pipeline.rewrite import LinkguardRewrite
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex

pytestmark = pytest.mark.slow  # loads the spaCy pipeline

def _pipeline(index_path, nlp, cheap_scorer, *, seed=0, max_chunk_chars=1200, factory="linkguard_lexical_rewrite",
              **cfg):
    pipeline = spacy.blank("en")
    rewriter = {"@misc": "linkguard.LexicalRewriter.v1", "seed": seed, "max_chunk_chars": max_chunk_chars,
                "lexical": {"@misc": "linkguard.Lexical.v1", "seed": 3}}
    pipe = pipeline.add_pipe(factory, config={"index": str(index_path), "rewriter": rewriter, **cfg})
    # The tagger of the fixture and the cheap scorer, instead of loading them again.
    pipe.model._nlp = nlp
    pipe.model.scorer = cheap_scorer
    return pipeline, pipe


def test_component_rewrites_until_safe(lexical_index, lexical_queries, nlp, cheap_scorer):
    pipeline, pipe = _pipeline(lexical_index, nlp, cheap_scorer, max_passes=2)
    assert isinstance(pipe, LinkguardRewrite) and isinstance(pipe.rewriter, LexicalRewriter)
    assert isinstance(pipe.model, LexicalParaphraser) and pipe.task is None
    detector = Detector(NgramIndex.load(lexical_index), k=2, max_arity=3)
    texts = lexical_queries[:2]  # the ones with replaceable content words
    docs = list(pipeline.pipe(texts))
    for doc, text in zip(docs, texts):
        assert doc.text == text  # the Doc keeps its text; the released one is an extension
        assert doc._.linkguard_safe and detector.detect(doc._.linkguard_text).safe
        assert doc._.linkguard_text != text
        assert doc._.linkguard_passes and all(p["llm_calls"] == 0 for p in doc._.linkguard_passes)
        assert doc._.linkguard_passes[0]["spans_removed"] > 0


def test_component_settings_round_trip(lexical_index, nlp, cheap_scorer, tmp_path):
    pipeline, pipe = _pipeline(lexical_index, nlp, cheap_scorer, guarantee=False, seed=9, max_chunk_chars=300)
    pipe.to_disk(tmp_path / "pipe")
    _, other = _pipeline(lexical_index, nlp, cheap_scorer)
    other.from_disk(tmp_path / "pipe")
    assert other.cfg == pipe.cfg
    assert other.loop.rewriter.seed == 9 and other.loop.guarantee is False
    assert other.loop.rewriter.chunking.max_chunk_chars == 300
    assert other.from_bytes(pipe.to_bytes()).cfg["seed"] == 9


def test_component_runs_in_two_processes(lexical_index, lexical_queries, nlp, cheap_scorer):
    pipeline, _ = _pipeline(lexical_index, nlp, cheap_scorer, batch_size=1)
    texts = lexical_queries[:2] + ["Nothing here links at all."]
    single = [d._.linkguard_text for d in pipeline.pipe(texts)]
    multi = [d._.linkguard_text for d in pipeline.pipe(texts, n_process=2, batch_size=1)]
    assert single == multi
    assert single[2] == texts[2] and single[0] != texts[0]


def test_linkguard_rewrite_takes_the_lexical_backend_from_its_config(lexical_index, lexical_queries, nlp,
                                                                     cheap_scorer):
    # task and model null: the default LLM blocks are not built
    pipeline, pipe = _pipeline(lexical_index, nlp, cheap_scorer, factory="linkguard_rewrite", max_passes=2,
                               max_retries=0, task=None, model=None)
    assert isinstance(pipe.rewriter, LexicalRewriter)
    lexical_pipeline, _ = _pipeline(lexical_index, nlp, cheap_scorer, max_passes=2)
    texts = lexical_queries[:2]
    assert [d._.linkguard_text for d in pipeline.pipe(texts)] == [d._.linkguard_text for d in lexical_pipeline.pipe(texts)]
