"""LLM backends of spacy-linkguard (`linkguard.HF.v1`)."""
