# Two commands on a fresh clone with only Python 3 and pip:
#   make demo   install what the demo needs into .venv and run it on the built-in corpus
#   make test   install the test and docs dependencies into .venv, lint, check formatting, type-check, build the docs, run the tests

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint typecheck docs install clean system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# stamps: reinstall only when the project's dependency list changes
$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

# constraints.txt pins what the machines here install (a CPU build of PyTorch), not what users get
$(VENV)/.installed-test: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install -c constraints.txt -e ".[test,docs,neural,embedding,wikipedia]"
	touch $@

install: $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(BIN)/tealeaves demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy over src/ with the configuration in pyproject.toml ([tool.mypy])
typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

# PostgreSQL and Chromium for the study tests (installed with apt only when missing)
system-deps:
	bash scripts/system-deps.sh

# the documentation, its gallery examples run on the built-in corpus; any warning fails the build
docs: $(VENV)/.installed-test
	rm -rf docs/_build docs/auto_examples docs/gen_modules docs/api/generated
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

test: lint typecheck docs system-deps
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) tealeaves-demo .pytest_cache .ruff_cache .mypy_cache docs/_build docs/auto_examples docs/gen_modules docs/api/generated
