# The course in two commands: `make lab` opens it, `make test` runs every test.
# Both create .venv on first use and install in the order that keeps torch a CPU build.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.ragkit-installed
LAB_ARGS ?=

.PHONY: install lab test bench data-check clean-cache

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned resolve pulls a multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/jupyter lab notebooks/ --allow-root \
		--LabApp.extension_manager=readonly --ServerApp.open_browser=True $(LAB_ARGS)

test: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python benchmarks/run_all.py

data-check: $(STAMP)
	$(BIN)/python -m ragkit data check --data data

clean-cache:
	rm -rf .cache
