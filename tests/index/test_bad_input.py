"""Every bad input gets a coded error or a documented, counted skip."""
import errno
import warnings

import pytest

from spacy_linkguard.corpus import Record, iter_records
from spacy_linkguard.errors import LinkguardError, LinkguardWarning
from spacy_linkguard.index import NgramIndex, parse_memory_budget


def test_empty_corpus(tmp_path):
    with pytest.raises(LinkguardError, match=r"E050.*0 whitespace-only"):
        NgramIndex.build([], tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()
    assert list(tmp_path.iterdir()) == []


def test_only_empty_documents(tmp_path):
    with pytest.warns(LinkguardWarning, match="W050"), pytest.raises(LinkguardError, match=r"E050.*2 whitespace"):
        NgramIndex.build([{"id": "a", "text": ""}, {"id": "b", "text": " \n\t"}], tmp_path / "idx", progress=False)


def test_empty_documents_are_skipped_and_counted(tmp_path):
    docs = [{"id": "a", "text": "the court"}, {"id": "e", "text": "  "}, {"id": "b", "text": "the court held"}]
    with pytest.warns(LinkguardWarning, match=r"W050.*1 empty.*'e'"):
        idx = NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert idx.doc_ids == ["a", "b"]
    assert list(idx.postings("court held")) == [1]
    assert idx.stats()["n_skipped_empty"] == 1


def test_document_without_ngrams_is_kept(tmp_path):
    docs = [{"id": "p", "text": "... -- !"}, {"id": "b", "text": "the court"}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        idx = NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert idx.doc_ids == ["p", "b"] and list(idx.postings("court")) == [1]


def test_duplicate_ids(tmp_path):
    docs = [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}, {"id": "a", "text": "z"}]
    with pytest.raises(LinkguardError, match=r"E051.*'a'.*records 1 and 3"):
        NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_same_text_two_ids_is_two_documents(tmp_path):
    idx = NgramIndex.build([{"id": "a", "text": "same text"}, {"id": "b", "text": "same text"}],
                           tmp_path / "idx", progress=False)
    assert idx.doc_freq("same text") == 2


def test_add_existing_id(tmp_path):
    idx = NgramIndex.build([{"id": "a", "text": "x y"}], tmp_path / "idx", progress=False)
    before = (tmp_path / "idx" / "meta.json").read_bytes()
    with pytest.raises(LinkguardError, match=r"E052.*'a'"):
        idx.add_documents([{"id": "b", "text": "z"}, {"id": "a", "text": "w"}], progress=False)
    assert (tmp_path / "idx" / "meta.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_not_a_record(tmp_path):
    with pytest.raises(LinkguardError, match=r"E053.*Record 2 is a str"):
        NgramIndex.build([{"id": "a", "text": "x"}, "just text"], tmp_path / "idx", progress=False)
    with pytest.raises(LinkguardError, match="E007"):
        NgramIndex.build([{"id": "a"}], tmp_path / "idx", progress=False)


def test_record_objects_and_int_ids(tmp_path):
    idx = NgramIndex.build([Record(id="r1", text="a b"), {"id": 7, "text": "b c"}], tmp_path / "idx", progress=False)
    assert idx.doc_ids == ["r1", "7"]


def test_malformed_jsonl_reports_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "x"}\n\n{"id": "b", "text": \n')
    with pytest.raises(LinkguardError, match=r"E006.*line 3"):
        NgramIndex.build(iter_records(bad), tmp_path / "idx", progress=False)
    assert not (tmp_path / "idx").exists()


def test_invalid_utf8_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "caf\xe9"}\n')
    with pytest.raises(LinkguardError, match=r"E008.*offset 50"):
        NgramIndex.build(iter_records(bad), tmp_path / "idx", progress=False)


def test_lone_surrogate_text(tmp_path):
    text = b"caf\xe9 au lait".decode("utf-8", errors="surrogateescape")
    with pytest.raises(LinkguardError, match=r"E054.*'b'"):
        NgramIndex.build([{"id": "a", "text": "ok"}, {"id": "b", "text": text}], tmp_path / "idx", progress=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["a \x00 b", "\x00", "a\x00", "x \x00\x00 y z"])
def test_control_characters_are_dropped(tmp_path, text):
    # NUL used to reach marisa as a key of its own (KeyError); control and
    # format characters are dropped by normalization, as a search engine does.
    idx = NgramIndex.build([{"id": "a", "text": text}, {"id": "b", "text": "a b"}], tmp_path / "idx", progress=False)
    clean = text.replace("\x00", "")
    for key in clean.split():
        assert 0 in set(idx.postings(key))


def test_hostile_spacing_is_indexed_as_plain_text(tmp_path):
    plain = "the applicant was born in 1960"
    docs = [{"id": "p", "text": plain},
            {"id": "z", "text": plain.replace(" ", " \u200b")},
            {"id": "f", "text": "\uff54\uff48\uff45 applicant\u00a0\u00a0was\tborn in 1960"}]
    idx = NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert list(idx.postings("the applicant was born in 1960")) == [0, 1, 2]


def test_full_disk_leaves_nothing(tmp_path, monkeypatch):
    from spacy_linkguard.index import writer

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer, "copy_ranges", no_space)
    docs = [{"id": "a", "text": "the court held"}, {"id": "b", "text": "the court held"}]
    with pytest.raises(LinkguardError, match=r"E058.*no space left"):
        NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_full_disk_keeps_old_index(tmp_path, monkeypatch):
    from spacy_linkguard.index import build

    docs = [{"id": "a", "text": "the court held"}, {"id": "b", "text": "the court held"}]
    old = NgramIndex.build(docs[:1], tmp_path / "idx", progress=False)

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(build, "_finish", no_space)
    with pytest.raises(LinkguardError, match="E058"):
        old.add_documents(docs[1:], progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]
    assert NgramIndex.load(tmp_path / "idx", verify=True).n_docs == 1


