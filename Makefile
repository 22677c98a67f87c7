# The project's verbs. `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SIZE   ?= S

.DEFAULT_GOAL := help
.PHONY: help demo test lint bench docs clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-8s %s\n", $$1, $$2}'

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(VENV)/.installed  ## set up and evaluate the embedded sample data
	$(BIN)/rankframe demo

test: $(VENV)/.installed-test  ## set up and run the whole test suite
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev  ## ruff and mypy (strict) on src/
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

bench: $(VENV)/.installed-test  ## benchmarks against the peers (SIZE=S|M|L), writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/run.py --size $(SIZE)

docs:  ## the docs are Markdown in docs/ (read them on the forge or in an editor)
	@ls docs

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
