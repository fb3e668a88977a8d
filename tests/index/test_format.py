"""Round trip, determinism, incremental == rebuild, and refusing broken indexes."""
import json
import time

import numpy as np
import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import FORMAT_VERSION, NgramIndex
from spacy_linkguard.index import format as fmt
from spacy_linkguard.ngrams import NgramSettings

from .oracle import random_corpus


def file_bytes(path):
    names = [p.name for p in path.iterdir()]
    assert set(names) <= {fmt.META, *fmt.ALL_FILES}
    return {name: (path / name).read_bytes() for name in names}


@pytest.fixture(scope="module", params=[False, True], ids=["pruned", "full"])
def full(request):
    """Every test of this module runs on both layouts."""
    return request.param


@pytest.fixture(scope="module")
def built(tmp_path_factory, full):
    docs = random_corpus(seed=11, n_docs=50)
    path = tmp_path_factory.mktemp("fmt") / "idx"
    NgramIndex.build(docs, path, progress=False, full=full)
    return docs, path


def test_round_trip_and_meta(built):
    docs, path = built
    idx = NgramIndex.load(path)
    meta = json.loads((path / fmt.META).read_text())
    assert meta["format_version"] == FORMAT_VERSION
    assert NgramSettings.from_dict(meta["settings"]) == NgramSettings() == idx.settings
    assert meta["counts"]["n_docs"] == 50 == idx.n_docs
    assert meta["counts"]["n_ngrams"] == idx.n_ngrams == len(idx)
    assert json.loads((path / fmt.DOC_IDS).read_text()) == [d["id"] for d in docs] == idx.doc_ids
    assert set(meta["files"]) == set(fmt.data_files(idx.layout))
    assert meta["layout"] == idx.layout
    assert meta["counts"]["n_rows"] == idx.n_rows <= idx.n_ngrams
    for name, info in meta["files"].items():
        assert info["sha256"] == fmt.sha256_file(path / name)
    assert idx.checksum == meta["checksum"] and idx.checksum.startswith("sha256:")
    assert isinstance(idx._df, np.memmap)  # memory-mapped, not read in full
    assert idx.doc_number(docs[3]["id"]) == 3
    assert NgramIndex.load(path, verify=True).checksum == idx.checksum
    assert not list(path.parent.glob(".idx.*"))  # no temp dir left behind


def test_load_is_fast(built):
    _, path = built
    t = time.perf_counter()
    NgramIndex.load(path)
    assert time.perf_counter() - t < 1.0


def test_deterministic_bytes(built, full, tmp_path):
    docs, path = built
    NgramIndex.build(iter(docs), tmp_path / "again", progress=False, full=full, memory_budget="64MB")
    assert file_bytes(tmp_path / "again") == file_bytes(path)


def test_checksum_depends_on_content(built, full, tmp_path):
    docs, path = built
    other = NgramIndex.build(docs[:-1], tmp_path / "other", progress=False, full=full)
    assert other.checksum != NgramIndex.load(path).checksum
    renamed = [dict(d, id=d["id"] + "x") for d in docs]
    assert NgramIndex.build(renamed, tmp_path / "renamed", progress=False, full=full).checksum != other.checksum


@pytest.mark.parametrize("split", [1, 25, 49])
def test_incremental_equals_rebuild(built, full, tmp_path, split):
    docs, path = built
    idx = NgramIndex.build(docs[:split], tmp_path / "inc", progress=False, full=full)
    idx = idx.add_documents(docs[split:], progress=False)
    assert idx.n_docs == 50
    assert file_bytes(tmp_path / "inc") == file_bytes(path)


def test_incremental_in_several_steps_and_nothing_to_add(built, full, tmp_path, tiny_chunks):
    docs, path = built
    idx = NgramIndex.build(docs[:10], tmp_path / "inc", progress=False, full=full)
    idx = idx.add_documents(docs[10:30], progress=False, memory_budget="32MiB")
    idx = idx.add_documents([], progress=False)
    idx = idx.add_documents(docs[30:], progress=False)
    assert file_bytes(tmp_path / "inc") == file_bytes(path)


def test_rebuild_replaces_existing_index(built, tmp_path):
    docs, _ = built
    target = tmp_path / "idx"
    NgramIndex.build(docs[:5], target, progress=False)
    idx = NgramIndex.build(docs[:7], target, progress=False)
    assert idx.n_docs == 7 and NgramIndex.load(target).n_docs == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def copy_index(src, dst):
    dst.mkdir()
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


def test_missing_index(tmp_path):
    with pytest.raises(LinkguardError, match=r"E059.*build-index"):
        NgramIndex.load(tmp_path / "nothing")


def test_newer_format_refused(built, tmp_path):
    bad = copy_index(built[1], tmp_path / "bad")
    meta = json.loads((bad / fmt.META).read_text())
    meta["format_version"] = FORMAT_VERSION + 1
    (bad / fmt.META).write_text(json.dumps(meta))
    with pytest.raises(LinkguardError, match="E061"):
        NgramIndex.load(bad)


def test_older_format_refused_with_rebuild_hint(built, tmp_path):
    # Version 1 indexes hold keys of text normalized otherwise (look-alikes only).
    bad = copy_index(built[1], tmp_path / "old")
    meta = json.loads((bad / fmt.META).read_text())
    meta["format_version"] = 1
    meta["settings"]["normalization"] = "lookalike-v1"
    (bad / fmt.META).write_text(json.dumps(meta))
    with pytest.raises(LinkguardError, match=r"E072.*version 1.*lookalike-v1.*build-index"):
        NgramIndex.load(bad)


