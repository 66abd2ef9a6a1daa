# critlab: every target sets itself up from nothing (a .venv beside this file).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup bytecode test report bench docs lint notebooks clean clean-cache

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# the install's own notices go to a log, shown only when it fails; pip byte-compiles
	@# one file after another (half its time), so the packages are compiled after it on every core
	$(BIN)/python -m pip install --quiet --no-compile -e '.[dev]' > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	touch $(STAMP)

# critlab's own modules compiled to bytecode, as an install would: where the environment
# says not to write bytecode (PYTHONDONTWRITEBYTECODE), every process of a run (each test's
# command, notebook kernel and cluster worker) compiled critlab's sources again on import;
# compileall skips what is up to date
bytecode: setup
	$(BIN)/python -m compileall -q -j 0 analysis kernels critlab > /dev/null

# every core: each test file on one worker (its module fixtures built once), so a first
# compile of a kernel is shared by the tests that need it; the files in the order
# tests/conftest.py gives them (xdist would reorder them by their number of tests);
# PYTEST_WORKERS=0 runs serially
PYTEST_WORKERS ?= auto
test: bytecode
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

report: bytecode
	$(BIN)/critlab report

bench: bytecode
	$(BIN)/python -m benchmarks.run --readme

docs: setup
	$(BIN)/python -m critlab.analysis.cli.rulesdoc docs/rules.md

notebooks: setup
	$(BIN)/python -m pip install --quiet -e '.[notebooks]'
	$(BIN)/jupyter lab notebooks/

lint: setup
	$(BIN)/ruff check critlab analysis kernels benchmarks tests notebooks
	$(BIN)/ruff format --check critlab analysis kernels benchmarks tests notebooks

clean-cache:
	find analysis kernels tests -name '*.nbi' -delete -o -name '*.nbc' -delete
	rm -rf kernels/__pycache__/mechanics
	for d in "$${CRITLAB_MECHANIC_CACHE}" "$${XDG_CACHE_HOME:-$$HOME/.cache}/critlab/mechanics"; do \
		[ -n "$$d" ] && [ -d "$$d" ] && find "$$d" \( -name '*.nbi' -o -name '*.nbc' \) -delete; true; done

clean: clean-cache
	rm -rf $(VENV) build *.egg-info .pytest_cache
