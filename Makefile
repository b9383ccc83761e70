# Two commands on a fresh machine: `make run` opens the app on the Soma cube, `make test` runs
# the tests. Both create the virtualenv and, when run as root, install the few Debian packages
# the window and the browser test need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEBIAN_PACKAGES := xvfb libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libegl1 chromium chromium-driver gcc python3-dev

.PHONY: run test bench lint format system-deps clean fuzz docs kernels

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

# The solver's kernels compiled ahead of time, so no command waits for numba to load (a no-op
# when they are up to date; without a C compiler numba's JIT serves instead).
kernels: $(STAMP)
	@$(PY) -m tessera.solvers.native

system-deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "note: missing Debian packages (install them as root):$$missing"; fi; \
	fi

run: system-deps $(STAMP) kernels
	$(VENV)/bin/tessera view soma

test: system-deps $(STAMP) kernels lint
	$(PY) -m pytest -q -ra

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

fuzz: system-deps $(STAMP) kernels
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q tests/fuzz
	TESSERA_KILLS=100 $(PY) -m pytest -q tests/test_export_kill.py

docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

bench: system-deps $(STAMP) kernels
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache .ruff_cache
