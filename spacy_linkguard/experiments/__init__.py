"""The paper's evaluation harness: not needed to protect documents.

Everything here exists to reproduce the paper's tables and figures (the
`project.yml` workflow): choosing and de-identifying the query documents
(`prepare`, `deidentify_queries`), the "LLM rewrite, no span list" baseline
(`nospans`), the systems table (`systems`), the metrics as pure functions
(`metrics`), similarity and perplexity (`similarity`, `perplexity`), scoring
every approach (`evaluate`), the semantic-linkage analysis of Figure 3
(`semantic_linkage`) and the report (`report`, with `templates/` and
`data/paper_reference.json`).

It is the top layer of the package: it may import the product (detection,
de-identification, rewriting, the LLM wing) but nothing in the product
imports it (tests/test_layers.py). The commands that run it are thin
wrappers in `spacy_linkguard/cli/experiments/`.
"""
