"""doc_freq / postings against a brute-force oracle (the set of N-grams of each document)."""
import numpy as np
import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.ngrams import NgramSettings, normalize_text

from .oracle import oracle, random_corpus


def assert_matches_oracle(idx: NgramIndex, texts, settings):
    post = oracle(texts, settings)
    assert idx.n_ngrams == len(post)  # no extra, no missing keys
    keys = sorted(post)
    dfs = idx.key_doc_freqs(keys)
    assert dfs.dtype == np.int64
    assert dfs.tolist() == [len(post[k]) for k in keys]
    assert [list(bm) for bm in idx.key_postings(keys)] == [post[k] for k in keys]
    stats = idx.stats()
    assert stats["n_postings"] == sum(len(v) for v in post.values())
    by_n = {}
    for k in keys:
        by_n[len(k.split(" "))] = by_n.get(len(k.split(" ")), 0) + 1
    expected = {str(n): by_n.get(n, 0) for n in range(1, settings.max_n + 1)}
    assert stats["n_ngrams_by_n"] == expected


@pytest.mark.parametrize("max_n", [1, 3, 8])
def test_random_corpus_matches_oracle(tmp_path, max_n):
    docs = random_corpus(seed=max_n, n_docs=40)
    settings = NgramSettings(max_n=max_n)
    idx = NgramIndex.build(docs, tmp_path / "idx", max_n=max_n, progress=False)
    assert idx.settings == settings
    assert idx.n_docs == 40 and idx.doc_ids == [d["id"] for d in docs]
    assert_matches_oracle(idx, [d["text"] for d in docs], settings)


def test_many_runs_and_buckets_match_oracle(tmp_path, tiny_chunks, monkeypatch):
    # Runs of 16 positions cut documents in pieces; buckets of 64 rows: exercises
    # the cross-run de-duplication and the k-way bucket merge.
    from spacy_linkguard.index import runs

    seen = {}
    real_merge = runs.merge_runs

    def spy(run_list, *args, **kwargs):
        seen["runs"] = len(run_list)
        return real_merge(run_list, *args, **kwargs)

    monkeypatch.setattr(runs, "merge_runs", spy)
    docs = random_corpus(seed=7, n_docs=30)
    idx = NgramIndex.build(docs, tmp_path / "idx", progress=False, memory_budget="32MiB", full=True)
    assert seen["runs"] > 20
    assert idx.meta["counts"]["n_docs"] == 30
    assert_matches_oracle(idx, [d["text"] for d in docs], NgramSettings())


def test_custom_placeholder(tmp_path):
    docs = [{"id": "a", "text": "the <MASK> said <MASK>, the court held"},
            {"id": "b", "text": "the court held [REDACTED] said"}]
    settings = NgramSettings(placeholder="<MASK>")
    idx = NgramIndex.build(docs, tmp_path / "idx", placeholder="<MASK>", progress=False)
    assert idx.settings.placeholder == "<MASK>"
    assert_matches_oracle(idx, [d["text"] for d in docs], settings)
    assert idx.doc_freq("the court held") == 2
    assert idx.doc_freq("said") == 2
    assert idx.key_doc_freqs(["the <mask> said"]).tolist() == [0]


def test_real_bundled_text_matches_oracle(tmp_path, tiny_chunks):
    recs = []
    for path in ("assets/echr/collection.jsonl", "assets/echr/queries.jsonl", "assets/wiki/collection.jsonl"):
        for i, rec in enumerate(iter_records(path)):
            if i >= 4:
                break
            rec.id = f"{path}:{rec.id}"
            rec.text = rec.text[:3000]
            recs.append(rec)
    idx = NgramIndex.build(recs, tmp_path / "idx", progress=False, memory_budget="32MiB")
    assert_matches_oracle(idx, [r.text for r in recs], NgramSettings())
    # a masked query doc shares no N-gram across the placeholder
    assert idx.key_doc_freqs(["[redacted]"]).tolist() == [0]


def test_text_queries(tmp_path):
    docs = [{"id": "a", "text": "The Court held that there has been a violation."},
            {"id": "b", "text": "THE COURT\u2019S view: non\u2011pecuniary damage."},
            {"id": "c", "text": "the court's view on non-pecuniary damage"}]
    idx = NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert idx.doc_freq("the court") == 3
    assert list(idx.postings("The COURT")) == [0, 1, 2]
    assert idx.doc_freq("court\u2019s view") == 2  # look-alike quote folded
    assert list(idx.postings("pecuniary damage")) == [1, 2]
    assert idx.doc_freq("violation of") == 0
    assert list(idx.postings("nothing here")) == []
    assert idx.doc_freqs(["the court", "held that", "zzz"]).tolist() == [3, 1, 0]
    assert [list(b) for b in idx.postings_many(["view", "held"])] == [[1, 2], [0]]
    assert [list(b) for b in idx.key_postings(["court 's view", "absent key"])] == [[1, 2], []]
    from spacy_linkguard.errors import LinkguardError

    with pytest.raises(LinkguardError, match="E004"):
        idx.doc_freq("court, held")  # two segments
    with pytest.raises(LinkguardError, match="E005"):
        idx.doc_freq("a b c d e f g h i")  # longer than max_n


def test_long_document_tokenized_in_pieces(tmp_path, monkeypatch):
    from spacy_linkguard.index import tokens

    monkeypatch.setattr(tokens, "PIECE_CHARS", 50)
    line = "the applicant complained that the court \u2014 sitting as a chamber \u2014 had erred"
    text = "\n".join(f"{line} {i}" for i in range(30)) + " and one very long last line " * 5
    docs = [{"id": "long", "text": text}, {"id": "short", "text": line}]
    assert max(len(p) for p in list(tokens.text_pieces(text, 50))[:-1]) <= 50 + len(line) + 3
    assert "".join(tokens.text_pieces(text, 50)) == text
    # Pieces are cut at the blank lines of the normalized text (a lone line
    # break is a space there, not a boundary).
    paragraphs = "\n \n".join(f"{line}\n{i}" for i in range(30))
    docs.append({"id": "paragraphs", "text": paragraphs})
    norm = normalize_text(paragraphs).text
    assert len(list(tokens.text_pieces(norm, 50))) > 20
    idx = NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert_matches_oracle(idx, [d["text"] for d in docs], NgramSettings())
    assert list(idx.postings("had erred 3")) == [0, 2]  # one line break: a space
    assert list(idx.postings("3 the applicant")) == [0]  # a blank line: a boundary
