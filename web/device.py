"""The device API behind the /device page: the OLED as an image, and the
simulated buttons, dice roll and kept dice.

While the danger coin is on the table's display, the image served here is the
screen under it: the one it covered, and what the controller goes on drawing
under it (the running timer), so the image and its version change just as
they would without a flip: nothing a watcher can fetch shows the coin or
even that it was flipped. The PIN is masked on the image (the display draws
a mirror copy without it), and the image itself is served only to a phone
that holds the PIN.

In simulation /device is the table itself: ``?view=table`` (and
``/api/device/screen``, its version) give a player holding the PIN the screen
as the OLED shows it, coin included; a real table's screen is on the table.

Every route here needs the PIN, in simulation too: a simulated button press
changes the game exactly as a real one does.
"""

from __future__ import annotations

import io
import threading
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from PIL import Image

from tablepi.i18n import N_
from tablepi.service import Busy
from tablepi.store import StoreError
from web import get_service
from web.auth import check_json_change, check_pin
from web.body import json_body
from web.errors import error_response

bp = Blueprint("device", __name__)

BUTTONS = ("A", "B", "C")
MAX_DICE = 5


class OledCache:
    """The last display image that held no secret, with a version of our own
    that counts distinct images served (not the display's redraws, whose count
    would betray a coin drawn in between)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.png: bytes | None = None
        self.version = 0
        self._seen: int | None = None

    def current(self, display: Any) -> tuple[bytes, int]:
        with self._lock:
            if display.version != self._seen:
                # The version and the image under any secret, taken together:
                # the coin itself is never in it, and what is drawn under the
                # coin (the running timer) goes on changing as it would.
                seen, png = display.public_png()
                if png is not None:
                    self._seen = seen
                    if png != self.png:
                        self.png = png
                        self.version += 1
            if self.png is None:
                # The coin was up before any image was served: a blank screen
                # of the display's size, never the coin itself.
                self.png = _blank_png(display)
                self.version += 1
            return self.png, self.version


class TableScreenCache:
    """The simulated table's own screen (danger coin included), with a version
    that counts distinct images, so a player's /device fetches only changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.png = b""
        self.version = 0
        self._seen: int | None = None

    def current(self, display: Any) -> tuple[bytes, int]:
        with self._lock:
            if display.version != self._seen:
                self._seen, png = display.table_png()
                if png != self.png:
                    self.png = png
                    self.version += 1
            return self.png, self.version


def _table_screen() -> TableScreenCache:
    return current_app.extensions.setdefault("tablepi.table_screen", TableScreenCache())


def _blank_png(display: Any) -> bytes:
    size = getattr(getattr(display, "device", None), "size", (128, 64))
    buf = io.BytesIO()
    Image.new("L", size, 0).save(buf, format="PNG")
    return buf.getvalue()


def _oled() -> OledCache:
    return current_app.extensions["tablepi.oled"]


@bp.before_request
def _check_device_access() -> Response | None:
    """Presses, rolls and kept dice change the game, and the screen's image
    may show what only players should see, so all of it needs the PIN. A POST
    must be JSON, which an HTML form on another site cannot send."""
    if request.endpoint == "device.info":
        return None  # the display's version number only, which any viewer's event stream carries too
    return check_json_change(N_("the request")) if request.method == "POST" else check_pin()


def _json_object() -> dict[str, Any] | Response:
    body = json_body()
    if body is None and not request.get_data(cache=True):
        return {}
    if not isinstance(body, dict):
        return error_response(400, N_("send a JSON object"), rule="request")
    return body


def _busy(exc: Exception) -> Response:
    return error_response(429, str(exc), rule="device-busy", Retry_After="1")


@bp.get("/api/device")
def info():
    service = get_service()
    _, version = _oled().current(service.display)
    return jsonify(
        {
            "simulated": bool(service.simulated),
            "display": {"version": version},
            "buttons": list(BUTTONS) if service.simulated else [],
            "kept": list(getattr(service, "kept", [])),
        }
    )


@bp.get("/api/device/screen")
def screen():
    """The simulated table's own screen version (it changes with a coin too),
    for a player's /device, which is the table in simulation."""
    service = get_service()
    if not service.simulated:
        return error_response(404, N_("a real table's screen is on the table"), rule="device")
    return jsonify({"version": _table_screen().current(service.display)[1]})


@bp.get("/api/device/oled.png")
def oled():
    service = get_service()
    if request.args.get("view") == "table":
        # In simulation /device is the table: a player holding the PIN sees
        # the screen as the OLED shows it, danger coin included.
        if not service.simulated:
            return error_response(404, N_("a real table's screen is on the table"), rule="device")
        png, version = _table_screen().current(service.display)
        return Response(
            png,
            mimetype="image/png",
            headers={"Cache-Control": "no-store", "X-Display-Version": str(version)},
        )
    png, version = _oled().current(service.display)
    return Response(
        png,
        mimetype="image/png",
        headers={"Cache-Control": "no-store", "X-Display-Version": str(version)},
    )


@bp.post("/api/device/press")
def press():
    body = _json_object()
    if isinstance(body, Response):
        return body
    unknown = set(body) - {"button", "long"}
    if unknown:
        return error_response(
            400, N_("unknown field(s): {list}").format(list=", ".join(sorted(map(str, unknown)))[:100])
        )
    button = body.get("button")
    long = body.get("long", False)
    if button not in BUTTONS:
        return error_response(400, N_('button must be "A", "B" or "C"'))
    if not isinstance(long, bool):
        return error_response(400, N_("long must be true or false"))
    try:
        get_service().press(button, long=long)
    except Busy as exc:
        return _busy(exc)
    except StoreError as exc:
        return error_response(503, str(exc), rule="store")
    except RuntimeError as exc:
        return error_response(409, str(exc), rule="device")
    return jsonify({"pressed": button, "long": long})


@bp.post("/api/device/roll")
def roll():
    try:
        get_service().roll()
    except RuntimeError as exc:
        return error_response(409, str(exc), rule="device")
    return jsonify({"rolled": True})


@bp.post("/api/device/keep")
def keep():
    body = _json_object()
    if isinstance(body, Response):
        return body
    if set(body) != {"dice"}:
        return error_response(400, N_('send {"dice": [indices of the dice to keep]}'))
    dice = body["dice"]
    if (
        not isinstance(dice, list)
        or len(dice) > MAX_DICE
        or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < MAX_DICE for i in dice)
        or len(set(dice)) != len(dice)
    ):
        return error_response(400, N_("dice must list distinct indices 0..{n}").format(n=MAX_DICE - 1))
    try:
        service = get_service()
        service.set_kept(sorted(dice))
    except (RuntimeError, ValueError) as exc:
        return error_response(409, str(exc), rule="device")
    # Every phone and /device shows the same dice set aside.
    service.table.publish("kept", {"dice": sorted(dice)})
    return jsonify({"kept": sorted(dice)})
