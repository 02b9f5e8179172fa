"""The JSON API: health, state, commands, camera frame."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from tablepi.games.errors import RuleError
from web import get_service
from web.auth import check_pin
from web.commands import Malformed, parse
from web.errors import error_response

bp = Blueprint("api", __name__)

try:  # the table module defines CommandError once the hub is in place
    from tablepi.table import CommandError
except ImportError:  # pragma: no cover

    class CommandError(ValueError):  # type: ignore[no-redef]
        pass


@bp.get("/healthz")
def healthz():
    health = get_service().health()
    return jsonify(health), 200 if health.get("ok") else 503


@bp.get("/api/state")
def state():
    response = jsonify(get_service().table.public_state())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/api/commands")
def commands():
    refused = check_pin()
    if refused is not None:
        return refused
    try:
        command = parse(request.get_data(cache=False))
    except Malformed as exc:
        return jsonify(exc.to_dict()), 400
    table = get_service().table
    try:
        return jsonify(table.submit(command, source="web"))
    except RuleError as exc:
        return jsonify(exc.to_dict()), 409
    except CommandError as exc:
        # The schema has passed; what the table still refuses is a command that
        # does not fit the moment (no game, game over): a conflict, not a typo.
        body = exc.to_dict() if hasattr(exc, "to_dict") else {"error": str(exc), "rule": "command"}
        return jsonify(body), 409


@bp.get("/api/camera.jpg")
def camera():
    frame = get_service().camera_jpeg()
    if not frame:
        return error_response(404, "no camera frame yet", rule="camera")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