def test_meta_records_the_normalization(built):
    meta = json.loads((built[1] / fmt.META).read_text())
    assert FORMAT_VERSION == meta["format_version"] == 3
    assert meta["settings"]["normalization"] == NgramSettings().normalization


def test_corrupt_meta(built, tmp_path):
    bad = copy_index(built[1], tmp_path / "bad")
    (bad / fmt.META).write_text("{not json")
    with pytest.raises(LinkguardError, match="E060"):
        NgramIndex.load(bad)


@pytest.mark.parametrize("name", list(fmt.ALL_FILES))
def test_missing_file(built, tmp_path, name):
    bad = copy_index(built[1], tmp_path / "bad")
    if not (bad / name).exists():
        assert name not in fmt.data_files(NgramIndex.load(built[1]).layout)
        return
    (bad / name).unlink()
    with pytest.raises(LinkguardError, match=f"E062.*{name}"):
        NgramIndex.load(bad)


@pytest.mark.parametrize("name", [fmt.DF, fmt.VOCAB, fmt.POSTINGS])
def test_truncated_file(built, tmp_path, name):
    bad = copy_index(built[1], tmp_path / "bad")
    data = (bad / name).read_bytes()
    (bad / name).write_bytes(data[: len(data) // 2])
    with pytest.raises(LinkguardError, match="E063"):
        NgramIndex.load(bad)


def test_same_size_corruption_found_by_verify(built, tmp_path):
    bad = copy_index(built[1], tmp_path / "bad")
    data = bytearray((bad / fmt.DF).read_bytes())
    data[-1] ^= 0xFF
    (bad / fmt.DF).write_bytes(bytes(data))
    with pytest.raises(LinkguardError, match="E070.*df.npy"):  # sizes agree; the CRC-32 on load does not
        NgramIndex.load(bad)
    with pytest.raises(LinkguardError, match="E064"):
        NgramIndex.load(bad, verify=True)


def test_settings_mismatch_is_reported_by_settings(built):
    idx = NgramIndex.load(built[1])
    with pytest.raises(LinkguardError, match="E003"):
        NgramSettings(max_n=5).check_compatible(idx.settings, where="the index")


def test_tokenizer_processes_give_the_same_bytes(built, full, tmp_path, monkeypatch):
    from spacy_linkguard.index import tokens

    docs, path = built
    monkeypatch.setattr(tokens, "BATCH_DOCS", 3)  # 17 batches: the pool and its back-pressure run
    NgramIndex.build(docs, tmp_path / "p2", progress=False, full=full, n_process=2)
    assert file_bytes(tmp_path / "p2") == file_bytes(path)
    NgramIndex.build(docs, tmp_path / "p1", progress=False, full=full, n_process=1)
    assert file_bytes(tmp_path / "p1") == file_bytes(path)


def test_worker_error_propagates_and_leaves_nothing(tmp_path, monkeypatch):
    from spacy_linkguard.index import tokens

    monkeypatch.setattr(tokens, "BATCH_DOCS", 2)
    docs = [{"id": str(i), "text": f"doc {i}"} for i in range(10)] + [{"id": "bad", "text": None}]
    with pytest.raises(LinkguardError, match="E007"):
        NgramIndex.build(docs, tmp_path / "idx", progress=False, n_process=2)
    assert list(tmp_path.iterdir()) == []


def as_version_2(path):
    """Rewrite the meta.json of a full-layout index as version 2 wrote it."""
    meta = json.loads((path / fmt.META).read_text())
    meta["format_version"] = 2
    del meta["layout"]
    del meta["counts"]["n_rows"], meta["counts"]["n_pruned"]
    meta["checksum"] = fmt.content_checksum(meta["settings"], meta["files"], version=2)
    meta["meta_sha256"] = fmt.meta_checksum(meta)
    (path / fmt.META).write_text(json.dumps(meta))


def test_version_2_index_still_loads(built, full, tmp_path):
    if not full:
        return  # version 2 had only the full layout
    docs, path = built
    old = copy_index(path, tmp_path / "v2")
    as_version_2(old)
    idx, new = NgramIndex.load(old, verify=True), NgramIndex.load(path)
    assert idx.layout == "full" and idx.meta["format_version"] == 2
    keys = [new._trie.restore_key(i) for i in range(new.n_rows)]
    assert idx.key_doc_freqs(keys).tolist() == new.key_doc_freqs(keys).tolist()
    assert idx.n_ngrams == new.n_ngrams


def test_pruned_layout_damage_is_refused(built, full, tmp_path):
    if full:
        return
    bad = copy_index(built[1], tmp_path / "bad")
    data = bytearray((bad / fmt.DOC_TOKENS).read_bytes())
    data[-1] ^= 0xFF
    (bad / fmt.DOC_TOKENS).write_bytes(bytes(data))
    with pytest.raises(LinkguardError, match="E070.*doc_tokens"):
        NgramIndex.load(bad)
    meta = json.loads((bad / fmt.META).read_text())
    meta["layout"] = "sparse"
    (bad / fmt.META).write_text(json.dumps(meta))
    with pytest.raises(LinkguardError, match="E060.*layout"):
        NgramIndex.load(bad)


def test_unknown_layout_refused(tmp_path):
    from spacy_linkguard.index.build import build_index

    with pytest.raises(LinkguardError, match="E073"):
        build_index([{"id": "a", "text": "x"}], tmp_path / "idx", NgramSettings(), layout="sparse")
