"""Handcrafted lexical paraphrasing: WordNet synonyms, re-inflection, dropped modifiers.

- `wordnet.py`: a reader of the local WordNet 3.x database (Debian's wordnet-base).
- `inflect.py`: re-inflecting a synonym to the replaced word's tag.
- `scoring.py`: harmonic mean of edit distance and embedding similarity.
- `paraphrase.py`: the pure functions `paraphrase_spans` / `paraphrase_document`.
- `paraphraser.py`: `LexicalParaphraser`, the functions with their resources.
- `registry.py`: `linkguard.Lexical.v1` (entry point `spacy_misc`).
"""
