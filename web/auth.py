"""The table's PIN: signing in from a phone, and the check every state-changing
request passes.

A client proves it knows the PIN (shown on the table's OLED) either once, with
``POST /api/login`` (a session cookie follows), or on every request, in an
``X-Table-Pin`` header. Wrong guesses are limited per client address (a few a
minute) and for the whole table (``TABLE_ATTEMPTS`` at once, then one more
every ``TABLE_REFILL`` seconds), so that many addresses guessing together get
no further than one would. A table that has seen ``ATTACK_FAILURES`` wrong
PINs in a day is being guessed at, not mistyped at: it then allows one more
every ``ATTACK_REFILL`` seconds, 144 a day, and even odds of finding the PIN
take about nine and a half years. An address that has signed in with the
right PIN before is a player's phone and is held to its own limit only.

A session lasts at most ``SESSION_SECONDS`` from sign-in; signing out revokes
it on the table (a copy of the cookie kept elsewhere no longer works).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, request, session

from web.errors import error_response

bp = Blueprint("auth", __name__)

PIN_HEADER = "X-Table-Pin"
MAX_CLIENTS = 4096
# The table-wide budget of wrong PINs: a burst for a table of players who
# mistype, then one a minute, so a wait is never longer than a minute.
TABLE_ATTEMPTS = 10
TABLE_REFILL = 60.0
# Wrong PINs from new devices in a day that only guessing explains, and the
# slower pace the table-wide budget then refills at.
ATTACK_FAILURES = 50
ATTACK_WINDOW = 24 * 3600.0
ATTACK_REFILL = 600.0
# Addresses remembered as players' phones (signed in with the right PIN).
MAX_TRUSTED = 256
SESSION_SECONDS = 24 * 3600  # a day of play
REVOKED_FILE = "web-revoked.json"


class AttemptLimiter:
    """At most ``attempts`` wrong PINs per client in any ``window`` seconds,
    and at most ``table_attempts`` plus one per ``table_refill`` seconds from
    clients that have never signed in, all together."""

    def __init__(
        self,
        attempts: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        table_attempts: int = TABLE_ATTEMPTS,
        table_refill: float = TABLE_REFILL,
        attack_failures: int = ATTACK_FAILURES,
        attack_refill: float = ATTACK_REFILL,
    ):
        self.attempts = attempts
        self.window = window
        self.table_attempts = table_attempts
        self.table_refill = table_refill
        self.attack_failures = attack_failures
        self.attack_refill = attack_refill
        self._table_failures: deque[float] = deque()
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._tokens = float(table_attempts)
        self._refilled = clock()
        self._trusted: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try again; 0 when it may try now."""
        with self._lock:
            return max(self._client_wait(client), self._table_wait(client))

    def acquire(self, client: str) -> float:
        """Reserve one PIN check for ``client``: 0 when it may check now (the
        check then counts against the table's budget until ``succeeded``),
        otherwise the seconds to wait. Reserving before checking keeps many
        simultaneous guesses from all slipping through one free slot."""
        with self._lock:
            wait = max(self._client_wait(client), self._table_wait(client))
            if wait > 0:
                return wait
            if client not in self._trusted:
                self._tokens -= 1
            return 0.0

    def failed(self, client: str) -> None:
        with self._lock:
            self._prune(client)
            if len(self._failures) >= MAX_CLIENTS:
                # Many addresses guessing at once: forget the ones whose window has passed.
                for other in list(self._failures):
                    self._prune(other)
            self._failures.setdefault(client, deque()).append(self._clock())
            if client not in self._trusted:
                self._table_failures.append(self._clock())

    def succeeded(self, client: str) -> None:
        """The right PIN from ``client``: a player's phone from now on."""
        with self._lock:
            if client not in self._trusted:
                self._tokens = min(float(self.table_attempts), self._tokens + 1)
            self._trusted[client] = None
            self._trusted.move_to_end(client)
            while len(self._trusted) > MAX_TRUSTED:
                self._trusted.popitem(last=False)

    def _client_wait(self, client: str) -> float:
        failures = self._prune(client)
        if failures is None or len(failures) < self.attempts:
            return 0.0
        return max(0.0, failures[0] + self.window - self._clock())

    def _table_wait(self, client: str) -> float:
        if client in self._trusted:
            return 0.0
        now = self._clock()
        refill = self._refill_seconds()
        if refill > 0:
            self._tokens = min(float(self.table_attempts), self._tokens + (now - self._refilled) / refill)
        self._refilled = now
        if self._tokens >= 1 - 1e-9:  # a whole guess, give or take rounding
            return 0.0
        return (1 - self._tokens) * refill

    def _refill_seconds(self) -> float:
        """Seconds for the table-wide budget to gain one guess: slower while
        the last day's wrong PINs say the table is being guessed at."""
        cutoff = self._clock() - ATTACK_WINDOW
        while self._table_failures and self._table_failures[0] <= cutoff:
            self._table_failures.popleft()
        if len(self._table_failures) >= self.attack_failures:
            return max(self.table_refill, self.attack_refill)
        return self.table_refill

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


