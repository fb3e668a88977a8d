"""Fixtures shared across the test packages."""
import pytest


@pytest.fixture(scope="session")
def grounder():
    """One `Grounder` on the machine's WordNet for every test (it caches its look-ups)."""
    from spacy_linkguard.grounding import Grounder

    return Grounder()
