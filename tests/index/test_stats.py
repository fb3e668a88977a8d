"""stats() and Figure 2's data."""
import pytest

from spacy_linkguard.index import NgramIndex
from spacy_linkguard.index.stats import log_bin_edges, log_binned

from .oracle import oracle, random_corpus


def test_log_binned_keeps_totals():
    pairs = [[1, 1000], [2, 300], [3, 100], [7, 20], [8, 10], [9, 4], [100, 3], [1000, 1]]
    xs, ys = log_binned(pairs)
    assert xs == sorted(xs) and ys[:3] == [1000, 300, 100]
    edges = log_bin_edges(1000)
    assert edges[:5] == [1, 2, 3, 4, 5] and edges[-1] > 1000
    widths = {}
    for lo, hi in zip(edges[:-1], edges[1:]):
        if any(lo <= k < hi for k, _ in pairs):
            widths[(lo * (hi - 1)) ** 0.5] = hi - lo
    assert list(widths) == xs  # one point per non-empty bin, at its centre
    assert sum(y * widths[x] for x, y in zip(xs, ys)) == pytest.approx(sum(c for _, c in pairs))


def test_stats_histogram_matches_oracle(tmp_path):
    docs = random_corpus(seed=21, n_docs=30)
    idx = NgramIndex.build(docs, tmp_path / "idx", max_n=4, progress=False)
    post = oracle([d["text"] for d in docs], idx.settings)
    stats = idx.stats()
    expected = {}
    for key, postings in post.items():
        n = len(key.split(" "))
        expected.setdefault(n, {}).setdefault(len(postings), 0)
        expected[n][len(postings)] += 1
    got = {int(n): {df: c for df, c in pairs} for n, pairs in stats["df_histogram"].items()}
    assert {n: h for n, h in got.items() if h} == expected
    assert stats["n_docs"] == 30 and stats["n_ngrams"] == len(post)
    assert stats["share_df1"] == pytest.approx(sum(1 for p in post.values() if len(p) == 1) / len(post))
    assert stats["mean_postings"] == pytest.approx(sum(map(len, post.values())) / len(post))
    assert stats["disk_bytes"] > 0 and stats["checksum"] == idx.checksum
