"""JSON error answers: every failure of an API route is a small JSON object
``{"error": message, "rule": name}``, never an HTML page or a traceback."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from flask import Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from tablepi.i18n import N_

log = logging.getLogger("tablepi.web")

# One traceback per source in this many seconds: the journal lives on the SD card.
ERROR_LOG_SECONDS = 60.0
MAX_SOURCES = 1024
LOGGED_PATH_CHARS = 120


class ErrorLog:
    """Which unexpected errors to log in full: the first from a source in an
    interval; the rest are counted and the count goes with the next one."""

    def __init__(self, interval: float = ERROR_LOG_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._sources: OrderedDict[str, tuple[float, int]] = OrderedDict()

    def record(self, source: str) -> tuple[bool, int]:
        """``(log it in full, errors held back from this source since the last one logged)``."""
        now = self._clock()
        with self._lock:
            last, held = self._sources.get(source, (None, 0))
            if last is not None and now - last < self.interval:
                self._sources[source] = (last, held + 1)
                return False, held + 1
            self._sources.pop(source, None)
            self._sources[source] = (now, 0)
            while len(self._sources) > MAX_SOURCES:
                self._sources.popitem(last=False)
            return True, held


def error_response(status: int, message: str, rule: str = "request", **headers: str) -> Response:
    response = jsonify({"error": message, "rule": rule})
    response.status_code = status
    for name, value in headers.items():
        response.headers[name.replace("_", "-")] = value
    return response


def register(app: Flask) -> None:
    @app.after_request
    def safety_headers(response: Response) -> Response:
        # Responses are what they say they are, and no other site may frame the
        # pages a signed-in phone uses to change the game.
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if not _wants_json():
            return exc
        response = error_response(exc.code or 500, exc.description or exc.name, rule="http")
        if exc.code == 405 and exc.valid_methods:  # type: ignore[attr-defined]
            response.headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
        return response

    app.extensions["tablepi.errors"] = ErrorLog(app.config.get("ERROR_LOG_SECONDS", ERROR_LOG_SECONDS))

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        # The details go to the log for the maintainer; the client learns only that it failed.
        source = request.remote_addr or "unknown"
        full, held = current_app.extensions["tablepi.errors"].record(source)
        if full:
            path = request.path[:LOGGED_PATH_CHARS]
            if held:
                log.error(
                    N_("unexpected error in %s %s (%d more from %s were not logged)"),
                    request.method,
                    path,
                    held,
                    source,
                    exc_info=exc,
                )
            else:
                log.error(N_("unexpected error in %s %s"), request.method, path, exc_info=exc)
        if not _wants_json():
            return Response(
                "Something went wrong on the table; it keeps running. Reload the page.",
                status=500,
                mimetype="text/plain",
            )
        return error_response(500, "internal error; the table keeps running", rule="internal")


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"
