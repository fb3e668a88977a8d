__title__ = "spacy-linkguard"
__version__ = "0.1.0"
