"""Evaluation: metrics as pure functions (`metrics`), similarity, perplexity,
the semantic-linkage analysis (Figure 3) and the report."""
