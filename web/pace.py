"""How fast one address may load pages, and send changes to the API: a device
loading pages or posting commands in a loop takes the server's time (and
Python's one interpreter lock) from every player's commands. Each address has
a bucket of page loads that refills at ``PAGE_RATE`` a second; past it a load
is refused (429) and the server reads nothing more from that address until
its bucket has a load again (``paused``), so a device that asks again at once
waits in its own network buffers instead of taking the table's time with
refusals. Changes (a command, a press, a vote) have a bucket of their own
per address, PIN or not: a phone's PIN lets it play, not take the table."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from flask import Flask, Response, current_app, request

from tablepi.i18n import N_
from web.errors import error_response
from web.health import own_computer

PAGE_RATE = 10.0  # page loads a second, per address, once the burst is spent
PAGE_BURST = 40.0  # a phone opening the site and its live parts, several times over
MAX_ADDRESSES = 4096
# Paths that are not pages: the API and live events have their own limits.
NOT_PAGES = ("/api/", "/static/", "/healthz")
CHANGE_RATE = 5.0  # changes a second, per address, once the burst is spent
CHANGE_BURST = 30.0  # a player tapping through a turn as fast as fingers go, twice over
CHANGES = ("POST", "PUT", "PATCH", "DELETE")
# Signing in and out count against the wrong-PIN limits instead (web.auth).
NOT_CHANGES = ("/api/login", "/api/logout")


class Pace:
    """A bucket of requests per address."""

    def __init__(
        self, rate: float = PAGE_RATE, burst: float = PAGE_BURST, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str) -> bool:
        """Whether ``address`` may load a page now (and one is counted)."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.pop(address, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= 1
            self._buckets[address] = (tokens - 1 if allowed else tokens, now)
            while len(self._buckets) > MAX_ADDRESSES:
                self._buckets.popitem(last=False)
            return allowed

    def paused(self, address: str) -> bool:
        """Whether the server should read nothing more from ``address`` for
        now: its bucket holds no whole page load."""
        now = self._clock()
        with self._lock:
            found = self._buckets.get(address)
            if found is None:
                return False
            tokens, then = found
            return tokens + (now - then) * self.rate < 1


def register(app: Flask) -> None:
    app.extensions["tablepi.pace"] = Pace(
        float(app.config.get("PAGE_RATE", PAGE_RATE)), float(app.config.get("PAGE_BURST", PAGE_BURST))
    )
    app.extensions["tablepi.change_pace"] = Pace(
        float(app.config.get("CHANGE_RATE", CHANGE_RATE)), float(app.config.get("CHANGE_BURST", CHANGE_BURST))
    )

    @app.before_request
    def pace_changes() -> Response | None:
        if (
            request.method not in CHANGES
            or not request.path.startswith("/api/")
            or request.path in NOT_CHANGES
            or own_computer()
        ):
            return None
        if current_app.extensions["tablepi.change_pace"].take(request.remote_addr or "unknown"):
            return None
        return error_response(
            429, N_("Too many changes from this device; wait a moment."), rule="pace", Retry_After="1"
        )

    @app.before_request
    def pace_pages() -> Response | None:
        if request.method != "GET" or request.path.startswith(NOT_PAGES) or own_computer():
            return None  # the table's own computer (its TV, its set-up page) is not a guest
        if current_app.extensions["tablepi.pace"].take(request.remote_addr or "unknown"):
            return None
        return Response(
            "Too many page loads from this device; wait a moment.",
            status=429,
            mimetype="text/plain",
            headers={"Retry-After": "1"},
        )
