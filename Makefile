# The two commands a new user needs: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTHON ?= python3

.PHONY: run test lint bench browser mosquitto screenshots clean

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

# Mosquitto for the venue tests, from Debian's packages. The tests start their
# own broker on a free port with a temporary config; the package's own service
# (on port 1883, where systemd starts it) plays no part in them.
mosquitto:
	@if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  echo "Installing Mosquitto for the venue tests (apt)..."; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq mosquitto >/dev/null \
	    || { echo "Could not install mosquitto via apt; the venue tests need it." >&2; exit 1; }; \
	fi

run: $(STAMP)
	$(VENV)/bin/tablepi run

test: $(STAMP) browser mosquitto
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP) mosquitto
	$(VENV)/bin/tablepi bench rules
	$(VENV)/bin/tablepi bench dice
	$(VENV)/bin/tablepi bench table
	$(VENV)/bin/tablepi bench advise
	$(VENV)/bin/tablepi bench web
	$(VENV)/bin/tablepi bench venue
	$(VENV)/bin/tablepi bench stats

# The README's pictures, taken by the browser tests of a real simulated table.
screenshots: $(STAMP) browser mosquitto
	TABLEPI_PICTURES=docs/pictures $(VENV)/bin/pytest -q tests/test_browser_pictures.py

clean:
	rm -rf $(VENV) build *.egg-info
