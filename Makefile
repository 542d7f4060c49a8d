# Two commands on a fresh clone with only Python 3 and pip:
#   make demo   install what the demo needs into .venv and run it on the built-in corpus
#   make test   install the test dependencies into .venv, lint, check formatting, run the tests

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: demo test lint install clean system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# stamps: reinstall only when the project's dependency list changes
$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[test]"
	touch $@

install: $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(BIN)/tealeaves demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# PostgreSQL and Chromium for the study tests (installed with apt only when missing)
system-deps:
	bash scripts/system-deps.sh

test: lint system-deps
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) tealeaves-demo .pytest_cache .ruff_cache
