"""Issue 15, item 3: no command destroys its input or another folder, and two writers never lose documents."""
import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import write_records
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex
from spacy_linkguard.index.lock import IndexLock

from .conftest import COLLECTION


def run(*args):
    return CliRunner().invoke(app, [*map(str, args)])


def assert_coded_exit(result, code):
    assert result.exit_code == 1, result.output
    assert code in result.output and "Traceback" not in result.output


def test_detect_out_is_the_input(hostile_index, tmp_path):
    index, queries = hostile_index
    before = queries.read_bytes()
    assert_coded_exit(run("detect", queries, "--index", index, "--out", queries), "E012")
    assert queries.read_bytes() == before
    # also through a symbolic or a hard link
    link = tmp_path / "link.jsonl"
    link.symlink_to(queries)
    assert_coded_exit(run("detect", queries, "--index", index, "--out", link), "E012")
    hard = tmp_path / "hard.jsonl"
    os.link(queries, hard)
    assert_coded_exit(run("detect", hard, "--index", index, "--out", queries), "E012")
    assert queries.read_bytes() == before


def test_rewrite_and_show_output_is_the_input(hostile_index, tmp_path):
    index, queries = hostile_index
    before = queries.read_bytes()
    assert_coded_exit(run("rewrite", queries, "--index", index, "--output", queries), "E012")
    assert_coded_exit(run("show", queries, "--index", index, "--out", queries), "E012")
    assert queries.read_bytes() == before
    corpus = tmp_path / "c.jsonl"
    write_records(COLLECTION, corpus)
    for cmd in (["deidentify", corpus, "-o", corpus], ["prepare", corpus, corpus]):
        assert_coded_exit(run(*cmd), "E012")
    assert [json.loads(line)["id"] for line in corpus.read_text().splitlines()] == [d["id"] for d in COLLECTION]


def test_output_in_a_missing_folder_is_a_coded_error(hostile_index):
    index, queries = hostile_index
    assert_coded_exit(run("detect", queries, "--index", index, "--out", "/nonexistent/x/spans.jsonl"), "E013")


def test_detect_output_replaces_the_file_only_when_complete(hostile_index, tmp_path):
    index, queries = hostile_index
    out = tmp_path / "spans.jsonl"
    assert run("detect", queries, "--index", index, "--out", out, "--no-progress").exit_code == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["q0", "q1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spans.jsonl"]  # no temporary file left


def test_build_index_never_deletes_a_model_folder(tmp_path):
    corpus = tmp_path / "c.jsonl"
    write_records(COLLECTION, corpus)
    model = tmp_path / "en_model"
    (model / "ner").mkdir(parents=True)
    (model / "meta.json").write_text(json.dumps({"lang": "en", "name": "core_web_sm"}))
    (model / "ner" / "model").write_bytes(b"weights")
    assert_coded_exit(run("build-index", corpus, model, "--no-progress"), "E057")
    assert (model / "ner" / "model").read_bytes() == b"weights"
    # Our own index is replaced; with a file of someone else's added, it is not.
    index = tmp_path / "idx"
    assert run("build-index", corpus, index, "--no-progress").exit_code == 0
    assert run("build-index", corpus, index, "--no-progress").exit_code == 0
    (index / "notes.txt").write_text("mine")
    assert_coded_exit(run("build-index", corpus, index, "--no-progress"), "E057")
    assert (index / "notes.txt").read_text() == "mine"
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(LinkguardError, match="E057.*not a directory"):
        NgramIndex.build(COLLECTION, a_file, progress=False)


def test_a_second_writer_fails_with_a_coded_error(tmp_path):
    NgramIndex.build(COLLECTION[:3], tmp_path / "idx", progress=False)
    corpus = tmp_path / "new.jsonl"
    write_records(COLLECTION[3:], corpus)
    with IndexLock(tmp_path / "idx"):
        result = run("add-docs", tmp_path / "idx", corpus, "--no-progress")
        assert_coded_exit(result, "E068")
        assert f"process {os.getpid()}" in result.output
        with pytest.raises(LinkguardError, match="E068"):
            NgramIndex.build(COLLECTION, tmp_path / "idx", progress=False)
    assert NgramIndex.load(tmp_path / "idx").n_docs == 3
    assert run("add-docs", tmp_path / "idx", corpus, "--no-progress").exit_code == 0
    assert NgramIndex.load(tmp_path / "idx").n_docs == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx", "new.jsonl"]  # the lock file is gone


def test_adding_through_a_stale_handle_is_refused(tmp_path):
    first = NgramIndex.build(COLLECTION[:2], tmp_path / "idx", progress=False)
    other = NgramIndex.load(tmp_path / "idx")
    other.add_documents(COLLECTION[2:4], progress=False)
    with pytest.raises(LinkguardError, match="E071"):
        first.add_documents(COLLECTION[4:], progress=False)
    assert NgramIndex.load(tmp_path / "idx").doc_ids == [d["id"] for d in COLLECTION[:4]]


def test_two_concurrent_add_docs_lose_no_document(tmp_path):
    NgramIndex.build([{"id": f"base{i}", "text": f"base text number {i}"} for i in range(20)],
                     tmp_path / "idx", progress=False)
    procs = []
    for name in ("a", "b"):
        corpus = tmp_path / f"{name}.jsonl"
        write_records([{"id": f"{name}{i}", "text": f"new text {name} {i}"} for i in range(2)], corpus)
        procs.append(subprocess.Popen([sys.executable, "-m", "spacy_linkguard", "add-docs", str(tmp_path / "idx"),
                                       str(corpus), "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    outs = [p.communicate(timeout=300) for p in procs]
    ok = [p.returncode == 0 for p in procs]
    for good, (_, err) in zip(ok, outs):
        assert good or "E068" in err or "E071" in err, err
    assert NgramIndex.load(tmp_path / "idx").n_docs == 20 + 2 * sum(ok)


def test_stale_folders_of_a_killed_build_are_removed(tmp_path):
    NgramIndex.build(COLLECTION[:2], tmp_path / "idx", progress=False)
    stale = tmp_path / ".idx.building-k1ll3d"
    (stale / "_work").mkdir(parents=True)
    (stale / "_work" / "tokens.u32").write_bytes(b"\0" * 1024)
    old = tmp_path / ".idx.old-abc"
    old.mkdir()
    other = tmp_path / ".other.building-x"  # another index's: not ours to remove
    other.mkdir()
    NgramIndex.load(tmp_path / "idx").add_documents(COLLECTION[2:3], progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.building-x", "idx"]
