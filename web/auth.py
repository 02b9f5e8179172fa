"""The table's PIN: signing in from a phone, and the check every state-changing
request passes.

A client proves it knows the PIN (shown on the table's OLED) either once, with
``POST /api/login`` (a session cookie follows), or on every request, in an
``X-Table-Pin`` header.

Wrong guesses are limited so that no number of addresses finds the PIN
quickly, while a player with the right PIN is not kept out by a guest who
guesses:

- Every client, at most a few wrong PINs a minute (per address; per device
  for a phone that has signed in).
- A phone that has signed in carries a device id in its signed cookie; it is
  trusted with ``DEVICE_FAILURES`` wrong PINs a day of its own. The trust
  belongs to the cookie: another device at the same address gets none.
- Any other address has ``FREE_TRIES`` wrong PINs a day of its own, while
  the whole table has had fewer than ``FREE_TRIES_DAY`` of those in a day: a
  new phone gets in at once, however busily one guest guesses.
- Past those, a wrong PIN spends the table-wide budget: ``TABLE_ATTEMPTS``
  at once, then one every ``TABLE_REFILL`` seconds, or every
  ``ATTACK_REFILL`` seconds once the table has seen ``ATTACK_FAILURES``
  wrong PINs (from anyone) in a day.

So in a day, however many addresses guess: 100 free tries and 144 from the
budget, 244 guesses, and even odds of finding a six-digit PIN (500,000
guesses) take about 5.6 years (README, Security). A new phone the guesses
keep waiting can be let in by a signed-in one instead (``web.invites``).

The counts outlive a restart (a power cut, a crash a guest provokes): each
wrong PIN is written to ``LIMITS_FILE`` in the data folder before its answer
leaves, as the ages of wrong PINs and the addresses (or device ids) they came
from, each address only until its minute or day has passed; never a PIN. A
file that cannot be read counts as the day's tries all spent.

A session lasts at most ``SESSION_SECONDS`` from sign-in; signing out revokes
it on the table (a copy of the cookie kept elsewhere no longer works).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import math
import os
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session

from tablepi.i18n import N_
from web.body import json_body
from web.errors import error_response

bp = Blueprint("auth", __name__)
log = logging.getLogger("tablepi.web")

PIN_HEADER = "X-Table-Pin"
MAX_CLIENTS = 4096
DAY = 24 * 3600.0
# The table-wide budget of wrong PINs: a burst, then one a minute.
TABLE_ATTEMPTS = 10
TABLE_REFILL = 60.0
# Wrong PINs in a day that only guessing explains, and the slower pace the
# table-wide budget then refills at.
ATTACK_FAILURES = 50
ATTACK_WINDOW = DAY
ATTACK_REFILL = 600.0
# Wrong PINs a day each address makes outside the table-wide budget (a new
# phone's mistypes), and all addresses together (what many addresses gain).
FREE_TRIES = 3
FREE_TRIES_DAY = 100
# Wrong PINs a day a signed-in device makes outside the table-wide budget.
DEVICE_FAILURES = 10
SESSION_SECONDS = 24 * 3600  # a day of play
REVOKED_FILE = "web-revoked.json"
LIMITS_FILE = "web-pin-limits.json"


def client_key(address: str) -> str:
    """What the per-address limits count by: an IPv6 client by its /64, the
    block one device can take addresses from at will."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class AttemptLimiter:
    """Counts wrong PINs and says who may be checked now; see the module
    docstring. ``client`` is the address, ``device`` the signed-in device id
    from the cookie (None without one)."""

    def __init__(
        self,
        attempts: int = 5,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        table_attempts: int = TABLE_ATTEMPTS,
        table_refill: float = TABLE_REFILL,
        attack_failures: int = ATTACK_FAILURES,
        attack_refill: float = ATTACK_REFILL,
        free_tries: int = FREE_TRIES,
        free_tries_day: int = FREE_TRIES_DAY,
        device_failures: int = DEVICE_FAILURES,
        data_dir: Path | str | None = None,
        wall: Callable[[], float] = time.time,
        report: Callable[[str], None] | None = None,
    ):
        self.attempts = attempts
        self.window = window
        self.table_attempts = table_attempts
        self.table_refill = table_refill
        self.attack_failures = attack_failures
        self.attack_refill = attack_refill
        self.free_tries = free_tries
        self.free_tries_day = free_tries_day
        self.device_failures = device_failures
        self._clock = clock
        self._lock = threading.Lock()
        self._failures: dict[str, deque[float]] = {}  # per client, the last window
        self._daily: OrderedDict[str, deque[float]] = OrderedDict()  # per client, the last day
        # Only whether the day holds this many matters, so the newest that many are kept.
        self._table_failures: deque[float] = deque(maxlen=attack_failures)  # everyone's, the last day
        self._free: deque[float] = deque(maxlen=free_tries_day)  # free tries that failed, the last day
        self._free_pending = 0
        self._pending: dict[str, deque[str]] = {}  # what each check in progress was charged to
        self._tokens = float(table_attempts)
        self._refilled = clock()
        self._path = None if data_dir is None else Path(data_dir) / LIMITS_FILE
        self._wall = wall
        self._report = report or (lambda message: None)
        self._save_failed = False
        if self._path is not None:
            self._load()

    def retry_after(self, client: str, device: str | None = None) -> float:
        """Seconds until ``client`` may try again; 0 when it may try now."""
        with self._lock:
            key = self._key(client, device)
            wait = self._client_wait(key)
            if self._allowance(client, device) is None:
                wait = max(wait, self._table_wait())
            return wait

    def acquire(self, client: str, device: str | None = None) -> float:
        """Reserve one PIN check: 0 when it may check now (the check then
        counts against an allowance until ``failed`` or ``succeeded``),
        otherwise the seconds to wait. Reserving before checking keeps many
        simultaneous guesses from all slipping through one free slot."""
        with self._lock:
            key = self._key(client, device)
            wait = self._client_wait(key)
            if wait > 0:
                return wait
            kind = self._allowance(client, device)
            if kind is None:
                wait = self._table_wait()
                if wait > 0:
                    return wait
                self._tokens -= 1
                kind = "table"
            elif kind == "free":
                self._free_pending += 1
            self._pending.setdefault(key, deque()).append(kind)
            return 0.0

    def failed(self, client: str, device: str | None = None) -> None:
        with self._lock:
            key = self._key(client, device)
            kind = self._take_pending(key)
            now = self._clock()
            self._prune(key)
            if len(self._failures) >= MAX_CLIENTS:
                # Many addresses guessing at once: forget the ones whose window has passed.
                for other in list(self._failures):
                    self._prune(other)
            self._failures.setdefault(key, deque()).append(now)
            daily = self._daily.pop(key, None) or deque(maxlen=max(self.free_tries, self.device_failures))
            daily.append(now)
            self._daily[key] = daily  # the latest at the end: the first forgotten are the oldest
            while len(self._daily) > MAX_CLIENTS:
                self._daily.popitem(last=False)
            if kind == "free":
                self._free_pending -= 1
                self._free.append(now)
            self._table_failures.append(now)
            # Counted on disk before the answer leaves: a restart gives no fresh tries.
            self._save()

    def succeeded(self, client: str, device: str | None = None) -> None:
        """The right PIN: what the check was charged to is given back."""
        with self._lock:
            kind = self._take_pending(self._key(client, device))
            if kind == "table":
                self._tokens = min(float(self.table_attempts), self._tokens + 1)
            elif kind == "free":
                self._free_pending -= 1

    @staticmethod
    def _key(client: str, device: str | None) -> str:
        return f"device {device}" if device else client_key(client)

    def _take_pending(self, key: str) -> str:
        pending = self._pending.get(key)
        if not pending:
            return "table"
        kind = pending.popleft()
        if not pending:
            del self._pending[key]
        return kind

    def _allowance(self, client: str, device: str | None) -> str | None:
        """What a wrong PIN from this client would be charged to besides the
        table-wide budget ("device" or "free"), or None: the budget."""
        if device:
            if self._today(self._key(client, device)) < self.device_failures:
                return "device"
            return None  # a device past its own allowance is held like any client
        if self._today(client_key(client)) >= self.free_tries:
            return None
        cutoff = self._clock() - DAY
        while self._free and self._free[0] <= cutoff:
            self._free.popleft()
        if len(self._free) + self._free_pending >= self.free_tries_day:
            return None
        return "free"

    def _today(self, key: str) -> int:
        daily = self._daily.get(key)
        if daily is None:
            return 0
        cutoff = self._clock() - DAY
        return sum(1 for t in daily if t > cutoff)

    def _client_wait(self, key: str) -> float:
        failures = self._prune(key)
        if failures is None or len(failures) < self.attempts:
            return 0.0
        return max(0.0, failures[0] + self.window - self._clock())

    def _table_wait(self) -> float:
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

    def _load(self) -> None:
        """The counts a previous run saved, aged by the time the table was off;
        what cannot be read counts as the day's tries all spent."""
        assert self._path is not None
        saved = _read_saved(self._path, _saved_limits, self._fail, N_("is damaged or empty"))
        if saved is None:
            return
        now = self._clock()
        # A clock set back while the table was off counts as no time passed.
        off = max(0.0, self._wall() - saved["saved"])

        def times(ages: list[float]) -> list[float]:
            return sorted(now - off - age for age in ages)

        self._tokens = min(float(self.table_attempts), saved["tokens"])
        self._refilled = now - off - saved["refilled"]
        self._table_failures.extend(times(saved["table"]))
        self._free.extend(times(saved["free"]))
        for key, ages in saved["windows"].items():
            self._failures[key] = deque(times(ages))
        # The oldest first, as ``failed`` keeps them, so that the oldest are forgotten first.
        for key, ages in sorted(saved["daily"].items(), key=lambda item: -min(item[1])):
            self._daily[key] = deque(times(ages), maxlen=max(self.free_tries, self.device_failures))
        while len(self._daily) > MAX_CLIENTS:
            self._daily.popitem(last=False)
        for key in list(self._failures):
            self._prune(key)

    def _fail(self, why: str) -> None:
        now = self._clock()
        self._tokens, self._refilled = 0.0, now
        self._table_failures.extend([now] * self.attack_failures)
        self._free.extend([now] * self.free_tries_day)
        self._save_failed = True  # said below, once
        with self._lock:
            saved = self._save()
        message = N_(
            "the count of wrong PINs ({file}) {why}: the table counts the day's "
            "tries as all spent, so for a day a new phone may wait ten minutes to sign in "
            "(a signed-in phone can invite it)"
        ).format(file=LIMITS_FILE, why=why)
        _say_lost(message, saved, self._report)

    def _save(self) -> bool:
        """Write the counts (ages, not times: the monotonic clock starts again
        with the computer), the windows that have passed left out."""
        if self._path is None:
            return True
        now = self._clock()
        day = now - DAY
        for key in list(self._failures):
            self._prune(key)

        def ages(times: Iterable[float], cutoff: float = day) -> list[float]:
            return [round(now - t, 3) for t in times if t > cutoff]

        daily = {key: ages(times) for key, times in self._daily.items()}
        state = {
            "version": 1,
            "saved": self._wall(),
            "tokens": self._tokens,
            "refilled": round(now - self._refilled, 3),
            "table": ages(self._table_failures),
            "free": ages(self._free),
            "windows": {key: ages(times) for key, times in self._failures.items()},
            "daily": {key: kept for key, kept in daily.items() if kept},
        }
        if write_atomically(self._path, state):
            self._save_failed = False
            return True
        if not self._save_failed:  # once, not at every wrong PIN
            self._save_failed = True
            message = N_(
                "the count of wrong PINs could not be saved to {file}: after a restart "
                "the table counts the day's tries as all spent"
            ).format(file=LIMITS_FILE)
            log.error("%s", message)
            self._report(message)
        return False

    def _prune(self, key: str) -> deque[float] | None:
        failures = self._failures.get(key)
        if failures is None:
            return None
        cutoff = self._clock() - self.window
        while failures and failures[0] <= cutoff:
            failures.popleft()
        if not failures:
            del self._failures[key]
            return None
        return failures