class RevokedSessions:
    """Session ids signed out before they expired, kept in the data folder so
    that a restart does not bring them back. Entries go once their session
    would have expired anyway, so the list stays as short as a day's sign-outs."""

    def __init__(self, data_dir: Path | str | None, clock: Callable[[], float] = time.time) -> None:
        self._path = None if data_dir is None else Path(data_dir) / REVOKED_FILE
        self._clock = clock
        self._lock = threading.Lock()
        self._ids: dict[str, float] = {}
        if self._path is not None:
            try:
                data = json.loads(self._path.read_text())
                if isinstance(data, dict):
                    self._ids = {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}
            except (OSError, ValueError):
                pass

    def __contains__(self, sid: object) -> bool:
        with self._lock:
            return sid in self._ids

    def revoke(self, sid: str, expires: float) -> None:
        with self._lock:
            now = self._clock()
            self._ids = {k: v for k, v in self._ids.items() if v > now}
            self._ids[sid] = expires
            self._save()

    def _save(self) -> None:
        if self._path is None:
            return
        tmp = self._path.with_name(REVOKED_FILE + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(self._ids, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._path)
        except OSError:
            pass  # kept in memory until the next restart


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
        f"too many wrong PINs; try again in {seconds} s",
        rule="pin-limit",
        Retry_After=str(seconds),
    )


def _signed_in() -> bool:
    tag = session.get("pin")
    if not (isinstance(tag, str) and hmac.compare_digest(tag, _pin_tag(_pin()))):
        return False
    sid, issued = session.get("sid"), session.get("at")
    if not isinstance(sid, str) or isinstance(issued, bool) or not isinstance(issued, int | float):
        return False
    if not 0 <= now() - issued < _session_seconds():
        return False
    return sid not in _revoked()


def now() -> float:
    """The wall clock sessions are dated by (tests move it)."""
    return time.time()


def _session_seconds() -> float:
    return float(current_app.config.get("SESSION_SECONDS", SESSION_SECONDS))


def _revoked() -> RevokedSessions:
    return current_app.extensions["tablepi.revoked"]


def _check(candidate: object) -> Response | None:
    """None when ``candidate`` is the PIN; otherwise the refusal (403, or 429
    once the client or the table has had too many wrong guesses)."""
    limiter = _limiter()
    retry = limiter.acquire(_client())
    if retry > 0:
        return _too_many(retry)
    if _pin_matches(candidate):
        limiter.succeeded(_client())
        return None
    limiter.failed(_client())
    return error_response(403, "wrong PIN", rule="pin")


def check_pin() -> Response | None:
    """None when this request may change the table; otherwise the error answer
    (403 without a valid session or PIN, 429 after too many wrong PINs)."""
    header = request.headers.get(PIN_HEADER)
    if header is None:
        if _signed_in():
            return None
        return error_response(403, "sign in with the table's PIN first", rule="pin")
    return _check(header.strip())


def check_json_change(what: str = "the command") -> Response | None:
    """``check_pin``, then that the body is JSON: a cross-site HTML form cannot
    send that type, so a page elsewhere cannot change the table for a signed-in guest."""
    refused = check_pin()
    if refused is None and not request.is_json:
        refused = error_response(400, f"send {what} as JSON (Content-Type: application/json)", rule="request")
    return refused


@bp.post("/api/login")
def login():
    body = request.get_json(silent=True)  # None unless sent as application/json
    if not isinstance(body, dict) or not isinstance(body.get("pin"), str):
        return error_response(400, 'send {"pin": "123456"} as JSON', rule="request")
    refused = _check(body["pin"].strip())
    if refused is not None:
        return refused
    session.clear()
    session.permanent = True
    session["pin"] = _pin_tag(_pin())
    session["sid"] = secrets.token_urlsafe(16)
    session["at"] = now()
    return jsonify({"signed_in": True})


@bp.post("/api/logout")
def logout():
    sid, issued = session.get("sid"), session.get("at")
    if isinstance(sid, str) and isinstance(issued, int | float):
        # The cookie may live on in a copy; the table itself forgets it.
        _revoked().revoke(sid, float(issued) + _session_seconds())
    session.clear()
    return jsonify({"signed_in": False})


@bp.get("/api/session")
def session_info():
    return jsonify({"signed_in": _signed_in()})
