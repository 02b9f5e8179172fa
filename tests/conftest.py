"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder beside the project (datasets, rulebooks). CI has it."""
    if not SHARED.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing; CI must have ../shared beside the project")
        pytest.skip(f"{SHARED} not present")
    return SHARED
