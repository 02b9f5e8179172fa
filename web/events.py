"""``GET /api/events``: the table's events as a Server-Sent Events stream.

Each event goes out as ``id: N / event: TYPE / data: JSON``. A reconnecting
browser sends ``Last-Event-ID`` and gets what it missed from the table's
recent history; when that history no longer reaches back far enough, or the
viewer fell so far behind that its queue overflowed, it gets a fresh "state"
event instead, so a viewer is never left showing a stale table. An idle
stream carries a comment line every ``SSE_HEARTBEAT`` seconds so proxies
keep it open; a viewer that leaves (a phone moving to another page) frees its
slot within a second, since the server asks whether the client is still there.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from tablepi.i18n import DEFAULT as DEFAULT_LANGUAGE
from tablepi.i18n import words
from web import get_service
from web.auth import signed_in
from web.health import own_computer

bp = Blueprint("events", __name__)

BUSY_RETRY_MS = 15_000
# How often an idle stream asks whether its viewer is still connected.
GONE_CHECK_SECONDS = 1.0


def format_event(type_: str, data: Any, event_id: int | None = None) -> bytes:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {type_}")
    # Compact JSON has no newlines, so one data line carries it whole.
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if raw is None:
        return None
    raw = raw.strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        return None  # unreadable: treat as a fresh viewer
    return int(raw)


def stream(
    table: Any,
    last_id: int | None,
    heartbeat: float,
    queue: int,
    display: Callable[[], int | None] | None = None,
    encoded: EncodedEvents | None = None,
    streams: StreamCount | None = None,
    gone: Callable[[], bool] | None = None,
    say: Callable[[str], str] | None = None,
) -> Iterator[bytes]:
    """The stream's messages. ``display`` gives the OLED mirror's version
    (see ``web.device``): "display" events carry that version instead of the
    display's own redraw count, and are left out when the mirrored image has
    not changed. ``gone`` says whether the viewer has disconnected; the
    stream ends soon after it does instead of at its next write. ``say``
    gives a message's words in the viewer's language (sent as "shown" beside
    the English "message"), for a viewer who reads another."""
    # Subscribe before reading history or state, so nothing published in
    # between is lost; duplicates are skipped by id below.
    encoded = encoded if encoded is not None else EncodedEvents()
    sub = table.subscribe(maxsize=queue)
    if streams is not None:
        streams.track(sub)
    try:
        # The retry hint makes browsers reconnect quickly after a restart.
        yield b"retry: 2000\n\n"
        sent = -1
        backlog = table.events_since(last_id) if last_id is not None else None
        if backlog is None:
            yield _state_event(table)
            backlog = []
        for event in backlog:
            message = _render(event, display, encoded, say)
            if message is not None:
                yield message
            sent = max(sent, event.id)
        wait = min(heartbeat, GONE_CHECK_SECONDS) if gone is not None else heartbeat
        written = checked = time.monotonic()
        while True:
            event = sub.get(timeout=wait)
            now = time.monotonic()
            if sub.closed:
                return  # the server is shutting down
            if gone is not None and now - checked >= wait:
                checked = now
                if gone():
                    return  # the viewer left
            message = None
            if event is None:
                if now - written >= heartbeat:
                    message = b": keep-alive\n\n"
            elif event.type == "missed":
                message = _state_event(table)
            elif event.id > sent:
                message = _render(event, display, encoded, say)
                sent = event.id
            if message is not None:
                written = now
                yield message
    finally:
        if streams is not None:
            streams.untrack(sub)
        sub.close()


class EncodedEvents:
    """Each event encoded once for every viewer: with fifty phones and a TV
    watching, encoding the state fifty times would cost more than the command."""

    def __init__(self, size: int = 256) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._messages: OrderedDict[int, bytes] = OrderedDict()

    def get(self, event: Any) -> bytes:
        with self._lock:
            message = self._messages.get(event.id)
        if message is None:
            message = format_event(event.type, event.data, event.id)
            with self._lock:
                self._messages[event.id] = message
                while len(self._messages) > self._size:
                    self._messages.popitem(last=False)
        return message


# Events whose "message" (sent again as "shown") or "problem" ("problem_shown") a viewer reads.
SAID_EVENTS = ("refused", "error", "camera", "busy", "reading")


def _render(
    event: Any,
    display: Callable[[], int | None] | None,
    encoded: EncodedEvents,
    say: Callable[[str], str] | None = None,
) -> bytes | None:
    """One event as a message, or None for a "display" event with nothing new to show."""
    if event.type == "display":
        version = display() if display is not None else None
        if version is None:
            return None
        return format_event(event.type, {"version": version}, event.id)
    data = event.data
    if say is not None and event.type in SAID_EVENTS and isinstance(data, dict):
        shown = {}
        if isinstance(data.get("message"), str):
            shown["shown"] = say(data["message"])
        if isinstance(data.get("problem"), str):
            shown["problem_shown"] = say(data["problem"])
        if shown:
            return format_event(event.type, {**data, **shown}, event.id)
    return encoded.get(event)


def _state_event(table: Any) -> bytes:
    # No id: the browser keeps its last real event id for the next resume.
    return format_event("state", table.public_state())


def _display_version(service: Any, oled: Any) -> Callable[[], int | None]:
    display = getattr(service, "display", None)
    last: list[int | None] = [None]

    def version() -> int | None:
        if display is None:
            return None
        current = oled.current(display)[1]
        if current == last[0]:
            return None
        last[0] = current
        return current

    return version


class StreamCount:
    """Open streams, so that viewers never take every server thread (each
    stream holds one for as long as it is open, and commands need one too),
    and their subscriptions, so that a server shutting down can end them all
    at once instead of waiting for each one's next heartbeat."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0
        self._by_client: dict[str, int] = {}
        self._subs: set[Any] = set()

    def track(self, sub: Any) -> None:
        with self._lock:
            self._subs.add(sub)

    def untrack(self, sub: Any) -> None:
        with self._lock:
            self._subs.discard(sub)

    def close_all(self) -> None:
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.close()

    def enter(self, limit: int, client: str = "", per_client: int = 0, reserved: int = 0) -> str | None:
        """Take a slot; None when taken, else why not. At most ``per_client``
        (0: any number) for one client, and the last ``reserved`` slots only
        for a caller that may use them (the TV)."""
        with self._lock:
            if self.open >= limit - reserved:
                return "the table has too many live viewers; retrying shortly"
            if per_client and self._by_client.get(client, 0) >= per_client:
                return "this device has too many live views open; close some tabs"
            self.open += 1
            self._by_client[client] = self._by_client.get(client, 0) + 1
            return None

    def leave(self, client: str = "") -> None:
        with self._lock:
            self.open -= 1
            left = self._by_client.get(client, 0) - 1
            if left > 0:
                self._by_client[client] = left
            else:
                self._by_client.pop(client, None)


