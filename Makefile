# aucopt: the two commands a new user needs.
#   make run    create .venv if missing, install aucopt into it, run the demo
#   make test   create .venv if missing, install aucopt with test extras, run the test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.aucopt-installed
PYTEST_ARGS ?= -n 2

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[all]"
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/aucopt demo

test: $(STAMP)
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing on purpose"; exit 1; fi; \
	exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check aucopt tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
