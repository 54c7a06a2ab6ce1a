# Two commands for a fresh machine:  `make demo`  and  `make test`.
# Both create .venv on first use (torch pinned to the CPU build available here; see DEVELOPERS.md).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
TORCH_PIN ?= torch==2.13.0
# Where the data lives (gatbio also finds ../shared/data by itself when it exists).
export GATBIO_DATA ?= $(abspath ../shared/data)

.PHONY: demo test test-fast lint clean venv

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(TORCH_PIN)
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

demo: venv
	$(PY) -m gatbio.demo

# pytest exits 5 when it collects nothing: that is not a failure of the suite.
test: venv
	$(PY) -m pytest -q tests; rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

test-fast: venv
	$(PY) -m pytest -q -m "not slow" tests; rc=$$?; if [ $$rc -eq 5 ]; then rc=0; fi; exit $$rc

lint: venv
	$(PY) -m ruff check gatbio tests experiments

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
