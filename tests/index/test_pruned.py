"""The pruned layout answers exactly as the brute-force oracle and the full layout."""
import numpy as np
import pytest

from spacy_linkguard.corpus import iter_records
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.ngrams import NgramSettings

from .oracle import oracle, random_corpus


def probe_keys(post):
    """Every N-gram of the collection, and keys that are not: extended, joined, cut, too long."""
    keys = sorted(post)
    extra = [k + " zzqx" for k in keys[::3]] + ["zzqx " + k for k in keys[::5]]
    extra += [a + " " + b for a, b in zip(keys[::7], keys[3::7])]  # often 9+ tokens or unseen joins
    extra += [k.split(" ", 1)[-1] + " " + k.split(" ", 1)[0] for k in keys[::4]]
    extra += ["", " ", "a  b", keys[0] + " ", " " + keys[-1]]
    return keys + extra


def assert_same_answers(pruned, full, keys, post=None):
    a, b = pruned.key_doc_freqs(keys), full.key_doc_freqs(keys)
    assert a.dtype == np.int64 and a.tolist() == b.tolist()
    if post is not None:
        assert a.tolist() == [len(post.get(k, ())) for k in keys]
    assert [list(x) for x in pruned.key_postings(keys)] == [list(x) for x in full.key_postings(keys)]
    assert [x.tolist() for x in pruned.key_posting_arrays(keys)] == [x.tolist() for x in full.key_posting_arrays(keys)]
    sp, sf = pruned.stats(), full.stats()
    for k in ("n_ngrams", "n_postings", "n_ngrams_by_n", "df_histogram", "share_df1", "n_tokens"):
        assert sp[k] == sf[k], k


@pytest.mark.parametrize("seed,max_n", [(0, 8), (1, 3), (2, 1), (3, 5)])
def test_pruned_matches_oracle_and_full(tmp_path, seed, max_n):
    docs = random_corpus(seed=seed, n_docs=60)
    settings = NgramSettings(max_n=max_n)
    pruned = NgramIndex.build(docs, tmp_path / "p", max_n=max_n, progress=False)
    full = NgramIndex.build(docs, tmp_path / "f", max_n=max_n, progress=False, full=True)
    assert pruned.layout == "pruned" and full.layout == "full"
    post = oracle([d["text"] for d in docs], settings)
    assert pruned.n_ngrams == full.n_ngrams == len(post)
    # what is kept: unigrams, and N-grams whose two sub-N-grams have df >= 2
    kept = {k for k in post if " " not in k or (len(post[k.rsplit(" ", 1)[0]]) >= 2 and len(post[k.split(" ", 1)[1]]) >= 2)}
    rows = {pruned._trie.restore_key(i) for i in range(pruned.n_rows)}
    assert rows == kept
    stats = pruned.stats()
    assert stats["n_rows"] == len(kept) and stats["n_pruned"] == len(post) - len(kept)
    assert_same_answers(pruned, full, probe_keys(post), post)


def test_pruned_bundled_echr_slice(tmp_path):
    recs = []
    for i, rec in enumerate(iter_records("assets/echr/collection.jsonl")):
        if i >= 60:
            break
        recs.append(rec)
    pruned = NgramIndex.build(recs, tmp_path / "p", progress=False)
    full = NgramIndex.build(recs, tmp_path / "f", progress=False, full=True)
    post = oracle([r.text for r in recs], NgramSettings())
    assert pruned.n_rows < 0.6 * full.n_rows  # most N-grams of real text are pruned
    assert_same_answers(pruned, full, probe_keys(post), post)


def test_pruned_collision_retry(tmp_path, monkeypatch):
    from spacy_linkguard.index import runs

    monkeypatch.setattr(runs, "HASH_MASK", np.uint64(0x3))  # 4 hash values: collisions at once
    docs = random_corpus(seed=4, n_docs=6, max_words=8)
    with pytest.raises(Exception, match="E066"):
        NgramIndex.build(docs, tmp_path / "p", progress=False)
    calls = {"n": 0}
    from spacy_linkguard.index import prune

    real = prune._levels

    def first_collides(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise runs.HashCollision()
        return real(*args, **kwargs)

    monkeypatch.setattr(runs, "HASH_MASK", np.uint64(0xFFFFFFFFFFFFFFFF))
    monkeypatch.setattr(prune, "_levels", first_collides)
    idx = NgramIndex.build(docs, tmp_path / "p", progress=False)
    assert calls["n"] == 2
    post = oracle([d["text"] for d in docs], idx.settings)
    assert idx.key_doc_freqs(sorted(post)).tolist() == [len(post[k]) for k in sorted(post)]


@pytest.mark.parametrize("splits", [(10,), (1, 30, 59)])
def test_pruned_add_documents_equals_rebuild(tmp_path, splits):
    from .test_format import file_bytes

    docs = random_corpus(seed=9, n_docs=60)
    NgramIndex.build(docs, tmp_path / "all", progress=False)
    idx = NgramIndex.build(docs[: splits[0]], tmp_path / "inc", progress=False)
    for a, b in zip(splits, list(splits[1:]) + [60]):
        idx = idx.add_documents(docs[a:b], progress=False)
    assert file_bytes(tmp_path / "inc") == file_bytes(tmp_path / "all")


def test_damaged_pruned_postings_are_refused(tmp_path):
    """A posting list whose bytes were changed (same size, CRC-32 sums recomputed
    so that only the value checks stand) gives E063, never a wrong answer."""
    import json

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.index import format as fmt

    docs = random_corpus(seed=2, n_docs=30)
    idx = NgramIndex.build(docs, tmp_path / "p", progress=False)
    assert idx._df.dtype == np.uint16 and idx._offsets.dtype == np.uint32
    keys = [idx._trie.restore_key(i) for i in range(idx.n_rows)]
    multi = [k for k, d in zip(keys, idx.key_doc_freqs(keys).tolist()) if d >= 2]
    blob = bytearray((tmp_path / "p" / fmt.POSTINGS).read_bytes())
    header = len(blob) - idx._blob.nbytes
    blob[header + int(idx._offsets[-1]) - 1] |= 0x80  # the last list loses its last value's end
    (tmp_path / "p" / fmt.POSTINGS).write_bytes(bytes(blob))
    meta = json.loads((tmp_path / "p" / fmt.META).read_text())
    meta["files"][fmt.POSTINGS]["crc32"] = fmt.crc32_file(tmp_path / "p" / fmt.POSTINGS)
    meta["files"][fmt.POSTINGS]["sha256"] = fmt.sha256_file(tmp_path / "p" / fmt.POSTINGS)
    meta["checksum"] = fmt.content_checksum(meta["settings"], meta["files"])
    meta["meta_sha256"] = fmt.meta_checksum(meta)
    (tmp_path / "p" / fmt.META).write_text(json.dumps(meta))
    bad = NgramIndex.load(tmp_path / "p")
    with pytest.raises(LinkguardError, match="E063"):
        bad.key_posting_arrays(multi)
    with pytest.raises(LinkguardError, match="E063"):
        bad.key_postings(multi)
