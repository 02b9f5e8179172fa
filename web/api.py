"""The JSON API: health, state, commands, camera frame."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from tablepi.games.errors import RuleError
from tablepi.table import CommandError
from web import get_service
from web.auth import check_pin
from web.commands import Malformed, parse
from web.errors import error_response

bp = Blueprint("api", __name__)


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
    if not request.is_json:
        # Also keeps out cross-site HTML forms, which cannot send this type.
        return error_response(400, "send the command as JSON (Content-Type: application/json)")
    table = get_service().table
    try:
        command = parse(request.get_data(cache=False), getattr(table, "kind", None))
    except Malformed as exc:
        return jsonify(exc.to_dict()), 400
    try:
        return jsonify(table.submit(command, source="web"))
    except RuleError as exc:
        return jsonify(exc.to_dict()), 409
    except CommandError as exc:
        # With no game on the table a well-formed command conflicts with the
        # moment (409); with a game, the table found the command malformed (400).
        status = 409 if table.public_state().get("game") is None else 400
        return jsonify(exc.to_dict()), status


@bp.get("/api/camera.jpg")
def camera():
    frame = get_service().camera_jpeg()
    if not frame:
        return error_response(404, "no camera frame yet", rule="camera")
    return Response(frame, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
