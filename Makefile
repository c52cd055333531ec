# One entry point for people and CI. Everything installs into .venv from this project's own files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: dev test lint rules demo sample bench bench-history gpu-corpus clean

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

# Re-provoke the GPU corpus (tests/corpus/gpu) on a machine with a CUDA GPU, under the Python that has torch
# (PYTHON=…); then re-check the labels (tests/gpu_suite/README.md). Never part of `make test`.
gpu-corpus:
	rm -rf build/gpu-corpus
	PYTHON=$(PYTHON) bash tests/gpu_suite/run_on_device.sh build/gpu-corpus -n 8 -q
	rm -rf tests/corpus/gpu/allure-results
	tar -xzf build/gpu-corpus/allure-results.tar.gz -C tests/corpus/gpu
	cp build/gpu-corpus/versions.txt build/gpu-corpus/pytest.log tests/corpus/gpu/
	@echo 'now re-check every label against the new logs: tests/gpu_suite/README.md, then pytest tests/test_gpu_corpus.py'

clean:
	rm -rf $(VENV) build dist *.egg-info
