"""LLM backends of spacy-linkguard (`linkguard.HF.v1`, `linkguard.OpenAI.v1`, `linkguard.LlamaCpp.v1`)."""
