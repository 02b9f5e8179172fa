"""TablePi web: the Flask application that mirrors the table to phones and a TV.

``create_app(service)`` builds the app around a running ``Service``; the app
keeps no globals and reaches the service through ``current_app``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, current_app

# Requests are small JSON commands; anything bigger is a mistake or an attack.
MAX_REQUEST_BYTES = 64 * 1024

DEFAULTS: dict[str, Any] = {
    "SSE_HEARTBEAT": 15.0,  # seconds between comment lines on an idle event stream
    "SSE_QUEUE": 1000,  # events a slow viewer may fall behind before it gets "missed"
    "SSE_MAX_STREAMS": 56,  # open event streams at once (web.server sizes this to its threads)
    "SSE_PER_CLIENT": 6,  # open event streams per client address (a browser opens at most 6)
    "SSE_TV_SLOTS": 1,  # streams kept for the TV scoreboard (/tv), whoever holds the rest
    "PIN_ATTEMPTS": 5,  # wrong PINs allowed per client ...
    "PIN_WINDOW": 60.0,  # ... in this many seconds
    "PIN_TABLE_ATTEMPTS": 10,  # wrong PINs from never-signed-in clients together, at once ...
    "PIN_TABLE_REFILL": 60.0,  # ... then one more every this many seconds
    "SESSION_SECONDS": 24 * 3600,  # a sign-in lasts a day of play at most
    "MAX_CONTENT_LENGTH": MAX_REQUEST_BYTES,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Strict",
    # The table serves plain HTTP on the local network, so a Secure cookie would never come back.
    "SESSION_COOKIE_SECURE": False,
    "SESSION_COOKIE_NAME": "tablepi_session",
    "PERMANENT_SESSION_LIFETIME": 24 * 3600,
    # The cookie's lifetime counts from sign-in, not from the last page load.
    "SESSION_REFRESH_EACH_REQUEST": False,
}


def create_app(service: Any, config: dict[str, Any] | None = None) -> Flask:
    """The web app for ``service`` (a ``tablepi.service.Service``).

    ``config`` overrides Flask settings and the ``DEFAULTS`` above (tests
    shorten ``SSE_HEARTBEAT``, for instance).
    """
    from web import (
        api,
        auth,
        device,
        errors,
        events,
        guard,
        health,
        invites,
        language,
        pace,
        pages,
        stats,
        tvsettings,
    )

    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config["SECRET_KEY"] = _secret_key(getattr(service, "data_dir", None))
    # Names the table answers to besides its own (web.guard), e.g. a name the router gives it.
    names = os.environ.get("TABLEPI_HOSTS", "").split(",")
    app.config["ALLOWED_HOSTS"] = [name.strip() for name in names if name.strip()]
    app.config.update(config or {})
    app.debug = False
    app.json.sort_keys = False
    app.extensions["tablepi"] = service
    app.extensions["tablepi.limiter"] = auth.AttemptLimiter(
        app.config["PIN_ATTEMPTS"],
        app.config["PIN_WINDOW"],
        table_attempts=app.config["PIN_TABLE_ATTEMPTS"],
        table_refill=app.config["PIN_TABLE_REFILL"],
        data_dir=getattr(service, "data_dir", None),
        report=getattr(service, "report_problem", None),
    )
    app.extensions["tablepi.revoked"] = auth.RevokedSessions(
        getattr(service, "data_dir", None), report=getattr(service, "report_problem", None)
    )
    app.extensions["tablepi.invites"] = invites.Invites()
    app.extensions["tablepi.oled"] = device.OledCache()
    app.extensions["tablepi.streams"] = events.StreamCount()
    app.extensions["tablepi.encoded"] = events.EncodedEvents()

    guard.register(app)
    language.register(app)
    pace.register(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(auth.bp)
    app.register_blueprint(invites.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(device.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(stats.bp)
    app.register_blueprint(tvsettings.bp)
    errors.register(app)
    return app


def get_service() -> Any:
    """The service of the app handling the current request."""
    return current_app.extensions["tablepi"]


def _secret_key(data_dir: Path | str | None) -> bytes:
    """The key signing session cookies, kept in the data folder so that a
    signed-in phone stays signed in across a restart. Without a usable data
    folder, a fresh random key (sessions then end with the process)."""
    if data_dir is None:
        return secrets.token_bytes(32)
    path = Path(data_dir) / "web-secret.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    except OSError:
        return secrets.token_bytes(32)
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        pass
    return key


__all__ = ["DEFAULTS", "create_app", "get_service"]
