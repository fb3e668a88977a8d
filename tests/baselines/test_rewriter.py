"""The lexical backend (`LexicalRewriter`) in the rewrite loop (real spaCy pipeline and WordNet, cheap scorer)."""
import zlib

import pytest

from spacy_linkguard.baselines.rewriter import NO_CANDIDATE, LexicalRewriter
from spacy_linkguard.baselines.paraphraser import LexicalParaphraser
from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.rewrite import RewriteLoop, occurs

pytestmark = pytest.mark.slow  # loads the spaCy pipeline

def lexical_loop(detector, paraphraser, *, seed=0, **kwargs):
    return RewriteLoop(detector, LexicalRewriter(paraphraser, seed=seed), **kwargs)


@pytest.fixture(scope="module")
def detector(lexical_index):
    return Detector(NgramIndex.load(lexical_index), k=2, max_arity=3)


@pytest.fixture(scope="module")
def paraphraser(nlp, wordnet, cheap_scorer):
    return LexicalParaphraser(nlp=nlp, wordnet=wordnet, scorer=cheap_scorer)


def test_loop_without_guarantee_rewrites_flagged_spans(detector, lexical_queries, paraphraser):
    loop = lexical_loop(detector, paraphraser, max_passes=3, guarantee=False, seed=1)
    with pytest.warns(Warning):  # some documents stay linkable: the loop warns (W200)
        results = loop.run(lexical_queries)
    for i, (text, res) in enumerate(zip(lexical_queries, results)):
        first = detector.detect(text)
        assert not first.safe
        assert res.safe == detector.detect(res.text).safe
        assert res.forced_redactions == 0
        assert all(p.llm_calls == 0 and p.prompt_tokens == 0 for p in res.passes)
        assert res.passes[0].spans_sent == len(first.spans)
        # Paraphrasing time is counted in the passes (the loop itself only counts LLM time).
        pass_seconds = sum(p.seconds for p in res.passes)
        assert pass_seconds > 0 and res.seconds >= pass_seconds - 1e-3  # records are rounded
        if i < 2:
            # Content words with synonyms: the text changed and some flagged spans are gone.
            assert res.text != text and res.passes[0].spans_removed > 0
            assert loop.rewriter.stats[i]["n_edited"] > 0
            gone = [s for s in first.spans if not occurs(text[s.start_char:s.end_char], res.text, detector.settings)]
            assert gone
    # "It was in Paris on Monday.: only names and function words; WordNet cannot help.
    assert results[2].text == lexical_queries[2]
    assert results[2].passes[0].rejected.get(NO_CANDIDATE, 0) >= 1
    assert len(results[2].passes) == 3 and loop.rewriter.stats[2]["n_edited"] == 0


def test_loop_with_guarantee_is_safe_and_seeded(detector, lexical_queries, paraphraser):
    runs = [lexical_loop(detector, paraphraser, max_passes=2, guarantee=True, seed=5).run(lexical_queries)
            for _ in range(2)]
    assert [r.text for r in runs[0]] == [r.text for r in runs[1]]
    for res in runs[0]:
        assert res.safe and detector.detect(res.text).safe
    assert runs[0][2].forced_redactions >= 1  # the name-only document is redacted


def test_placeholder_mismatch_is_refused(detector, lexical_queries, nlp, wordnet, cheap_scorer):
    from spacy_linkguard.baselines.paraphrase import LexicalSettings

    other = LexicalParaphraser(nlp=nlp, wordnet=wordnet, scorer=cheap_scorer,
                               settings=LexicalSettings(placeholder="***"))
    with pytest.raises(LinkguardError, match="E210"):
        lexical_loop(detector, other)


def test_paraphrasing_time_is_in_the_pass_records(detector, lexical_queries, nlp, wordnet, cheap_scorer):
    import time

    def slow(requests):
        time.sleep(0.3)  # stands for the embedding model
        return cheap_scorer(requests)

    slow_lexical = LexicalParaphraser(nlp=nlp, wordnet=wordnet, scorer=slow)
    res = lexical_loop(detector, slow_lexical, max_passes=1, guarantee=False).run(lexical_queries[:1])[0]
    assert res.passes[0].seconds >= 0.3 and res.seconds >= 0.3


def test_rewriter_settings_and_description(paraphraser):
    from spacy_linkguard.baselines.registry import make_lexical_rewriter

    rw = make_lexical_rewriter(lexical=paraphraser, seed=4, sentences_per_chunk=2, max_chunk_chars=500)
    assert isinstance(rw, LexicalRewriter) and rw.system == "lexical"
    assert rw.cfg == {"seed": 4, "sentences_per_chunk": 2, "max_chunk_chars": 500}
    rw.configure({"seed": 7, "max_chunk_chars": 300})
    assert rw.seed == 7 and rw.chunking.max_chunk_chars == 300 and rw.chunking.sentences_per_chunk == 2
    assert rw.describe().endswith("(no LLM)") and rw.placeholder == paraphraser.settings.placeholder


def test_a_documents_chunks_are_scored_together_and_never_with_another_documents(
        detector, lexical_queries, nlp, wordnet, cheap_scorer):
    calls = []

    def recording(requests):
        calls.append([r.context for r in requests])
        return cheap_scorer(requests)

    paraphraser = LexicalParaphraser(nlp=nlp, wordnet=wordnet, scorer=recording)
    rewriter = LexicalRewriter(paraphraser, seed=3)
    docs = lexical_queries[:2]
    chunks = [c for i, text in enumerate(docs)
              for c in rewriter.chunks(text, [(s.start_char, s.end_char) for s in detector.detect(text).spans],
                                       doc_index=i) if c.flagged]
    assert len({c.doc_index for c in chunks}) == 2
    outcomes = rewriter.rewrite_chunks(chunks, pass_index=1)
    assert len(calls) == 2  # one a document
    for call, doc in zip(calls, docs):
        assert call and all(context in doc for context in call)
    # The same as each chunk paraphrased alone with its seed.
    alone_paraphraser = LexicalParaphraser(nlp=nlp, wordnet=wordnet, scorer=cheap_scorer)
    for chunk, outcome in zip(chunks, outcomes):
        seed = zlib.crc32(f"3:1:{chunk.doc_index}:{chunk.index}".encode())
        alone = alone_paraphraser.paraphrase_spans(chunk.text, chunk.span_offsets, seed=seed)
        assert outcome.edited == (alone.text if alone.edits else None)
    assert any(o.edited for o in outcomes)
    assert all(o.seconds > 0 for o in outcomes)
