import random

import pytest

from spacy_linkguard.detect import Detector
from spacy_linkguard.detect.paper_rule import paper_rule_candidates

from .corpora import mask, random_corpus
from .memindex import MemoryIndex
from .oracle import oracle


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("k,max_arity", [(2, 2), (2, 3), (5, 3)])
def test_paper_rule_flags_the_shortest_member_of_every_linkable_combination(seed, k, max_arity):
    records = random_corpus(seed)
    index = MemoryIndex(records)
    rng = random.Random(seed)
    det = Detector(index, k=k, max_arity=max_arity)
    for text in (records[0][1], mask(rng, records[1][1])):
        res = det.analyze(text)
        ora = oracle(text, index.doc_keys, index.settings, k, max_arity)

        def rank(key):
            occ = min(ora.candidate_occs[key], key=lambda o: ora.occ_chars[o][0])
            return (occ[2], ora.occ_chars[occ][0])

        want = {min(c, key=rank) for c in ora.linkable}
        got = {res.candidates[x] for x in paper_rule_candidates(res, k, max_arity).tolist()}
        assert got == want
