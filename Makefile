# Two commands on a fresh clone with only Python 3 and pip:
#   make demo   install what the demo needs into .venv and run it on the built-in corpus
#   make test   install the test and docs dependencies into .venv, lint, check formatting and the import contract, type-check,
#               build the docs, run the tests;
#               then install the core alone (no extras) into .venv-core and run the tests it must pass (tests/core)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
# the lean install: `pip install tealeaves` without extras, and pytest
CORE_VENV ?= .venv-core
CORE_BIN := $(CORE_VENV)/bin

.PHONY: demo test test-core lint typecheck docs install clean system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(CORE_BIN)/python:
	$(PYTHON) -m venv $(CORE_VENV)

# stamps: reinstall only when the project's dependency list changes
# constraints.txt pins what the machines here install (a CPU build of PyTorch), not what users get
$(VENV)/.installed-demo: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install -c constraints.txt -e ".[all]"
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install -c constraints.txt -e ".[all,test,docs]"
	touch $@

# the core alone (what `pip install tealeaves` brings) and pytest: nothing of any extra
$(CORE_VENV)/.installed-core: pyproject.toml | $(CORE_BIN)/python
	$(CORE_BIN)/python -m pip --disable-pip-version-check -q install -e . "pytest>=8"
	touch $@

install: $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(BIN)/tealeaves demo

# lint-imports: the import contract of pyproject.toml ([tool.importlinter]): the packages' layering, no circles
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

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

# the tests the core must pass, in the core's own environment (tests/core; about a minute)
test-core: $(CORE_VENV)/.installed-core
	$(CORE_BIN)/python -m pytest -q -m core tests/core

test: lint typecheck docs system-deps
	$(BIN)/python -m pytest
	$(MAKE) test-core

clean:
	rm -rf $(VENV) $(CORE_VENV) tealeaves-demo .pytest_cache .ruff_cache .mypy_cache docs/_build docs/auto_examples docs/gen_modules docs/api/generated
