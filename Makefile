# aucopt: the two commands a new user needs.
#   make run    create .venv if missing, install aucopt into it, run the demo
#   make test   create .venv if missing, install aucopt with test extras, run the test suite
#   make docs   build the documentation site into docs/_build/html (offline, warnings are errors)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.aucopt-installed
# three pytest workers on two cores: many tests wait on subprocesses, Dask clusters and
# timeouts, and a third worker runs meanwhile (quiet 2-core machine, same suite: a fresh
# clone 498 s of pytest with -n 3 against 505 s with -n 2; a checkout whose kernels are
# all cached 420-435 s against 463 s)
PYTEST_ARGS ?= -n 3

.PHONY: run test lint bench bench-fuzz bench-fuzz-io bench-fuzz-inputs docs clean bench-peers

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/aucopt demo

# the bytecode of the sources first: with PYTHONDONTWRITEBYTECODE set, every process the
# suite starts would otherwise compile them again; then numba's cache of the kernels, once,
# in two processes (on a fresh clone the suite's workers and subprocesses each compiled the
# kernels they met first: 713 s of pytest against 403 s with the cache full)
test: $(STAMP)
	@$(PY) -m compileall -q aucopt tests benchmarks >/dev/null
	@$(VENV)/bin/aucopt warmup --jobs 2
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing on purpose"; exit 1; fi; \
	exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check aucopt tests benchmarks docs

docs: $(STAMP)
	$(PY) -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "documentation in docs/_build/html/index.html"

bench: $(STAMP)
	$(PY) benchmarks/run.py

# the fuzz suites at their long size (subprocess workers; each prints its counts)
bench-fuzz: bench-fuzz-io bench-fuzz-inputs

bench-fuzz-io: $(STAMP)
	$(PY) benchmarks/fuzz_io.py --size long

bench-fuzz-inputs: $(STAMP)
	$(PY) benchmarks/fuzz_inputs.py --size long

# aucopt against scikit-learn, Vowpal Wabbit, River and LibAUC (docs/peers.md); the optional
# peers: pip install -e ".[peers]" && pip install --no-deps libauc
bench-peers: $(STAMP)
	$(PY) benchmarks/peers.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache docs/_build docs/auto_examples \
		docs/algorithms/generated docs/api/generated
