"""The JSON API: state, commands, camera frame (health: web.health).

The whole web API at a glance (every error is ``{"error": ..., "rule": ...}``):

    GET  /healthz               service health; 200 when ok, else 503; the details with
                                the PIN or from the table's own computer (web.health)
    GET  /api/state             the table's public state
    GET  /api/events            live events (Server-Sent Events; see web.events)
    POST /api/commands          a command as JSON; needs the PIN (session or X-Table-Pin).
                                200 with the new public state; 400 malformed (see
                                web.commands); 403 no or wrong PIN; 409 illegal by the
                                rules or no game; 429 too many wrong PINs (Retry-After)
    POST /api/commands/check    a new_game command, checked but not played: 200 {"ok": true}
                                when it would start, else the error the command would get
    POST /api/table-player/continue
                                after an undo in a turn the table plays, let it play on;
                                needs the PIN; 409 when the table is not waiting for that
    GET  /api/camera.jpg        the latest camera frame with the dice read; 404 before one
    POST /api/login             {"pin": "123456"} -> a session cookie (web.auth)
    POST /api/logout
    GET  /api/session           {"signed_in": bool}
    GET  /api/device            the simulated device panel (web.device)
    GET  /api/device/oled.png   the OLED as an image, never the coin (the screen under it)
                                ?view=table: in simulation, as the OLED shows it (coin too)
    GET  /api/device/screen     in simulation, the version of that view
    POST /api/device/press      {"button": "A"|"B"|"C", "long": bool}
    POST /api/device/roll
    POST /api/device/keep       {"dice": [indices]}
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from tablepi.games.errors import RuleError
from tablepi.i18n import N_
from tablepi.store import StoreError
from tablepi.table import CommandError
from web import get_service
from web.auth import check_json_change
from web.commands import Malformed, parse
from web.errors import error_response

bp = Blueprint("api", __name__)


@bp.get("/api/state")
def state():
    response = jsonify(get_service().table.public_state())
    response.headers["Cache-Control"] = "no-store"
    return response


def _command() -> tuple[Any, Any]:
    """The table and the command posted to it, or (None, the refusal to answer with)."""
    refused = check_json_change()
    if refused is not None:
        return None, refused
    table = get_service().table
    try:
        return table, parse(request.get_data(cache=False), getattr(table, "kind", None))
    except Malformed as exc:
        return None, (jsonify(exc.to_dict()), 400)


@bp.post("/api/commands")
def commands():
    table, command = _command()
    if table is None:
        return command
    try:
        return jsonify(table.submit(command, source="web"))
    except RuleError as exc:
        return jsonify(exc.to_dict()), 409
    except StoreError as exc:
        # Not stored means not accepted: the table changed nothing.
        return error_response(503, str(exc), rule="store")
    except CommandError as exc:
        # With no game on the table a well-formed command conflicts with the
        # moment (409); with a game, the table found the command malformed (400).
        status = 409 if table.public_state().get("game") is None else 400
        return jsonify(exc.to_dict()), status


@bp.post("/api/commands/check")
def check_command():
    table, command = _command()
    if table is None:
        return command
    try:
        table.check_new_game(command)
    except RuleError as exc:
        return jsonify(exc.to_dict()), 409
    except CommandError as exc:
        return jsonify(exc.to_dict()), 400
    return jsonify({"ok": True})


@bp.get("/api/camera.jpg")
def camera():
    frame = get_service().camera_jpeg()
    if not frame:
        return error_response(404, N_("no camera frame yet"), rule="camera")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/api/table-player/continue")
def table_player_continue():
    refused = check_json_change(N_("the request"))
    if refused is not None:
        return refused
    play_on = getattr(get_service(), "play_on", None)
    if play_on is None or not play_on():
        return error_response(409, N_("the table is not waiting to play on"), rule="table-player")
    return jsonify({"playing": True})
