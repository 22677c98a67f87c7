# The project's verbs. `make help` lists them.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SIZE   ?= S

.DEFAULT_GOAL := help
.PHONY: help java chromium mlflow-ui screenshots trec-eval demo test test-floors test-modin lint metric-methods bench bench-scale bench-compare bench-beyond bench-exposure bench-spark docs clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-11s %s\n", $$1, $$2}'

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# .ci/venv_owner.py: a VENV that another checkout installed into is refused, not taken over
$(VENV)/.installed: $(BIN)/activate pyproject.toml
	$(BIN)/python -I .ci/venv_owner.py
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# .ci/warm_ranx.py: ranx (a peer of the tests) compiles its numba kernels into its own cache
# once per environment, as pip compiles bytecode, rather than in the first test run (~75 s)
$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python .ci/warm_ranx.py
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(VENV)/.installed  ## set up and evaluate the embedded sample data
	$(BIN)/rankframe demo

# The Spark tests start a local Spark, which needs Java (17 or 21) from the system.
java:
	@java -version >/dev/null 2>&1 || { \
	  echo "The Spark tests need Java 17: sudo apt-get install openjdk-17-jre-headless"; \
	  echo "(macOS: brew install openjdk@17), or set JAVA_HOME to a Java 17 install."; \
	  exit 1; }

# The report's browser test opens it in the system's Chromium (RANKFRAME_CHROMIUM, chromium
# or chromium-browser), driven by Playwright's Python package; installed here when missing.
chromium:
	@[ -n "$$RANKFRAME_CHROMIUM" ] || command -v chromium >/dev/null 2>&1 || \
	  command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -q && apt-get install -y -q chromium; \
	  else \
	    echo "The report's browser test needs Chromium: sudo apt-get install chromium"; \
	    echo "(or set RANKFRAME_CHROMIUM to a Chromium binary)."; \
	    exit 1; \
	  fi; }

# MLflow's UI for tests/output/test_mlflow.py (its browser test, its screenshots): the UI's
# build (mlflow/server/js/build) is in the full `mlflow` package only, not in the test venv's
# mlflow-skinny, and `mlflow` pins pyarrow < 26 (and pulls in scikit-learn, matplotlib,
# docker, ...); installed over mlflow-skinny it would also change what the tests' MLflow does
# (MLflow asks whether it is skinny). So a venv of its own with the `mlflow` of the test venv's
# mlflow-skinny version (one version of the server and the client), from which the module
# starts its one `mlflow server`; the tests log to it from the test venv, as a team's jobs
# log to a shared server. Rebuilt when the versions differ (PyPI: ~850 MB, 1-2 minutes).
MLFLOW_UI := .venv-mlflow-ui
VERSION_OF = python -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))'

mlflow-ui: $(VENV)/.installed-test  ## the venv of the MLflow tests' server and UI (the full `mlflow` package)
	@want=$$($(BIN)/$(VERSION_OF) mlflow-skinny) && \
	  have=$$($(MLFLOW_UI)/bin/$(VERSION_OF) mlflow 2>/dev/null); \
	  [ "$$want" = "$$have" ] || { \
	    echo "installing mlflow==$$want (its UI) into $(MLFLOW_UI)"; \
	    rm -rf $(MLFLOW_UI) && $(PYTHON) -m venv $(MLFLOW_UI) && \
	    $(MLFLOW_UI)/bin/python -m pip install --quiet --upgrade pip && \
	    $(MLFLOW_UI)/bin/python -m pip install --quiet "mlflow==$$want" || { \
	      echo "Installing mlflow==$$want (the test venv's mlflow-skinny version) into"; \
	      echo "$(MLFLOW_UI) failed: the MLflow tests need it, from PyPI, in a venv of $(PYTHON)."; \
	      exit 1; }; }

# trec_eval's own binary, the reference of tests/references/test_trec_eval_binary.py and of
# benchmarks/trec_cli.py: built from its source in the peers' folder beside the repository
# (../shared/peers, see its README) with the system's cc and make, into a cache that git
# ignores; its code never enters the repository. Built in a folder of its own, then moved
# into place, so that two builds at once (test workers) do not meet.
TREC_EVAL_SRC := ../shared/peers/trec_eval-10.0-src.tar.gz
TREC_EVAL     := .cache/trec_eval-10.0/trec_eval

