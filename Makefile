# Everything a fresh machine needs: `make run` serves the app, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
CHROMIUM := /usr/lib/chromium/chromium
REDIS_SERVER := /usr/bin/redis-server
POSTGRES := $(wildcard /usr/lib/postgresql/*/bin/pg_ctl)

.PHONY: run test lint types kernels checks unit bench bench-page clean chromium redis postgres

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(PY)
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

$(VENV)/.bench: requirements.txt requirements-bench.txt | $(PY)
	$(PIP) install --quiet -r requirements-bench.txt
	touch $@

# Debian's Chromium and ChromeDriver for the real-browser tests (no browser download).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium chromium-driver; \
	fi

# Debian's redis-server for the shared-store tests (the suite starts and stops its own on a loopback port).
redis:
	@if [ ! -x $(REDIS_SERVER) ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && $$SUDO apt-get install -y -q --no-install-recommends redis-server; \
	fi

# Debian's PostgreSQL for the groups' database tests (the suite makes and removes its own cluster on a loopback port).
postgres:
	@if [ -z "$(POSTGRES)" ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && $$SUDO apt-get install -y -q --no-install-recommends postgresql; \
	fi

run: $(VENV)/.runtime
	$(PY) app.py

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: $(VENV)/.dev
	$(VENV)/bin/mypy

unit: $(VENV)/.dev redis postgres
	$(VENV)/bin/pytest -m "not browser"

# Compiles the numba kernels into their on-disk cache (ratings/kernels/__pycache__/numba-<digest>; about 35-45 s of
# CPU on a fresh clone, a second's load when warm; the build step bin/post_compile runs on a PaaS): pytest's
# workers and every server and subprocess the tests start then load machine code instead of compiling.
kernels: $(VENV)/.dev
	$(PY) -m ratings.kernels

# ruff and mypy (one process each) side by side with the kernels' compile (two processes), output kept per step.
checks: $(VENV)/.dev
	@$(MAKE) --no-print-directory -j 3 --output-sync=target lint types kernels

# Two processes (the machine's two cores); a module's tests stay in one process, so a module's servers start once.
# Modules go out longest first (tests/module_seconds.json, read by tests/conftest.py; --no-loadscope-reorder keeps
# that order), so no long module starts last with the other process idle; the 20 slowest tests are listed.
test: $(VENV)/.dev chromium redis postgres checks
	$(VENV)/bin/pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=20

# Every system against its peers (requirements-bench.txt); writes BENCHMARKS.md.
bench: $(VENV)/.bench
	$(PY) benchmarks/compare.py

# What the user waits for, in headless Chromium (10-14 min on a loaded 2-core machine); BENCH_ARGS="--systems multielo" narrows it.
bench-page: $(VENV)/.dev chromium
	$(PY) benchmarks/page_latency.py $(BENCH_ARGS)
	$(PY) benchmarks/edit_apply.py
	$(PY) benchmarks/first_visit.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