def test_refuses_to_replace_other_directory(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "precious.txt").write_text("keep me")
    with pytest.raises(LinkguardError, match="E057"):
        NgramIndex.build([{"id": "a", "text": "x"}], tmp_path / "data", progress=False)
    assert (tmp_path / "data" / "precious.txt").read_text() == "keep me"
    (tmp_path / "empty").mkdir()
    assert NgramIndex.build([{"id": "a", "text": "x"}], tmp_path / "empty", progress=False).n_docs == 1


@pytest.mark.parametrize("value,expected", [("4GB", 4 * 10**9), ("512MiB", 512 * 2**20), ("1.5 gb", 15 * 10**8),
                                            (2**30, 2**30), ("100000000", 10**8)])
def test_memory_budget_parsing(value, expected):
    assert parse_memory_budget(value) == expected


@pytest.mark.parametrize("value,code", [("lots", "E055"), ("4 parsecs", "E055"), (True, "E055"),
                                        ("1MB", "E056"), (0, "E056")])
def test_bad_memory_budget(tmp_path, value, code):
    with pytest.raises(LinkguardError, match=code):
        NgramIndex.build([{"id": "a", "text": "x"}], tmp_path / "idx", memory_budget=value, progress=False)


def test_hash_collisions_never_give_a_wrong_index(tmp_path, monkeypatch):
    import numpy as np

    from spacy_linkguard.index import runs

    # 2-bit hashes: every build attempt collides; the build must refuse, not merge N-grams.
    monkeypatch.setattr(runs, "HASH_MASK", np.uint64(3))
    docs = [{"id": "a", "text": "the court held that"}, {"id": "b", "text": "a b c d e f"}]
    with pytest.raises(LinkguardError, match="E066"):
        NgramIndex.build(docs, tmp_path / "idx", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_hash_collision_retry_gives_the_right_index(tmp_path, monkeypatch):
    from spacy_linkguard.index import runs

    from .oracle import oracle

    calls = {"n": 0}
    real = runs.spill_runs

    def first_attempt_collides(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise runs.HashCollision()
        return real(*args, **kwargs)

    monkeypatch.setattr(runs, "spill_runs", first_attempt_collides)
    docs = [{"id": "a", "text": "the court held that"}, {"id": "b", "text": "the court said that"}]
    idx = NgramIndex.build(docs, tmp_path / "idx", progress=False, full=True)
    assert calls["n"] == 2
    post = oracle([d["text"] for d in docs], idx.settings)
    assert idx.key_doc_freqs(sorted(post)).tolist() == [len(post[k]) for k in sorted(post)]


def test_collision_check_detects_different_tokens():
    import numpy as np

    from spacy_linkguard.index import runs

    tokens = np.array([1, 2, 3, runs.SENTINEL, 1, 2, 4, runs.SENTINEL], dtype=np.uint32)
    h = np.array([5, 5], dtype=np.uint64)
    runs._check_equal_adjacent(tokens, h, np.array([0, 4]), np.array([2, 2], dtype=np.uint8), 8)  # "1 2" twice
    with pytest.raises(runs.HashCollision):
        runs._check_equal_adjacent(tokens, h, np.array([0, 4]), np.array([3, 3], dtype=np.uint8), 8)
    with pytest.raises(runs.HashCollision):
        runs._check_equal_adjacent(tokens, h, np.array([0, 4]), np.array([2, 3], dtype=np.uint8), 8)


def _w051(record):
    return [w for w in record if "W051" in str(w.message)]


def test_pruned_build_warns_when_its_memory_estimate_exceeds_the_budget(tmp_path, monkeypatch):
    """W051 fires exactly when PRUNED_BYTES_PER_TOKEN x tokens > budget (the pruned
    build cannot keep to the budget); the full layout, which can, never warns.
    The per-token figure is raised so that a small corpus crosses a 32 MiB budget."""
    from spacy_linkguard.index import budget

    docs = [{"id": f"d{i}", "text": f"the court held hearing number {i} in the case of the applicant"}
            for i in range(20)]
    n_tokens = NgramIndex.build(docs, tmp_path / "probe", progress=False).meta["counts"]["n_tokens"]
    limit = 32 * 2**20
    for per_token, warns in [(limit // n_tokens, False), (limit // n_tokens + 1, True)]:
        monkeypatch.setattr(budget, "PRUNED_BYTES_PER_TOKEN", per_token)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            NgramIndex.build(docs, tmp_path / "p", memory_budget="32MiB", progress=False)
            NgramIndex.build(docs, tmp_path / "s", memory_budget="32MiB", progress=False, shards=2)
        found = _w051(rec)
        assert len(found) == (2 if warns else 0), per_token
        if warns:
            assert f"{n_tokens:,} tokens" in str(found[0].message) and "--scheduler" in str(found[0].message)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        NgramIndex.build(docs, tmp_path / "f", memory_budget="32MiB", progress=False, full=True)
    assert not _w051(rec)


def test_add_documents_checks_the_rebuild_of_old_and_new_tokens(tmp_path, monkeypatch):
    from spacy_linkguard.index import budget

    docs = [{"id": f"d{i}", "text": f"the registry sent letter {i} to the government"} for i in range(12)]
    idx = NgramIndex.build(docs[:10], tmp_path / "p", progress=False)
    old = idx.meta["counts"]["n_tokens"]
    # the two new documents alone fit, the rebuild of all twelve does not
    monkeypatch.setattr(budget, "PRUNED_BYTES_PER_TOKEN", 32 * 2**20 // old)
    with pytest.warns(LinkguardWarning, match="W051"):
        idx = idx.add_documents(docs[10:], memory_budget="32MiB", progress=False)
    assert idx.n_docs == 12