class RevokedSessions:
    """Session ids signed out before they expired, kept in the data folder so
    that a restart does not bring them back. Entries go once their session
    would have expired anyway, so the list stays as short as a day's sign-outs.

    It fails closed: a list that cannot be read, or a sign-out that cannot be
    saved, means every session issued before then is refused (players sign in
    again), and ``report`` hears why."""

    def __init__(
        self,
        data_dir: Path | str | None,
        clock: Callable[[], float] = time.time,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self._path = None if data_dir is None else Path(data_dir) / REVOKED_FILE
        self._clock = clock
        self._report = report or (lambda message: None)
        self._lock = threading.Lock()
        self._ids: dict[str, float] = {}
        self._before = 0.0  # sessions issued before this are refused
        if self._path is not None:
            self._load()

    def _load(self) -> None:
        assert self._path is not None
        damaged = N_("is damaged or empty (a sign-out may not have been saved)")
        saved = _read_saved(self._path, _revoked_entries, self._fail, damaged)
        if saved is not None:
            self._before, self._ids = saved

    def _fail(self, why: str) -> None:
        with self._lock:
            self._before = self._clock()
            saved = self._save()
        message = N_(
            "the list of signed-out phones ({file}) {why}: every phone signed in "
            "before now must sign in again"
        ).format(file=REVOKED_FILE, why=why)
        _say_lost(message, saved, self._report)

    def refuses(self, sid: object, issued: float) -> bool:
        """Whether a session is signed out: its id revoked, or issued before a
        time the list could not be trusted."""
        with self._lock:
            return sid in self._ids or issued < self._before

    def __contains__(self, sid: object) -> bool:
        with self._lock:
            return sid in self._ids

    def revoke(self, sid: str, expires: float) -> None:
        with self._lock:
            now = self._clock()
            self._ids = {k: v for k, v in self._ids.items() if v > now}
            self._ids[sid] = expires
            saved = self._save()
        if not saved:
            message = N_(
                "a sign-out could not be saved to {file}: it holds until the table "
                "restarts; after that every phone signed in before must sign in again"
            ).format(file=REVOKED_FILE)
            log.error("%s", message)
            self._report(message)

    def _save(self) -> bool:
        if self._path is None:
            return True
        return write_atomically(self._path, {"before": self._before, "revoked": self._ids})


def _say_lost(message: str, saved: bool, report: Callable[[str], None]) -> None:
    """Log and report a saved file that could not be read (and, unless ``saved``, not written)."""
    if not saved:
        message += "; " + N_("and it cannot be written either: check the data folder")
    log.error("%s", message)
    report(message)


def _read_saved(path: Path, parse: Callable[[Any], Any], fail: Callable[[str], None], damaged: str) -> Any:
    """What ``parse`` makes of the JSON file at ``path``; None if there is none yet, or,
    after telling ``fail`` why, if it cannot be read or is ``damaged``."""
    try:
        return parse(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except OSError as exc:
        fail(N_("cannot be read ({reason})").format(reason=exc.strerror or exc))
    except ValueError:
        fail(damaged)
    return None


def _revoked_entries(data: Any) -> tuple[float, dict[str, float]]:
    """The cut-off time and the revoked ids in the file's JSON; ValueError if
    it is not such a list (a plain mapping of ids is an older table's)."""
    if isinstance(data, dict) and isinstance(data.get("revoked"), dict):
        before, ids = data.get("before", 0.0), data["revoked"]
    elif isinstance(data, dict):
        before, ids = 0.0, data
    else:
        raise ValueError("not a list of sessions")
    if isinstance(before, bool) or not isinstance(before, int | float):
        raise ValueError("no cut-off time")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in ids.values()):
        raise ValueError("an entry is not a time")
    return float(before), {str(k): float(v) for k, v in ids.items()}


def _saved_limits(data: Any) -> dict[str, Any]:
    """The saved counts in the file's JSON; ValueError if it is not such a file
    (negative ages or a budget beyond reason included)."""

    def number(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError("not a number")
        return float(value)

    def ages(value: Any) -> list[float]:
        if not isinstance(value, list):
            raise ValueError("not a list of ages")
        found = [number(age) for age in value]
        if any(age < 0 for age in found):
            raise ValueError("an age before it was saved")
        return found

    def by_key(value: Any) -> dict[str, list[float]]:
        if not isinstance(value, dict):
            raise ValueError("not a mapping")
        found = {str(key): ages(times) for key, times in value.items()}
        return {key: times for key, times in found.items() if times}

    if not isinstance(data, dict) or data.get("version") != 1:
        raise ValueError("not a count of wrong PINs")
    state = {
        "saved": number(data["saved"]) if "saved" in data else None,
        "tokens": number(data.get("tokens")),
        "refilled": ages([data.get("refilled")])[0],
        "table": ages(data.get("table")),
        "free": ages(data.get("free")),
        "windows": by_key(data.get("windows")),
        "daily": by_key(data.get("daily")),
    }
    if state["saved"] is None or state["tokens"] < 0:
        raise ValueError("no time saved or a budget below nothing")
    return state


def write_atomically(path: Path, data: Any) -> bool:
    """Write ``data`` as JSON in place of ``path`` (mode 0600) so that a power
    cut leaves the old file or the new, never half of one. On failure, leave an
    empty file in its place, which the next start reads as damage (failing
    closed), and no temporary file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _sync_folder(path.parent)
        return True
    except OSError:
        for cleanup in (lambda: tmp.unlink(missing_ok=True), lambda: _empty_in_place(path)):
            try:
                cleanup()
            except OSError:
                pass
        return False


def _sync_folder(folder: Path) -> None:
    # The rename itself outlives a power cut only once the folder is on disk.
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _empty_in_place(path: Path) -> None:
    # Truncating needs no free space, unlike writing the file.
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))


def _limiter() -> AttemptLimiter:
    return current_app.extensions["tablepi.limiter"]


def _client() -> str:
    # The table answers the LAN directly; no proxy headers are trusted.
    return request.remote_addr or "unknown"


def _pin() -> str:
    return str(current_app.extensions["tablepi"].pin)


def pin_tag() -> str:
    """What a session (or an invitation) remembers of the table's PIN: not the
    PIN, but a keyed digest of it, so a new PIN signs every phone out."""
    key = current_app.config["SECRET_KEY"]
    if isinstance(key, str):
        key = key.encode()
    return hmac.new(key, _pin().encode(), hashlib.sha256).hexdigest()


def _pin_matches(candidate: object) -> bool:
    if not isinstance(candidate, str):
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "replace"), _pin().encode())


def _too_many(retry: float) -> Response:
    seconds = max(1, math.ceil(retry))
    return error_response(
        429,
        N_("too many wrong PINs; try again in {seconds} s").format(seconds=seconds),
        rule="pin-limit",
        Retry_After=str(seconds),
    )


def signed_in() -> bool:
    """Whether this request carries a session signed in with the table's PIN."""
    tag = session.get("pin")
    if not (isinstance(tag, str) and hmac.compare_digest(tag, pin_tag())):
        return False
    sid, issued = session.get("sid"), session.get("at")
    if not isinstance(sid, str) or isinstance(issued, bool) or not isinstance(issued, int | float):
        return False
    if not 0 <= now() - issued < _session_seconds():
        return False
    return not _revoked().refuses(sid, float(issued))


def now() -> float:
    """The wall clock sessions are dated by (tests move it)."""
    return time.time()


def _session_seconds() -> float:
    return float(current_app.config.get("SESSION_SECONDS", SESSION_SECONDS))


def _revoked() -> RevokedSessions:
    return current_app.extensions["tablepi.revoked"]


def _device() -> str | None:
    """The device id a sign-in put in this browser's signed cookie, or None.
    It stays after sign-out: it marks a phone that knew the PIN, not a session."""
    device = session.get("device")
    return device if isinstance(device, str) and device else None


def _check(candidate: object) -> Response | None:
    """None when ``candidate`` is the PIN; otherwise the refusal (403, or 429
    once the client or the table has had too many wrong guesses)."""
    limiter = _limiter()
    client, device = _client(), _device()
    retry = limiter.acquire(client, device)
    if retry > 0:
        return _too_many(retry)
    if _pin_matches(candidate):
        limiter.succeeded(client, device)
        return None
    limiter.failed(client, device)
    return error_response(403, N_("wrong PIN"), rule="pin")


def check_pin() -> Response | None:
    """None when this request may change the table; otherwise the error answer
    (403 without a valid session or PIN, 429 after too many wrong PINs)."""
    header = request.headers.get(PIN_HEADER)
    if header is None:
        if signed_in():
            return None
        return error_response(403, N_("sign in with the table's PIN first"), rule="pin")
    return _check(header.strip())


def check_json_change(what: str = N_("the command")) -> Response | None:
    """``check_pin``, then that the body is JSON: a cross-site HTML form cannot
    send that type, so a page elsewhere cannot change the table for a signed-in guest."""
    refused = check_pin()
    if refused is None and not request.is_json:
        refused = error_response(
            400, N_("send {what} as JSON (Content-Type: application/json)").format(what=what), rule="request"
        )
    return refused


@bp.post("/api/login")
def login():
    body = json_body()  # None unless sent as application/json
    if not isinstance(body, dict) or not isinstance(body.get("pin"), str):
        return error_response(400, N_('send {"pin": "123456"} as JSON'), rule="request")
    refused = _check(body["pin"].strip())
    if refused is not None:
        return refused
    start_session()
    return jsonify({"signed_in": True})


def start_session() -> None:
    """Sign this browser in for ``SESSION_SECONDS``, keeping its device id (or
    giving it one)."""
    device = _device() or secrets.token_urlsafe(12)
    session.clear()
    session.permanent = True
    session["device"] = device
    session["pin"] = pin_tag()
    session["sid"] = secrets.token_urlsafe(16)
    session["at"] = now()


@bp.post("/api/logout")
def logout():
    sid, issued = session.get("sid"), session.get("at")
    if isinstance(sid, str) and isinstance(issued, int | float):
        # The cookie may live on in a copy; the table itself forgets it.
        _revoked().revoke(sid, float(issued) + _session_seconds())
    device = _device()
    session.clear()
    if device is not None:
        session["device"] = device
    return jsonify({"signed_in": False})


@bp.get("/api/session")
def session_info():
    return jsonify({"signed_in": signed_in()})
