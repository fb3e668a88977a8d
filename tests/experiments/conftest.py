"""Fixtures of the evaluation tests: real local models, fetched once per session."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def gemma_dir():
    """Gemma 3 270M as a transformers folder, made by `fetch-models` logic into
    the repository's models/ (shared with `spacy project run`)."""
    from spacy_linkguard.llm.local_models import fetch_model

    return fetch_model("gemma3-270m", REPO / "models")
