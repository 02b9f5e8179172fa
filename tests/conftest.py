"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

# The table speaks the system's language by default: the tests (and the tables
# they start) read English whatever the machine they run on is set to.
os.environ["LC_ALL"] = "C.UTF-8"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding a slow test first: the two workers (``make test`` hands each a
    whole module) then start the long ones early and end together, rather than
    one waiting on the other's last long module."""
    slow = {item.module for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.module not in slow)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder beside the project (datasets, rulebooks). CI has it."""
    if not SHARED.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing; CI must have ../shared beside the project")
        pytest.skip(f"{SHARED} not present")
    return SHARED


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory):
    """A simulated table of the module's own (``tablepi run --simulate``), for
    the browser tests; a module that needs another table defines its own."""
    from browser_support import TablePiProcess, require_browser

    require_browser()
    proc = TablePiProcess(tmp_path_factory.mktemp("table")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def browser(table):
    """Headless Chromium for the module, started once its table is up."""
    from browser_support import launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
