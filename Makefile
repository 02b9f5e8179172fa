# The two commands a new user needs: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTHON ?= python3

.PHONY: run test lint bench browser screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Headless Chromium for the page tests, from Debian's packages.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  echo "Installing Chromium for the browser tests (apt)..."; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null \
	    || { echo "Could not install chromium via apt; the browser tests need /usr/bin/chromium." >&2; exit 1; }; \
	fi

run: $(STAMP)
	$(VENV)/bin/tablepi run

test: $(STAMP) browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(VENV)/bin/tablepi bench rules
	$(VENV)/bin/tablepi bench dice
	$(VENV)/bin/tablepi bench table
	$(VENV)/bin/tablepi bench advise
	$(VENV)/bin/tablepi bench web
	$(VENV)/bin/tablepi bench stats

# The README's pictures, taken by the browser tests of a real simulated table.
screenshots: $(STAMP) browser
	TABLEPI_PICTURES=docs/pictures $(VENV)/bin/pytest -q tests/test_browser_pictures.py

clean:
	rm -rf $(VENV) build *.egg-info