$(TREC_EVAL): $(TREC_EVAL_SRC)
	@command -v cc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || { \
	  echo "Building trec_eval needs a C compiler and make: sudo apt-get install gcc make"; \
	  exit 1; }
	mkdir -p .cache $(@D)
	build=$$(mktemp -d .cache/trec_eval-build.XXXXXX) && \
	  tar -xzf $(TREC_EVAL_SRC) -C $$build && \
	  $(MAKE) -s -C $$build/trec_eval >/dev/null 2>&1 && \
	  mv $$build/trec_eval/trec_eval $@ && rm -rf $$build

trec-eval: $(TREC_EVAL)  ## build trec_eval 10.0's binary from ../shared/peers into .cache/

# -n auto: one pytest-xdist worker per core (tests/conftest.py keeps the Spark, Dask-cluster
# and browser test modules each on one worker); `pytest -n0` runs in one process.
# $(PYC): Python writes its bytecode caches (and pytest its rewritten test modules) even where
# the environment says not to (PYTHONDONTWRITEBYTECODE): on a clean clone every worker and every
# fresh interpreter of the tests would otherwise compile src/ and tests/ again (~6 s of each
# worker's collection).
PYC := env -u PYTHONDONTWRITEBYTECODE
test: java chromium mlflow-ui $(TREC_EVAL) $(VENV)/.installed-test  ## set up and run the whole test suite
	$(PYC) $(BIN)/python -m pytest -n auto

# The MLflow UI's screenshots (docs/mlflow.md): tests/output/test_mlflow.py's browser test
# writes them into build/screenshots/ on every run; this copies them into docs/images/.
SCREENSHOTS := mlflow-run.png mlflow-charts.png mlflow-report.png
screenshots: chromium mlflow-ui $(VENV)/.installed-test  ## the MLflow UI's screenshots of docs/mlflow.md, from its browser test, into docs/images/
	$(PYC) $(BIN)/python -m pytest -p no:cacheprovider -n 0 -q \
	  tests/output/test_mlflow.py::test_the_mlflow_ui_shows_what_was_logged
	cp $(addprefix build/screenshots/,$(SCREENSHOTS)) docs/images/

# The floors: a second venv with the oldest supported versions (.ci/floors.txt, pinned as pip
# constraints) and the frame-kind value and error tests (metrics, inputs, statistics: the
# tests that take every frame kind through make_frame, tests/conftest.py; --frame-kind-tests
# deselects the others, whose references may be newer than a floor: scipy.stats' wilcoxon
# and bootstrap, for instance, as of scipy 1.15, where rankframe only needs scipy.special
# of 1.11), with the peers they compare with. No test is skipped for a missing package: a
# peer that fails to install fails the target. pandas 2.2 with NumPy 1.26 warns in its own
# convert_dtypes (tests/helpers.py's pandas-pyarrow frames): only that warning, raised in pandas'
# module, is let through. Two workers (pytest-xdist): 5,550 tests.
FLOORS        := .venv-floors
FLOORS_TESTS  := tests/metrics tests/input tests/statistics
FLOORS_PEERS  := pytest pytest-xdist hypothesis pytrec-eval-terrier ranx scikit-learn ir-measures statsmodels FairRankTune==0.0.7 ppi-python krippendorff

$(FLOORS)/.installed: .ci/floors.txt pyproject.toml
	rm -rf $(FLOORS)
	$(PYTHON) -m venv $(FLOORS)
	$(FLOORS)/bin/python -m pip install --quiet --upgrade pip
	$(FLOORS)/bin/python -m pip install --quiet -c .ci/floors.txt -e '.[dask]' $(FLOORS_PEERS)
	$(FLOORS)/bin/python .ci/warm_ranx.py
	touch $@

test-floors: $(FLOORS)/.installed  ## the frame-kind tests on the oldest supported versions (.ci/floors.txt)
	$(PYC) $(FLOORS)/bin/python -m pytest -p no:cacheprovider -n 2 --frame-kind-tests \
	  -W 'ignore:invalid value encountered in cast:RuntimeWarning:pandas.core.dtypes.cast' \
	  $(FLOORS_TESTS)

# modin's frame kind: modin pins pandas below the main venv's, so a venv of its own with the
# versions of .ci/modin.txt (pip constraints) and the peers of the floors' tests; the floors'
# frame-kind tests and the accessor in either import order (tests/backends/test_import_order.py),
# on the modin kind alone (--frame-kind=modin: tests/conftest.py), modin on its single-process
# engine (MODIN_ENGINE=python). A missing modin fails, never skips. About 970 tests.
MODIN := .venv-modin

