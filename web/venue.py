"""The venue board: every table of the venue on one page, read-only, no PIN.

``create_board_app(board)`` builds a Flask app around a ``tablepi.venue.Board``
(which a ``BoardListener`` fills from the broker); `tablepi venue` serves it
with the table's own server (``web.server.make_server``).

    GET /              the board: one card per table (board.js draws them)
    GET /api/tables    every table as JSON
    GET /api/events    Server-Sent Events: "tables" with every table first,
                       then "tables" with only those changed (and "removed")
    GET /healthz       the board's link to the broker; 200 when connected

A stream waits on the board's version and sends what changed since the last
message, so a page that falls behind gets the latest of each table, never a
backlog.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from web.events import StreamCount, format_event

bp = Blueprint("venue", __name__)

BOARD_DEFAULTS: dict[str, Any] = {
    "SSE_HEARTBEAT": 15.0,
    "SSE_MAX_STREAMS": 56,
    "SSE_PER_CLIENT": 6,
    "MAX_CONTENT_LENGTH": 16 * 1024,
}


class _Stream:
    """One open stream, as ``StreamCount`` tracks it (closed all at once when the server stops)."""

    def __init__(self, board: Any) -> None:
        self.board = board
        self.closed = False

    def close(self) -> None:
        self.closed = True


def create_board_app(board: Any, config: dict[str, Any] | None = None) -> Flask:
    from web import errors, guard, language

    app = Flask(__name__)
    app.config.update(BOARD_DEFAULTS)
    names = os.environ.get("TABLEPI_HOSTS", "").split(",")
    app.config["ALLOWED_HOSTS"] = [name.strip() for name in names if name.strip()]
    app.config.update(config or {})
    app.debug = False
    app.json.sort_keys = False
    app.extensions["tablepi.board"] = board
    app.extensions["tablepi.streams"] = StreamCount()
    guard.register(app)
    # The board speaks each browser's language (else TABLEPI_LANGUAGE: the config's).
    language.register(app, blueprint=False)
    app.register_blueprint(bp)
    errors.register(app)
    return app


def _board() -> Any:
    return current_app.extensions["tablepi.board"]


@bp.get("/")
def page() -> str:
    return render_template("board.html", snapshot=_board().snapshot())


@bp.get("/api/tables")
def tables():
    response = jsonify(_board().snapshot())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz():
    health = _board().health()
    return jsonify(health), 200 if health["ok"] else 503


def stream(board: Any, heartbeat: float, handle: _Stream) -> Iterator[bytes]:
    yield b"retry: 2000\n\n"
    snapshot = board.snapshot()
    version = snapshot["version"]
    yield format_event("tables", {**snapshot, "full": True})
    last_sent = time.monotonic()
    while not handle.closed and not board.closed:
        # Woken at once by a change; at least every second, to notice a closed stream.
        changes = board.changes(version, min(heartbeat, 1.0))
        if changes is not None:
            version = changes["version"]
            yield format_event("tables", {**changes, "full": False})
            last_sent = time.monotonic()
        elif time.monotonic() - last_sent >= heartbeat:
            yield b": keep-alive\n\n"
            last_sent = time.monotonic()


@bp.get("/api/events")
def events():
    config = current_app.config
    board = _board()
    count: StreamCount = current_app.extensions["tablepi.streams"]
    client = request.remote_addr or "unknown"
    refused = count.enter(int(config["SSE_MAX_STREAMS"]), client, int(config.get("SSE_PER_CLIENT", 0)))
    if refused is not None:
        body: Iterator[bytes] = iter(
            [b"retry: 15000\n\n", format_event("tables", {**board.snapshot(), "full": True})]
        )
        return Response(body, mimetype="text/event-stream", headers={"Cache-Control": "no-cache, no-store"})
    handle = _Stream(board)
    count.track(handle)

    def body_counted() -> Iterator[bytes]:
        try:
            yield from stream(board, float(config["SSE_HEARTBEAT"]), handle)
        finally:
            count.untrack(handle)
            count.leave(client)

    return Response(
        body_counted(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"},
    )