def _counted(body: Iterator[bytes], count: StreamCount, client: str) -> Iterator[bytes]:
    try:
        yield from body
    finally:
        count.leave(client)


def _busy(table: Any, message: str) -> Iterator[bytes]:
    # A short answer the browser retries by itself later, with the state meanwhile.
    yield f"retry: {BUSY_RETRY_MS}\n\n".encode()
    yield _state_event(table)
    yield format_event("busy", {"message": message})


def _say() -> Callable[[str], str] | None:
    """How this viewer reads the table's messages (None: in English, as sent)."""
    from web.language import current

    lang = current()
    return None if lang == DEFAULT_LANGUAGE else words(lang).text


@bp.get("/api/events")
def events():
    config = current_app.config
    service = get_service()
    count: StreamCount = current_app.extensions["tablepi.streams"]
    client = request.remote_addr or "unknown"
    # The slots kept for the TV go to the TV's page in a browser signed in
    # with the PIN, or on the table's own computer: a guest can ask for the
    # TV's view, but not take its slot (each client still gets its own share).
    tv = request.args.get("view") == "tv" and (own_computer() or signed_in())
    refused = count.enter(
        int(config["SSE_MAX_STREAMS"]),
        client,
        int(config.get("SSE_PER_CLIENT", 0)),
        0 if tv else int(config.get("SSE_TV_SLOTS", 0)),
    )
    if refused is not None:
        body = _busy(service.table, refused)
    else:
        body = _counted(
            stream(
                service.table,
                _last_event_id(),
                float(config["SSE_HEARTBEAT"]),
                int(config["SSE_QUEUE"]),
                _display_version(service, current_app.extensions["tablepi.oled"]),
                current_app.extensions["tablepi.encoded"],
                count,
                request.environ.get("waitress.client_disconnected"),
                _say(),
            ),
            count,
            client,
        )
    return Response(
        body,
        mimetype="text/event-stream",
        headers={
            "Cache-Control": "no-cache, no-store",
            "X-Accel-Buffering": "no",
        },
    )