$(MODIN)/.installed: .ci/modin.txt pyproject.toml
	rm -rf $(MODIN)
	$(PYTHON) -m venv $(MODIN)
	$(MODIN)/bin/python -m pip install --quiet --upgrade pip
	$(MODIN)/bin/python -m pip install --quiet -c .ci/modin.txt -e '.[dask]' modin $(FLOORS_PEERS)
	$(MODIN)/bin/python .ci/warm_ranx.py
	touch $@

test-modin: $(MODIN)/.installed  ## the frame-kind tests on the modin kind (.ci/modin.txt, MODIN_ENGINE=python)
	MODIN_ENGINE=python $(PYC) $(MODIN)/bin/python -m pytest -p no:cacheprovider -n 2 \
	  --frame-kind-tests --frame-kind=modin $(FLOORS_TESTS) tests/backends/test_import_order.py

lint: $(VENV)/.installed-dev  ## ruff (check, format), mypy (strict) on src/ and the layers (import-linter)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The metric methods for type checkers (src/rankframe/api/metric_methods.py), written from the
# registry; tests/house/test_types.py fails while the file differs from what this writes.
metric-methods: $(VENV)/.installed  ## rewrite the typed metric methods after a metric changes
	$(BIN)/python scripts/metric_methods.py

# The peers for `make bench`. torch first, pinned: 2.13.0 is a CPU wheel on this machine's local
# disk, and installing it before torchmetrics keeps pip from pulling a CUDA build of torch.
$(VENV)/.installed-bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $@

bench: $(TREC_EVAL) $(VENV)/.installed-bench  ## benchmarks against the peers (SIZE=S|M|L), writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/run.py --size $(SIZE)
	$(BIN)/python benchmarks/beyond.py
	$(BIN)/python benchmarks/exposure.py
	$(BIN)/python benchmarks/from_scores.py
	$(BIN)/python benchmarks/windows.py
	$(BIN)/python benchmarks/history.py
	$(BIN)/python benchmarks/mlflow_log.py
	$(BIN)/python benchmarks/dashboard.py
	$(BIN)/python benchmarks/gaps.py
	$(BIN)/python benchmarks/gaps.py --permutation
	$(BIN)/python benchmarks/html_report.py --queries $(or $(QUERIES),1000000)
	$(BIN)/python benchmarks/slices.py --queries $(or $(QUERIES),1000000)
	$(BIN)/python benchmarks/slices.py --planted
	$(BIN)/python benchmarks/trec_cli.py
	$(BIN)/python benchmarks/evaluate_cli.py
	$(BIN)/python benchmarks/judgments.py

bench-scale: $(VENV)/.installed-test  ## 50M rows from parquet: Dask, polars streaming, pandas; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/scale.py

bench-compare: $(VENV)/.installed-bench  ## compare() and evaluate(ci=) at 10k and 100k queries, against ranx; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/compare.py

# The Spark peers: Microsoft Recommenders' SparkRankingEvaluation needs only pyspark, but the
# package pins pandas < 3, numpy < 2 and a dozen others that conflict with rankframe's:
# installed without its dependencies.
$(VENV)/.installed-bench-spark: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet --no-deps recommenders==1.2.1
	touch $@

bench-spark: java $(VENV)/.installed-bench-spark  ## rankframe on Spark vs RankingEvaluator, Recommenders and the driver, 10M rows on local[2] (ROWS=...); writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/spark.py --rows $(or $(ROWS),10000000)

bench-beyond: $(VENV)/.installed-test  ## the seven beyond-accuracy metrics vs the six accuracy ones, 1M queries x 50 items; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/beyond.py

bench-exposure: $(VENV)/.installed-test  ## the exposure metrics vs the six accuracy ones, 200k queries x 50 items; writes benchmarks/RESULTS.md
	$(BIN)/python benchmarks/exposure.py

docs: chromium $(VENV)/.installed-test  ## the report's screenshot, then the docs site into site/ (mkdocs --strict)
	$(BIN)/python docs/screenshot.py
	$(BIN)/python -m mkdocs build --strict --site-dir site

clean:  ## remove the virtual environments and caches
	rm -rf $(VENV) $(FLOORS) $(MODIN) $(MLFLOW_UI) site build/screenshots .pytest_cache .ruff_cache .mypy_cache .hypothesis
