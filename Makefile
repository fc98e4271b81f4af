# Entry points: setup, test, demo, bench, wheels, lint (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
BUILD := build
STAMPS := $(VENV)/.stamps
# Every package under packages/ (dsl-mlir first: the others build on it).
PURE_PACKAGES := $(filter-out packages/dsl-mlir,$(wildcard packages/dsl-*))
# The example downstream extension (its own package and version, found through its entry point).
EXTENSION := examples/downstream-ext
MLIR_SOURCES := $(shell find packages/dsl-mlir cmake -type f \
	-not -path '*/__pycache__/*' -not -path '*/tests/*' -not -path '*/test/*' 2>/dev/null)
export PATH := $(abspath $(VENV))/bin:$(PATH)
# ccache (when installed) shares hits between clones of the repository.
export CCACHE_BASEDIR := $(CURDIR)

.PHONY: help setup test test-python test-lit demo bench wheels check-wheels lint clean examples fuzz-ir fuzz

help:
	@echo "make demo    set up (if needed) and run the main example"
	@echo "make test    set up (if needed) and run every test suite"
	@echo "make setup   create .venv, install the pinned toolchain, build dsl-mlir, install all packages"
	@echo "make bench   run the benchmarks (installs numba/jax into .venv)"
	@echo "make wheels  build one wheel per package into dist/"
	@echo "make check-wheels  build the wheels, then install each layer alone from dist/ and smoke-test it"
	@echo "make lint    ruff + mypy"
	@echo "make fuzz-ir a longer IR fuzz run (FUZZ_SECONDS=600, new cases from FUZZ_SEED)"
	@echo "make fuzz    differential fuzzing, compiled vs interpreter (FUZZ_SECONDS=600, FUZZ_OUT=fuzz-failures)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(STAMPS)/toolchain: ci/requirements-dev.txt | $(PY)
	@mkdir -p $(STAMPS)
	$(PIP) install -q -r ci/requirements-dev.txt
	@touch $@

# Native build: CMake + ninja through scikit-build-core, with a persistent
# build directory so that re-running is incremental.
$(STAMPS)/dsl-mlir: $(STAMPS)/toolchain $(MLIR_SOURCES)
	$(PIP) install -q --no-build-isolation --no-deps ./packages/dsl-mlir \
		-Cbuild-dir=$(BUILD)/dsl-mlir -Ccmake.define.CMAKE_BUILD_TYPE=Release
	@touch $@

$(STAMPS)/packages: $(STAMPS)/dsl-mlir $(wildcard packages/*/pyproject.toml) $(EXTENSION)/pyproject.toml
	@for p in $(PURE_PACKAGES) $(EXTENSION); do \
		echo "installing $$p (editable)"; \
		$(PIP) install -q --no-build-isolation --no-deps -e $$p || exit 1; \
	done
	@touch $@

setup: $(STAMPS)/packages

test: setup lint test-lit test-python examples

# The shared-cache tests run a real redis-server on loopback (each test starts its own):
# the Debian package, installed here when missing (as root, with apt-get).
$(STAMPS)/redis-server: | $(PY)
	@mkdir -p $(STAMPS)
	@command -v redis-server >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server \
			|| { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends redis-server; }; \
		else echo "redis-server is missing: install the Debian package redis-server"; exit 1; fi; }
	@touch $@

test-lit: setup
	$(VENV)/bin/lit -v packages/dsl-mlir/test

# Includes the slow tests, which install the wheels of dist/ into fresh venvs: each layer
# alone, from dist/ only (packages/dsl-runtime/tests/test_runtime_wheels.py), and the
# dsl-mlir wheel beside another MLIR package (packages/dsl-mlir/tests/test_mlir_wheel.py).
# (wheels after setup, not beside it: both build in $(BUILD)/dsl-mlir.)
test-python: setup $(STAMPS)/redis-server
	$(MAKE) --no-print-directory wheels
	DSL_REQUIRE_REDIS=1 DSL_WHEEL_DIR=$(CURDIR)/dist DSL_MLIR_WHEEL=$$(ls $(CURDIR)/dist/dsl_mlir-*-$$($(PY) -c 'import sys; print("cp%d%d" % sys.version_info[:2])')-*.whl) \
		$(PY) -m pytest -q packages $(EXTENSION)/tests

# The IR fuzz test of packages/dsl-mlir/tests/test_mlir_fuzz_ir.py, longer and on new
# cases (the test suite runs 60 s from case 0). A failure names its case number.
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= $(shell date +%s)
fuzz-ir: setup
	@echo "IR fuzz: $(FUZZ_SECONDS) s from case $(FUZZ_SEED)"
	DSL_FUZZ_IR_SECONDS=$(FUZZ_SECONDS) DSL_FUZZ_IR_SEED=$(FUZZ_SEED) \
		$(PY) -m pytest -q -s packages/dsl-mlir/tests/test_mlir_fuzz_ir.py

examples: setup
	$(PY) ci/run_examples.py

# Differential fuzzing: random programs, compiled vs the reference interpreter, for
# FUZZ_SECONDS; each failure becomes a minimized reproducer in FUZZ_OUT (see ci/fuzz.py).
fuzz: setup
	DSL_DISABLE_DISK_CACHE=1 $(PY) ci/fuzz.py

demo: setup
	$(PY) examples/demo.py

bench: setup
	$(PIP) install -q -r bench/requirements.txt
	$(PY) bench/run_all.py

# dsl-mlir's wheels, one per CPython of WHEEL_PYTHONS with a manylinux tag, reuse the
# incremental build directory of `make setup`: only the extension modules are built per
# version (ci/native_wheels.py). The other packages are pure Python (py3-none-any).
WHEEL_PYTHONS ?= 3.10 3.11 3.12 3.13
wheels: $(STAMPS)/toolchain
	@mkdir -p dist && rm -f dist/dsl_*.whl
	$(PY) ci/native_wheels.py -o dist $(WHEEL_PYTHONS)
	@for p in $(PURE_PACKAGES); do $(PIP) wheel -q --no-build-isolation --no-deps -w dist ./$$p || exit 1; done
	@ls -l dist

# Only the wheel checks: the four wheels of dist/ (pip --no-index), each layer in its own venv.
check-wheels: wheels
	DSL_WHEEL_DIR=$(CURDIR)/dist $(PY) -m pytest -q -m slow packages/dsl-runtime/tests/test_runtime_wheels.py

lint: setup
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m mypy examples/*.py  # --strict with dsl-parser's plugin (pyproject's [tool.mypy])

clean:
	rm -rf $(BUILD) packages/dsl-mlir/build dist $(STAMPS) examples/cpp-plugin/build
