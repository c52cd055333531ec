# One entry point for people and CI. Everything installs into .venv from this project's own files.
# `make demo` needs only the runtime dependencies (exactly the pinned ones of requirements/action.lock);
# `make test` adds the development tools on top (linters, type checker, pytest, Playwright, the PostgreSQL
# driver).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: dev test lint rules demo sample bench bench-history gpu-corpus lock clean

$(RUNTIME_STAMP): pyproject.toml requirements/action.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/action.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(RUNTIME_STAMP)

# The pinned runtime (and PostgreSQL driver) versions stay as they are: pip only adds what the dev extra needs.
$(DEV_STAMP): $(RUNTIME_STAMP) requirements/postgres.lock
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/postgres.lock
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

dev: $(DEV_STAMP)

lint: $(DEV_STAMP)
	$(BIN)/ruff check forensics tests benchmarks
	$(BIN)/ruff format --check forensics tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest

rules: $(RUNTIME_STAMP)
	$(BIN)/ci-forensics rules test

demo: $(RUNTIME_STAMP)
	$(BIN)/ci-forensics analyze --demo

sample: $(DEV_STAMP)
	$(BIN)/python tests/scenarios/build_sample.py

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/bench_speed.py $(BENCH_ARGS)

bench-history: $(DEV_STAMP)
	$(BIN)/python benchmarks/bench_history.py $(BENCH_ARGS)

# Re-provoke the GPU corpus (tests/corpus/gpu) on a machine with a CUDA GPU, under the Python that has torch
# (PYTHON=…); then re-check the labels (tests/gpu_suite/README.md). Never part of `make test`.
gpu-corpus:
	rm -rf build/gpu-corpus
	PYTHON=$(PYTHON) bash tests/gpu_suite/run_on_device.sh build/gpu-corpus -n 8 -q
	rm -rf tests/corpus/gpu/allure-results
	tar -xzf build/gpu-corpus/allure-results.tar.gz -C tests/corpus/gpu
	cp build/gpu-corpus/versions.txt build/gpu-corpus/pytest.log tests/corpus/gpu/
	@echo 'now re-check every label against the new logs: tests/gpu_suite/README.md, then pytest tests/test_gpu_corpus.py'

# Re-pin requirements/*.lock to the versions installed in .venv (upgrade one there first, run `make test`).
lock: $(DEV_STAMP)
	$(BIN)/python requirements/lock.py

clean:
	rm -rf $(VENV) build dist *.egg-info
