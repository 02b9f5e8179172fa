"""What the TV shows beyond the game, chosen on /setup for the whole table:
for now, the odds of the roll on the table for spectators (Beam Me Up).

Kept in the data folder (``tv-settings.json``) so a restart keeps it; a file
that cannot be read counts as the defaults.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from flask import Blueprint, jsonify

from tablepi.i18n import N_
from web import get_service
from web.auth import check_json_change
from web.body import json_body
from web.errors import error_response

FILE = "tv-settings.json"
DEFAULTS = {"odds": False}

bp = Blueprint("tvsettings", __name__)


def load(data_dir: Path | str | None) -> dict[str, Any]:
    """The TV settings (the defaults where none are kept or the file is unreadable)."""
    found = dict(DEFAULTS)
    if data_dir is None:
        return found
    try:
        data = json.loads((Path(data_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return found
    if isinstance(data, dict) and isinstance(data.get("odds"), bool):
        found["odds"] = data["odds"]
    return found


def _save(data_dir: Path | str, settings: dict[str, Any]) -> None:
    path = Path(data_dir) / FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(settings), encoding="utf-8")
    os.replace(temporary, path)


@bp.get("/api/tv-settings")
def current():
    return jsonify(load(getattr(get_service(), "data_dir", None)))


@bp.post("/api/tv-settings")
def change():
    refused = check_json_change(N_("the setting"))
    if refused is not None:
        return refused
    data = json_body()
    if not isinstance(data, dict) or set(data) != {"odds"} or not isinstance(data["odds"], bool):
        return error_response(400, N_('send {"odds": true} or {"odds": false}'))
    service = get_service()
    data_dir = getattr(service, "data_dir", None)
    if data_dir is None:
        return error_response(503, N_("this table keeps no settings (it has no data folder)"))
    try:
        _save(data_dir, {"odds": data["odds"]})
    except OSError as exc:
        return error_response(
            503, N_("the setting cannot be saved: {value}").format(value=exc.strerror or exc)
        )
    # The TV (and any page) redraws with the new setting.
    service.table.publish("settings", {"odds": data["odds"]})
    return jsonify({"odds": data["odds"]})
