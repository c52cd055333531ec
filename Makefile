# One entry point for people and CI. Everything installs into .venv from this project's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: dev test lint rules demo sample bench bench-history clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

dev: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check forensics tests benchmarks
	$(BIN)/ruff format --check forensics tests benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest

rules: $(STAMP)
	$(BIN)/ci-forensics rules test

demo: $(STAMP)
	$(BIN)/ci-forensics analyze --demo

sample: $(STAMP)
	$(BIN)/python tests/scenarios/build_sample.py

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_speed.py $(BENCH_ARGS)

bench-history: $(STAMP)
	$(BIN)/python benchmarks/bench_history.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build dist *.egg-info
