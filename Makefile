# One place for every command a newcomer or CI needs. Each target builds .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test check bench fmt clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# the CPU build of torch for `measure` (pinned: a looser request can pull a CUDA build)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[cli,plot,measure,dev]'
	touch $(STAMP)

## demo: set up and run the main job on the built-in defaults
demo: $(STAMP)
	$(BIN)/llm-roofline demo

## test: set up and run the test suite
test: $(STAMP)
	$(BIN)/python -m pytest -q

## check: format check, lint, types, tests
check: $(STAMP)
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

## fmt: apply the formatter and safe lint fixes
fmt: $(STAMP)
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

## bench: engine and start-up benchmarks (recorded in docs/performance.md)
bench: $(STAMP)
	$(BIN)/python benchmarks/sweep.py
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/optimize.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
