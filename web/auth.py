"""The table's PIN: signing in from a phone, and the check every state-changing
request passes.

A client proves it knows the PIN (shown on the table's OLED) either once, with
``POST /api/login`` (a session cookie follows), or on every request, in an
``X-Table-Pin`` header. Wrong guesses are limited per client address; both
ways count against the same limit.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections import deque
from collections.abc import Callable

from flask import Blueprint, Response, current_app, jsonify, request, session

from web.errors import error_response

bp = Blueprint("auth", __name__)

PIN_HEADER = "X-Table-Pin"
MAX_CLIENTS = 4096


class AttemptLimiter:
    """At most ``attempts`` wrong PINs per client in any ``window`` seconds."""

    def __init__(self, attempts: int = 5, window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.attempts = attempts
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try again; 0 when it may try now."""
        with self._lock:
            failures = self._prune(client)
            if failures is None or len(failures) < self.attempts:
                return 0.0
            return max(0.0, failures[0] + self.window - self._clock())

    def failed(self, client: str) -> None:
        with self._lock:
            self._prune(client)
            if len(self._failures) >= MAX_CLIENTS:
                # Many addresses guessing at once: forget the ones whose window has passed.
                for other in list(self._failures):
                    self._prune(other)
            self._failures.setdefault(client, deque()).append(self._clock())

    def _prune(self, client: str) -> deque[float] | None:
        failures = self._failures.get(client)
        if failures is None:
            return None
        cutoff = self._clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        if not failures:
            del self._failures[client]
            return None
        return failures


def _limiter() -> AttemptLimiter:
    return current_app.extensions["tablepi.limiter"]


def _client() -> str:
    # The table answers the LAN directly; no proxy headers are trusted.
    return request.remote_addr or "unknown"


def _pin() -> str:
    return str(current_app.extensions["tablepi"].pin)


def _pin_tag(pin: str) -> str:
    """What the session remembers: not the PIN, but a keyed digest of it, so a
    new PIN signs every phone out."""
    key = current_app.config["SECRET_KEY"]
    if isinstance(key, str):
        key = key.encode()
    return hmac.new(key, pin.encode(), hashlib.sha256).hexdigest()


def _pin_matches(candidate: object) -> bool:
    if not isinstance(candidate, str):
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "replace"), _pin().encode())


def _too_many(retry: float) -> Response:
    seconds = max(1, math.ceil(retry))
    return error_response(
        429,
        f"too many wrong PINs from this device; try again in {seconds} s",
        rule="pin-limit",
        Retry_After=str(seconds),
    )


def _signed_in() -> bool:
    tag = session.get("pin")
    return isinstance(tag, str) and hmac.compare_digest(tag, _pin_tag(_pin()))


def check_pin() -> Response | None:
    """None when this request may change the table; otherwise the error answer
    (403 without a valid session or PIN, 429 after too many wrong PINs)."""
    header = request.headers.get(PIN_HEADER)
    if header is None:
        if _signed_in():
            return None
        return error_response(403, "sign in with the table's PIN first", rule="pin")
    limiter = _limiter()
    retry = limiter.retry_after(_client())
    if retry > 0:
        return _too_many(retry)
    if _pin_matches(header.strip()):
        return None
    limiter.failed(_client())
    return error_response(403, "wrong PIN", rule="pin")


@bp.post("/api/login")
def login():
    limiter = _limiter()
    retry = limiter.retry_after(_client())
    if retry > 0:
        return _too_many(retry)
    body = request.get_json(silent=True)  # None unless sent as application/json
    if not isinstance(body, dict) or not isinstance(body.get("pin"), str):
        return error_response(400, 'send {"pin": "123456"} as JSON', rule="request")
    if not _pin_matches(body["pin"].strip()):
        limiter.failed(_client())
        return error_response(403, "wrong PIN", rule="pin")
    session.clear()
    session.permanent = True
    session["pin"] = _pin_tag(_pin())
    return jsonify({"signed_in": True})


@bp.post("/api/logout")
def logout():
    session.clear()
    return jsonify({"signed_in": False})


@bp.get("/api/session")
def session_info():
    return jsonify({"signed_in": _signed_in()})
