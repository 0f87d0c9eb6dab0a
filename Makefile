# advisor: `make test` installs everything it needs (Debian packages, the venv, PostgreSQL
# 16/17/18 binaries) and runs ruff, mypy --strict and pytest; `make demo` runs the demo.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo fuzz lint typecheck pytest system-deps pg-binaries venv clean

test: system-deps venv pg-binaries lint typecheck pytest

# exit 4: the demo ran and cleaned up, but the host disturbed its measurement (it says so and claims nothing)
demo: system-deps venv
	$(VENV)/bin/advisor demo; rc=$$?; \
	if [ $$rc -eq 4 ]; then echo "make demo: ran and cleaned up; the measurement was not valid on this busy host (see above)"; \
	elif [ $$rc -ne 0 ]; then exit $$rc; fi

# damaged reports and documents, in-process (a 2,000-case fixed-seed run is part of `make test`);
# FUZZ_CASES/FUZZ_SEED choose the run, a failure prints the case seed for --replay
FUZZ_CASES ?= 20000
FUZZ_SEED ?= 20261123
fuzz: venv
	$(PY) -m tests.fuzz.run --cases $(FUZZ_CASES) --seed $(FUZZ_SEED)
	$(PY) -m tests.fuzz.hostile --cases 3000 --seed $(FUZZ_SEED)

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

system-deps:
	bash scripts/install-system-deps.sh

pg-binaries: venv
	bash scripts/fetch-pg-binaries.sh

lint: venv
	$(VENV)/bin/ruff check advisor collectors tests benchmarks scripts

typecheck: venv
	$(VENV)/bin/mypy

pytest: venv
	sync  # the install's writeback must not be charged to the emulated disk's timings
	$(VENV)/bin/pytest --durations=25  # the slowest tests in every log: where the suite's time goes

clean:
	rm -rf $(VENV) .cache build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache
