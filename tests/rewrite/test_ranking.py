"""The ranking of surviving candidates (rewrite/ranking.py), with the real
all-MiniLM-L6-v2 sentence model: a candidate that drops a qualifier loses to
one that keeps it; the model's loss (canned here) outweighs closeness when a
candidate reads far worse."""
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.rewrite.ranking import CandidateRanker, RankWeights, SentenceEmbedder, kept


@pytest.fixture(scope="module")
def embedder():
    try:
        return SentenceEmbedder("all-MiniLM-L6-v2")
    except LinkguardError as e:  # pragma: no cover - the package is a test dependency
        pytest.skip(str(e))


class TableLoss:
    """Stands in for the rewriting model's loss (canned numbers, not a real model)."""

    def __init__(self, table):
        self.table = table

    def loss(self, prompts, completions):
        return [self.table.get(c, 1.0) for c in completions]


QUALIFIERS = [
    ("The Commission declared the application partly inadmissible.",
     "The Commission found the application partly inadmissible.",
     "The Commission found the application inadmissible."),
    ("The applicant alleged that he had been beaten by the police officers.",
     "The applicant alleged that he had been struck by the officers.",
     "The applicant had been struck by the officers."),
    ("The Court unanimously held that there had been a violation of Article 3.",
     "The Court unanimously found that Article 3 had been violated.",
     "The Court found that Article 3 had been violated."),
]


@pytest.mark.parametrize("original,keeps,drops", QUALIFIERS)
def test_a_candidate_that_drops_a_qualifier_ranks_lower(embedder, original, keeps, drops):
    ranker = CandidateRanker(embedder, None)
    (scores,) = ranker.scores([(original, "p", [drops, keeps])])
    assert scores[1] > scores[0]
    ((best, _),) = ranker.best([(original, "p", [drops, keeps])])
    assert best == 1
    # both terms agree here: closer in meaning and more words kept
    cos = embedder.cosines([(original, keeps), (original, drops)])
    assert cos[0] > cos[1] and kept(original, keeps) > kept(original, drops)


def test_the_models_loss_outweighs_closeness_for_a_garbled_candidate(embedder):
    original = "It also decided to rule on the admissibility and merits of the application at the same time."
    garbled = "It also decided to rule considered consider the admissibility and merits of the application at same time."
    fluent = "It also decided to examine the admissibility and the merits of the application together."
    losses = TableLoss({original: 1.0, garbled: 2.6, fluent: 1.3})
    items = [(original, "p", [garbled, fluent])]
    assert CandidateRanker(embedder, None).best(items)[0][0] == 0  # closeness alone keeps the garbled one
    assert CandidateRanker(embedder, losses).best(items)[0][0] == 1  # the loss rise (1.6 vs 0.3) decides


def test_scores_are_the_weighted_sum_of_the_terms(embedder):
    original = "The applicant lodged an appeal with the Supreme Court."
    cands = ["The applicant appealed to the Supreme Court.", "An appeal was lodged by the applicant."]
    losses = TableLoss({original: 1.0, cands[0]: 1.5, cands[1]: 0.5})
    w = RankWeights(meaning=0.7, kept=0.2, loss=0.9)
    (scores,) = CandidateRanker(embedder, losses, w).scores([(original, "p", cands)])
    cos = embedder.cosines([(original, c) for c in cands])
    expected = [0.7 * cos[0] + 0.2 * kept(original, cands[0]) - 0.9 * 0.5,
                0.7 * cos[1] + 0.2 * kept(original, cands[1]) - 0.0]
    assert scores == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("bad", [-0.1, True, "1"])
def test_weights_must_be_numbers_not_below_zero(bad):
    with pytest.raises(LinkguardError, match="E207"):
        RankWeights(loss=bad)
