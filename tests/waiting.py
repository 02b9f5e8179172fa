"""Polling for the tests that wait on a thread or a process."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(predicate: Callable[[], object], timeout: float = 10.0, step: float = 0.02) -> bool:
    """True as soon as ``predicate()`` is, False if it is not within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False
