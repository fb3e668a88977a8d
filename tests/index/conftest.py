import pytest

from spacy_linkguard.index import runs


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Make the builder cut the stream into many runs and merge many buckets,
    as it does on a large corpus with the default budget."""
    monkeypatch.setattr(runs, "SPILL_BYTES_PER_ROW", 2**20)
    monkeypatch.setattr(runs, "MERGE_BYTES_PER_ROW", 2**20)
    # per_bucket has a floor of 2**16 rows; lower it for small corpora
    monkeypatch.setattr(runs, "MIN_BUCKET_ROWS", 64)
