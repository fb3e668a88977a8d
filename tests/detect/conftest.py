import pytest

from spacy_linkguard.corpus import Record, write_records

from .corpora import mask, random_corpus


@pytest.fixture(scope="session")
def small_index(tmp_path_factory):
    """(index folder, queries JSONL path, collection records) over a generated corpus."""
    import random

    from spacy_linkguard.index import NgramIndex

    records = random_corpus(5, n_docs=16)
    root = tmp_path_factory.mktemp("small")
    NgramIndex.build([Record(id=i, text=t) for i, t in records], root / "index", progress=False)
    rng = random.Random(5)
    queries = [{"id": i, "text": mask(rng, t)} for i, t in records[:4]]
    queries.append({"id": "clean", "text": "nothing of this occurs anywhere"})
    write_records(queries, root / "queries.jsonl")
    return root / "index", root / "queries.jsonl", records


@pytest.fixture(scope="session")
def full_index(tmp_path_factory):
    """The index of the whole bundled ECHR collection (built once per session)."""
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.index import NgramIndex

    from .echr import ASSETS

    return NgramIndex.build(iter_records(ASSETS / "collection.jsonl"), tmp_path_factory.mktemp("full") / "index",
                            progress=False)
