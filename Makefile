# The two commands a new user needs: `make run` and `make test`.
# Both install exactly the versions in requirements/*.txt (the lock, with
# hashes); `make lock` refreshes it. pyproject.toml keeps compatible ranges
# for anyone installing TablePi as a package.
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install -q --disable-pip-version-check
PYTHON ?= python3
LOCK   := requirements
# On a Raspberry Pi the environment is the installer's (systemd/pi-env.sh):
# apt's picamera2 and lgpio visible beside the locked packages.
ON_PI  := $(shell grep -qas "Raspberry Pi" /proc/device-tree/model && echo yes)

.PHONY: run test test-latest lint bench browser debs screenshots lock clean catalogs messages

# The players' languages: gettext catalogs, .po under version control, .mo
# compiled here (never committed). See README, "Language".
LOCALE   := tablepi/locale
CATALOGS := $(patsubst %.po,%.mo,$(wildcard $(LOCALE)/*/LC_MESSAGES/messages.po))
KEYWORDS := -k _ -k N_ -k tr -k gettext -k ngettext:1,2 -k lazy_gettext

$(VENV)/.table: $(LOCK)/table.txt $(LOCK)/pi.txt pyproject.toml
ifeq ($(ON_PI),yes)
	sh systemd/pi-env.sh $(VENV) --editable
else
	$(PYTHON) -m venv $(VENV)
	$(PIP) --require-hashes -r $(LOCK)/table.txt
	$(VENV)/bin/pybabel -q compile -d $(LOCALE) -D messages
	$(PIP) --no-deps --no-build-isolation -e .
endif
	touch $@

# A catalog edited since the environment was made is compiled again.
$(LOCALE)/%/LC_MESSAGES/messages.mo: $(LOCALE)/%/LC_MESSAGES/messages.po | $(VENV)/.table
	$(VENV)/bin/pybabel -q compile -i $< -o $@

catalogs: $(CATALOGS)

# Gather every marked message into the template and bring each language's
# catalog up to date with it (new messages come in untranslated).
messages: $(VENV)/.dev
	$(VENV)/bin/pybabel -q extract -F babel.cfg $(KEYWORDS) --sort-by-file --no-wrap \
	  --project TablePi --copyright-holder "TablePi" -o $(LOCALE)/messages.pot .
	$(VENV)/bin/pybabel -q update -i $(LOCALE)/messages.pot -d $(LOCALE) -D messages --no-fuzzy-matching --ignore-obsolete --no-wrap

$(VENV)/.dev: $(VENV)/.table $(LOCK)/dev.txt
	$(PIP) --require-hashes -r $(LOCK)/dev.txt
	touch $@

# Headless Chromium for the page tests, from Debian's packages.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  echo "Installing Chromium for the browser tests (apt)..."; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null \
	    || { echo "Could not install chromium via apt; the browser tests need /usr/bin/chromium." >&2; exit 1; }; \
	fi

# Mosquitto for the venue tests, and Debian's numpy, Cython and compiler for
# the test that builds a Raspberry Pi OS environment, from Debian's packages.
# The tests start their own broker on a free port with a temporary config; the
# package's own service (on port 1883, where systemd starts it) plays no part.
DEBS := mosquitto python3-venv python3-dev python3-numpy cython3 gcc
debs:
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  echo "Installing $$(echo $$missing) for the tests (apt)..."; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	    || { echo "Could not install $$(echo $$missing) via apt; the tests need them." >&2; exit 1; }; \
	fi

run: $(VENV)/.table $(CATALOGS)
	$(VENV)/bin/tablepi run

test: $(VENV)/.dev $(CATALOGS) browser debs
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	# Two processes: the camera and browser tests wait on servers while the reader's use a core.
	# Each takes whole modules (their servers and readings are made once), the slow ones first.
	$(VENV)/bin/pytest -q -n 2 --dist loadscope --no-loadscope-reorder

# The reader's tests on the newest releases pyproject.toml allows, in an
# environment of their own (.venv-latest); the lock is not touched.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install -q --disable-pip-version-check --upgrade -e '.[dev]'
	.venv-latest/bin/python -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(numpy|opencv-python-headless|flask|pillow) '
	.venv-latest/bin/pytest -q tests/test_vision_*.py tests/test_camera_replay.py tests/test_camera_loop.py

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(VENV)/.dev debs
	$(VENV)/bin/tablepi bench rules
	$(VENV)/bin/tablepi bench dice
	$(VENV)/bin/tablepi bench table
	$(VENV)/bin/tablepi bench advise
	$(VENV)/bin/tablepi bench web
	$(VENV)/bin/tablepi bench venue
	$(VENV)/bin/tablepi bench stats

# The README's pictures, taken by the browser tests of a real simulated table.
screenshots: $(VENV)/.dev $(CATALOGS) browser debs
	TABLEPI_PICTURES=docs/pictures $(VENV)/bin/pytest -q tests/test_browser_pictures.py

# Refresh the lock: keep every pinned version that still fits pyproject.toml
# and pin what is new; `make lock UPGRADE=1` moves everything to the newest
# releases (then re-measure the reader: see README, "Versions").
UV := .venv-lock/bin/uv
lock:
	[ -x $(UV) ] || { $(PYTHON) -m venv .venv-lock && .venv-lock/bin/python -m pip install -q uv==0.13.9; }
	$(UV) pip compile -q $(if $(UPGRADE),--upgrade) --universal --python-version 3.11 --generate-hashes \
	  pyproject.toml $(LOCK)/build.in -o $(LOCK)/table.txt
	$(UV) pip compile -q $(if $(UPGRADE),--upgrade) --universal --python-version 3.11 --generate-hashes \
	  pyproject.toml --extra dev -c $(LOCK)/table.txt -o $(LOCK)/dev.txt
	$(UV) pip compile -q $(if $(UPGRADE),--upgrade) --universal --python-version 3.11 --generate-hashes \
	  $(LOCK)/pi.in -c $(LOCK)/table.txt -o $(LOCK)/pi.txt
	$(UV) pip compile -q $(if $(UPGRADE),--upgrade) --universal --python-version 3.11 --generate-hashes \
	  $(LOCK)/train.in -c $(LOCK)/dev.txt -o $(LOCK)/train.txt

clean:
	rm -rf $(VENV) .venv-latest .venv-lock build *.egg-info
