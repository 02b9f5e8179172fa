"""``GET /healthz``: whether the table is well, for anyone; the details (the
venue's broker, the table's id, folders, problems) for a player with the PIN
or for the table's own computer only, since they help a guest plan an attack
and a player at the table needs no more than ok or not ok."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from web import get_service
from web.auth import PIN_HEADER, check_pin

bp = Blueprint("health", __name__)

DETAILS_HOW = "send the table's PIN (X-Table-Pin) or ask from the table's own computer for the details"


def own_computer() -> bool:
    """Whether the request comes from the table's own computer. No proxy
    headers are trusted, so the loopback address means this very machine."""
    return request.remote_addr in ("127.0.0.1", "::1")


@bp.get("/healthz")
def healthz() -> Response | tuple[Response, int]:
    if own_computer():
        details = True
    elif request.headers.get(PIN_HEADER) is not None:
        refused = check_pin()  # a wrong PIN here is a guess like any other
        if refused is not None:
            return refused
        details = True
    else:
        details = check_pin() is None  # a signed-in phone; no guess spent
    health = get_service().health()
    status = 200 if health.get("ok") else 503
    if details:
        return jsonify(health), status
    store = health.get("store")
    public = {
        "ok": bool(health.get("ok")),
        "store": {"ok": bool(store.get("ok", True)) if isinstance(store, dict) else True},
        "details": DETAILS_HOW,
    }
    return jsonify(public), status
