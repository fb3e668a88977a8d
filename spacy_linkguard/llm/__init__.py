"""LLM rewriting: the spacy-llm task `linkguard.Rewrite.v1`, the model
`linkguard.HF.v1`, chunking, reply guards and local model files.

Registered names are reached through the `thinc_llm_tasks` and
`thinc_llm_models` entry points in setup.cfg; importing this package has no
side effects and loads no model.
"""
