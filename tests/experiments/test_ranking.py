"""The ranking attackers in `evaluate`: per row, the share of documents whose
source a search engine still ranks first / in the top 10, on the toy index of
test_evaluate_verdicts.py; the oracle is the brute-force BM25 of tests/attack."""
import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.metrics import wilson_interval
from spacy_linkguard.experiments.ranking import top_k_rates

from ..attack.test_bm25 import brute_force_rank, brute_force_scores
from .test_evaluate_verdicts import COLLECTION, LLM_A3, QUERIES, toy  # noqa: F401 (the fixture)

pytest.importorskip("bm25s")


def test_top_k_rates_count_defined_ranks_only():
    rates = top_k_rates([1, 3, None, 12, 1, 10])
    assert rates["top1"]["hits"] == 2 and rates["top1"]["n"] == 5 and rates["top1"]["rate"] == 0.4
    assert rates["top10"]["hits"] == 4 and rates["top10"]["rate"] == 0.8
    assert (rates["top10"]["low"], rates["top10"]["high"]) == wilson_interval(4, 5)
    assert top_k_rates([None])["top1"]["rate"] is None


def _expected_ranks(texts, sources):
    docs = list(COLLECTION.values())
    ids = list(COLLECTION)
    out = []
    for text, src in zip(texts, sources):
        if src is None:
            out.append(None)
            continue
        scores = brute_force_scores(docs, text)
        out.append(min(brute_force_rank(scores, ids.index(s)) for s in src))
    return out


def test_evaluate_ranks_every_row_against_brute_force_bm25(toy):  # noqa: F811
    from spacy_linkguard.experiments.evaluate import run_evaluation

    with pytest.warns(Warning, match="W251"):
        res = run_evaluation(toy / "queries.jsonl", toy / "index", [str(toy / "llm_a3.jsonl")], k=2, max_arity=3,
                             sim_models=[], ppl_model="none", progress=False, rank_model="none")
    sources = [["d0"], ["d1"], ["d3"], None]  # "typed" has no known source
    rows = {r["key"]: r for r in res["systems"]}
    assert res["ranking_attackers"] == ["bm25"] and res["ranking_model"] is None
    for key, texts in (("input", [q["text"] for q in QUERIES]), ("llm_a3", [o["text"] for o in LLM_A3])):
        expected = _expected_ranks(texts, sources)
        assert res["per_doc"][key]["rank_bm25"] == expected
        assert rows[key]["ranking"]["bm25"] == top_k_rates(expected)
        assert "embedding" not in rows[key]["ranking"]
        assert "rank_bm25" not in rows[key]  # ranks are not averaged into the row
    # d1's rewrite lost "zeta": it ties with d0 and d2 on "beta gamma", still first (ties favour the source).
    assert res["per_doc"]["llm_a3"]["rank_bm25"][1] == 1


def test_no_ranking_without_a_rank_model(toy):  # noqa: F811
    from spacy_linkguard.experiments.evaluate import run_evaluation

    with pytest.warns(Warning, match="W251"):
        res = run_evaluation(toy / "queries.jsonl", toy / "index", [str(toy / "llm_a3.jsonl")], k=2, max_arity=3,
                             sim_models=[], ppl_model="none", progress=False)
    assert all("ranking" not in r for r in res["systems"]) and res["ranking_attackers"] == []


def test_a_collection_that_is_not_the_index_is_refused(toy, tmp_path):  # noqa: F811
    from spacy_linkguard.experiments.ranking import embedding_attacker
    from spacy_linkguard.index import open_index
    from spacy_linkguard.llm.local_models import locate_sentence_model

    if not locate_sentence_model("all-MiniLM-L6-v2").available:
        pytest.skip("all-MiniLM-L6-v2 is not on this machine")
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "zz", "text": "not indexed"}\n', encoding="utf-8")
    with pytest.raises(LinkguardError, match="E267"):
        embedding_attacker(open_index(toy / "index"), "all-MiniLM-L6-v2", collection=other, progress=False)


def test_the_embedding_attacker_ranks_an_unchanged_document_first(toy, tmp_path):  # noqa: F811
    """A real MiniLM: a collection document given as the released text is its own nearest neighbour
    (cosine 1), both from the collection file and from the index's own words."""
    from spacy_linkguard.experiments.ranking import embedding_attacker
    from spacy_linkguard.index import open_index
    from spacy_linkguard.llm.local_models import locate_sentence_model

    if not locate_sentence_model("all-MiniLM-L6-v2").available:
        pytest.skip("all-MiniLM-L6-v2 is not on this machine")
    idx = open_index(toy / "index")
    coll = tmp_path / "collection.jsonl"
    coll.write_text("".join(f'{{"id": "{i}", "text": "{t}"}}\n' for i, t in COLLECTION.items()), encoding="utf-8")
    for att in (embedding_attacker(idx, "all-MiniLM-L6-v2", collection=coll, cache_dir=tmp_path, progress=False),
                embedding_attacker(idx, "all-MiniLM-L6-v2", progress=False)):
        texts = list(COLLECTION.values())
        ranks = att.ranks(texts, [[idx.doc_number(i)] for i in COLLECTION])
        assert ranks == [1] * len(texts)
        assert att.ranks(["x"], [[]]) == [None]
    assert list(tmp_path.glob("collection-*-all-MiniLM-L6-v2.npy"))  # cached as the semantic-linkage step does


def test_the_report_appends_the_top_k_columns(toy):  # noqa: F811
    from spacy_linkguard.experiments.evaluate import run_evaluation
    from spacy_linkguard.experiments.report import build_tables, load_reference, render_report

    with pytest.warns(Warning, match="W251"):
        res = run_evaluation(toy / "queries.jsonl", toy / "index", [str(toy / "llm_a3.jsonl")], k=2, max_arity=3,
                             sim_models=[], ppl_model="none", progress=False, rank_model="none")
    tables = build_tables(res, load_reference())
    assert tables["linkage_header"][-2:] == ["source top-1, BM25", "source top-10, BM25"]
    rows = {r["key"]: r for r in res["systems"]}
    for line in tables["linkage"]:
        if line[0]["ours"] == rows["llm_a3"]["label"]:
            top1 = rows["llm_a3"]["ranking"]["bm25"]["top1"]
            assert line[-2]["ours"].startswith(f"{top1['rate']:.3f} [")
    md = render_report(res, load_reference(), figures={}, doc_links={})["md"]
    assert "source top-1, BM25" in md and "**source top-1 / top-10**" in md
    res.pop("ranking_attackers")
    for row in res["systems"]:
        row.pop("ranking")
    assert "source top-1, BM25" not in build_tables(res, load_reference())["linkage_header"]  # older results
