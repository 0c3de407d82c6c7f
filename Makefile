# One place for every command a newcomer or CI needs. Each target builds .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-slow test-browser imports check bench fmt clean chromium screenshot fuzz bench-peers

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# the CPU build of torch for `measure` (pinned: a looser request can pull a CUDA build)
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[cli,plot,measure,web,dev]'
	touch $(STAMP)

## demo: set up and run the main job on the built-in defaults
demo: $(STAMP)
	$(BIN)/llm-roofline demo

## chromium: Debian's Chromium for the browser test (installed with apt-get when missing)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
		|| { echo "could not install chromium: install it, or run as root"; exit 1; }; }

## test: set up and run the test suite and the doctests, less the checks marked slow
## (`make test-slow`) and those that drive a browser (`make test-browser`)
test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not browser"

## test-slow: the checks marked slow, which make test leaves out (fuzz runs, long simulations)
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m "slow and not browser"

## test-browser: the page in Debian's headless Chromium (installed with apt-get when missing)
test-browser: $(STAMP) chromium
	$(BIN)/python -m pytest -q -m browser

## imports: the wings import downward only (import-linter contracts in pyproject.toml)
imports: $(STAMP)
	$(BIN)/lint-imports --no-cache

## check: format check, lint, types, the import contracts, every test and doctest (slow and
## browser ones too)
check: $(STAMP) chromium
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q

## fmt: apply the formatter and safe lint fixes
fmt: $(STAMP)
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

## bench: engine, bulk, command-line and start-up benchmarks (recorded in docs/performance.md)
bench: $(STAMP)
	$(BIN)/python benchmarks/sweep.py
	$(BIN)/python benchmarks/predict_bulk.py
	$(BIN)/python benchmarks/cli_time.py
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/optimize.py
	$(BIN)/python benchmarks/web_load.py
	$(BIN)/python benchmarks/validate_cv.py
	$(BIN)/python benchmarks/simulate_speed.py
	$(BIN)/python benchmarks/plan_speed.py

## fuzz: 100,000 inputs of each kind through the config.json and scenario CSV readers
fuzz: $(STAMP)
	$(BIN)/python benchmarks/fuzz.py 100000

## screenshot: every browser test (tests/web/test_page*_e2e.py), keeping their screenshots in docs/figures
screenshot: $(STAMP) chromium
	LLM_ROOFLINE_SCREENSHOT=docs/figures/web.png $(BIN)/python -m pytest -q -m browser

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache

## bench-peers: side-by-side with other tools on PyPI, each in its own venv (docs/comparison.md)
bench-peers: $(STAMP)
	$(BIN)/python benchmarks/peers/run.py
	$(BIN)/python benchmarks/peers/plan_compare.py --write
