"""benchmarks/linking_origins.py against the brute-force oracle: each linking
N-gram of a changed output paragraph is kept (reported or not), borrowed from
another input paragraph, or new, by the oracle's minimal rare N-grams."""
from collections import Counter

from spacy_linkguard.detect import Detector

from ..detect.oracle import oracle
from ..rewrite.oracle import CORPUS, QUERY, DictIndex
from .scripts import load_script

bench = load_script("linking_origins")


def brute(rows, queries, index):
    counts = Counter()
    for row in rows:
        src = {0} if row.get("sources") else None
        before = queries[row["id"]].split("\n\n")
        after = row["text_before_guarantee"].split("\n\n")

        def keys(text):
            res = oracle(text, index.keysets, index.settings, 2, 1, sources=src)
            return {res.occ_key[o] for o in res.minimal_rare}

        own = [keys(p) for p in before]
        anywhere = set().union(*own)
        for old, new, mine in zip(before, after, own):
            if old != new:
                for key in keys(new):
                    counts["kept" if key in mine else "borrowed" if key in anywhere else "new"] += 1
    return counts


def test_origins_agree_with_the_oracle():
    index = DictIndex(CORPUS)
    detector = Detector(index, k=2, max_arity=1)
    paragraphs = QUERY.split("\n\n")
    # the last paragraph rewritten with a word that links in the one before ("on": borrowed),
    # a phrase of its own ("that the applicant": kept, under any) and a word of another
    # document ("june": new, under any)
    changed = paragraphs[:2] + ["The Government submitted on that day that the applicant was arrested in June."]
    rows = [{"id": "q", "text_before_guarantee": "\n\n".join(changed), "sources": ["d0"]},
            {"id": "q", "text_before_guarantee": "\n\n".join(changed), "sources": None}]
    got = Counter()
    for row in rows:
        for key, value in bench.origins([row], {"q": QUERY}, detector).items():
            got[key] += value
    want = brute(rows, {"q": QUERY}, index)
    assert got["kept_reported"] + got["kept_unreported"] == want["kept"]
    assert (got["borrowed"], got["new"]) == (want["borrowed"], want["new"])
    assert want["borrowed"] > 0 and want["new"] > 0 and want["kept"] > 0  # every class exercised
    assert got["input_reported"] <= got["input_minimal_linking"] and got["changed_paragraphs"] == 2
