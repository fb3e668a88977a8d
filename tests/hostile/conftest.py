"""A tiny collection, its index and helpers to damage copies of it."""
import json
import shutil

import pytest

from spacy_linkguard.corpus import write_records

TEXTS = [
    "The applicant, Mr Jonathan Quillfeather, was born in 1961 and lives in Brackenbury.",
    "The court held that the detention of the applicant had been unlawful.",
    "The applicant complained under Article 6 of the Convention about the length of the proceedings.",
    "The Government contested that argument and asked the court to reject the application.",
    "The court held that there had been a violation of Article 6 of the Convention.",
    "The applicant was represented by a lawyer practising in Brackenbury.",
]
COLLECTION = [{"id": f"doc{i}", "text": t} for i, t in enumerate(TEXTS)]


@pytest.fixture(scope="session")
def hostile_index(tmp_path_factory):
    """(index folder, queries JSONL) -- the queries are collection texts, so they link."""
    from spacy_linkguard.index import NgramIndex

    root = tmp_path_factory.mktemp("hostile")
    NgramIndex.build(COLLECTION, root / "index", progress=False)
    write_records([{"id": "q0", "text": TEXTS[0]}, {"id": "q1", "text": "nothing of this occurs anywhere"}],
                  root / "queries.jsonl")
    return root / "index", root / "queries.jsonl"


@pytest.fixture
def damaged(hostile_index, tmp_path):
    """A function (edit) -> folder: a copy of the index after edit(folder) ran on it."""

    def make(edit=None, name="bad"):
        target = tmp_path / name
        shutil.copytree(hostile_index[0], target)
        if edit is not None:
            edit(target)
        return target

    return make


def edit_meta(folder, change):
    meta = json.loads((folder / "meta.json").read_text())
    change(meta)
    (folder / "meta.json").write_text(json.dumps(meta))


def flip_bytes(path, positions=None):
    data = bytearray(path.read_bytes())
    for pos in positions or range(len(data) // 3, len(data) // 3 + 64):
        data[pos] ^= 0xA5
    path.write_bytes(bytes(data))
