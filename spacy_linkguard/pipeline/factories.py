"""Every spaCy factory of spacy-linkguard, registered apart from the classes.

Reached through the `spacy_factories` entry points in setup.cfg, so
`nlp.add_pipe("linkguard")` works without importing this package first.
"""
from spacy.language import Language  # noqa: F401
