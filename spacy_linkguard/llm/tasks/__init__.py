"""spacy-llm tasks of spacy-linkguard, one folder per task; prompts in `templates/`."""
