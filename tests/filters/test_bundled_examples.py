"""The sentence task's bundled few-shot examples show what the filters accept:
each rewrite adds no ungrounded word (f5, against its sentence and context),
keeps its facts (f2, f3) and passes the task's own checks (f1-f3)."""
import pytest

from spacy_linkguard.filters.f2_facts import check_facts
from spacy_linkguard.filters.f5_grounded import GroundedGuard
from spacy_linkguard.grounding import Grounder
from spacy_linkguard.llm.chunking import Chunk
from spacy_linkguard.llm.tasks.rewrite.util import read_examples
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.llm.tasks.rewrite_sentences.util import BUNDLED_EXAMPLES
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.occurs import occurs


@pytest.fixture(scope="module")
def guard():
    return GroundedGuard(Grounder())


def example_chunk(eg) -> Chunk:
    sentence = eg["sentence"]
    low = sentence.lower()
    offsets = tuple((low.index(p.lower()), low.index(p.lower()) + len(p)) for p in eg["phrases"])
    return Chunk(doc_index=0, index=0, start=0, end=len(sentence), text=sentence, span_offsets=offsets,
                 context=(eg.get("before", ""), eg.get("after", "")))


@pytest.mark.parametrize("name", sorted(BUNDLED_EXAMPLES))
def test_every_bundled_example_passes_the_grounded_words_and_fact_guards(guard, name):
    examples = read_examples(BUNDLED_EXAMPLES[name])
    assert len(examples) >= 3
    task = make_rewrite_sentences_task(examples=[])
    for eg in examples:
        chunk, rewritten = example_chunk(eg), eg["rewritten"]
        assert guard.ungrounded(chunk, rewritten) == [], rewritten
        assert check_facts(chunk.text, rewritten, list(chunk.span_offsets)) is None, rewritten
        assert task.check(chunk, "", rewritten) is None, rewritten
        assert not any(occurs(p, rewritten, NgramSettings()) for p in eg["phrases"])


def test_the_guards_would_reject_a_rewrite_that_says_something_else(guard):
    # the check above can fail: the first example with an invented detail and a changed number
    eg = read_examples(BUNDLED_EXAMPLES["echr"])[0]
    chunk = example_chunk(eg)
    invented = eg["rewritten"].replace("police officers", "gendarmes")
    assert guard.ungrounded(chunk, invented) == ["gendarmes"]
    assert check_facts(chunk.text, eg["rewritten"].replace("Article 3", "Article 5"), list(chunk.span_offsets))
