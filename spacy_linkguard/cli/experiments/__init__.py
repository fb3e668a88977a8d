"""The commands of the paper's evaluation harness (`spacy_linkguard/experiments/`).

Thin wrappers: each parses its arguments, calls into `spacy_linkguard.experiments`
and reports coded errors through `cli/_util.py`. They come after the product
commands in `--help` (`COMMAND_MODULES` in `cli/__init__.py`).
"""
