"""The HTML pages: phone mirror, TV scoreboard, device panel, set-up.

Pages are rendered on the server from the table's public state. Live views
(`/` and `/tv`) wrap their changing part in a region that a few lines of
JavaScript re-fetch from `/part/<view>` whenever the event stream says the
state changed, so the markup has exactly one source: the Jinja templates.
Everything the pages show comes from ``table.public_state()``, which holds no
secret; the pages add none.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

import segno
from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import format_datetime, gettext
from markupsafe import Markup

from tablepi.games.names import NAME_CHARS
from tablepi.words import action_words, command_words, keep_words, plain
from web import tvsettings
from web.language import tr
from web.marks import KIND_NAMES, dice_marks
from web.stats import tv_summary

bp = Blueprint("pages", __name__)
bp.add_app_template_filter(plain, "plain")
# The words for players, in the reader's language.
bp.add_app_template_filter(lambda action: tr(action_words(action)), "action_words")
bp.add_app_template_filter(lambda entry: tr(command_words(entry)), "command_words")
bp.add_app_template_filter(lambda keep: tr(keep_words(keep)), "keep_words")

LIVE_VIEWS = ("phone", "tv")


def describe(public: dict[str, Any]) -> dict[str, Any]:
    """What every template needs to know about the table, whatever the game."""
    game = public.get("game") or None
    if not game:
        return {"kind": None, "name": None, "finished": False, "id": None, "seq": 0, "s": {}}
    kind = game.get("kind")
    state = game.get("state") or {}
    view = {
        "kind": kind if kind in KIND_NAMES else None,
        "name": KIND_NAMES.get(kind, kind),
        "finished": bool(game.get("finished")),
        "id": game.get("id"),
        "seq": public.get("seq", 0),
        "s": state,
    }
    if kind == "outer_space":
        view["timer_left"] = timer_left(state.get("timer") or {})
    elif kind == "beam_me_up":
        view["boards"] = [board_rows(p) for p in state.get("players", [])]
        view["dice"] = dice_marks(state.get("dice"), state.get("kept") or [])
        view["manual_roll"] = _typed_by_hand(game, state)
        view["refused"] = refused_view(game.get("refused_reading"))
    return view


def refused_view(reading: dict[str, Any] | None) -> dict[str, Any] | None:
    """A refused camera reading as the pages draw it: each die seen, how sure
    the reader was, and whether it is one of the dice set aside."""
    if not reading:
        return None
    from tablepi.controllers.beam_me_up import kept_marks

    values = [int(d.get("value", 0)) for d in reading.get("dice") or []]
    marks = kept_marks(values, [int(v) for v in reading.get("kept") or []])
    dice = [
        {"value": v, "sure": round(100 * float(d.get("confidence", 0))), "kept": i in marks}
        for i, (v, d) in enumerate(zip(values, reading.get("dice") or [], strict=True))
    ]
    return {"dice": dice, "problem": str(reading.get("problem") or ""), "seen": " ".join(map(str, values))}


def _typed_by_hand(game: dict[str, Any], state: dict[str, Any]) -> bool:
    """Whether the roll on show was typed in by hand. The table reports the
    flag for its last command only, so the pages remember it for the roll
    until the next one (a remembered mark is only lost by a restart)."""
    if not state.get("dice"):
        return False
    key = (game.get("id"), state.get("turn", {}).get("index"), state.get("roll"), tuple(state["dice"]))
    marks = current_app.extensions.setdefault("tablepi.pages.manual_rolls", {})
    last = game.get("last") or {}
    if last.get("type") == "roll":
        marks.clear()  # only the roll on show matters
        marks[key] = bool(last.get("manual"))
    return marks.get(key, False)


BMU_COLUMNS = ("1", "2", "3", "4", "5", "6", "straight")
SPECIAL_CLASSES = {"rockets": "rocket", "pink_stars": "pink", "blue_stars": "blue"}


def board_rows(player: dict[str, Any]) -> dict[str, Any]:
    """One Beam Me Up board as rows of squares, top row first, for drawing."""
    layout = player.get("layout") or {}
    top = int(layout.get("top_row", 7))
    space = int(layout.get("space_row", 6))
    specials: dict[tuple[str, int], str] = {}
    for key, cls in SPECIAL_CLASSES.items():
        for square in layout.get(key, []):
            specials[(str(square.get("column")), int(square.get("row", -1)))] = cls
    counters = player.get("counters") or {}
    # Each square's tooltip, in the reader's language: looked up once per board, not per square.
    where = gettext("column %(column)s, row %(row)s")
    labels = {"straight": gettext("S")}
    words = {"rocket": gettext("rocket"), "pink": gettext("pink star"), "blue": gettext("blue star")}

    def title(column: str, row: int) -> str:
        said = where % {"column": labels.get(column, column), "row": row}
        special = specials.get((column, row))
        return f"{said}: {words[special]}" if special else said

    rows = []
    for row in range(top, -1, -1):
        rows.append(
            {
                "row": row,
                "space": row >= space,
                "squares": [
                    {
                        "column": column,
                        "special": specials.get((column, row)),
                        "counter": counters.get(column) == row,
                    }
                    for column in BMU_COLUMNS
                ],
                "titles": [title(column, row) for column in BMU_COLUMNS],
            }
        )
    return {"rows": rows, "space_row": space, "top_row": top, "layout_name": layout.get("name", "")}


def beam_layouts() -> dict[str, dict[str, Any]]:
    """The printed Beam Me Up boards (A..D) as layout dicts, for the set-up page."""
    from tablepi.games.beam_me_up.board import default_layouts

    return {key: layout.to_dict() for key, layout in default_layouts().items()}


def timer_left(timer: dict[str, Any]) -> float:
    """Seconds left on a mission timer when the state was read (the table
    stamps the view with its own clock); the page counts down from there."""
    remaining = timer.get("remaining", timer.get("duration", 0))
    return max(0.0, float(remaining)) if isinstance(remaining, int | float) else 0.0


@bp.app_template_global()
def fmt_seconds(seconds: float) -> str:
    """Seconds as the countdown shows them: "42", or "1:30" from a minute up."""
    whole = max(0, math.ceil(seconds - 1e-6))
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else str(whole)


def _service() -> Any:
    return current_app.extensions["tablepi"]


def _public_state() -> dict[str, Any]:
    return printable(_service().table.public_state())


def printable(value: Any) -> Any:
    """``value`` with every string made writable as UTF-8: text kept from
    before the table refused lone surrogates must not break a page."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value


def _simulated() -> bool:
    return bool(getattr(_service(), "simulated", False))


def _context(view: str) -> dict[str, Any]:
    state = _public_state()
    g = describe(state)
    if g["kind"] == "beam_me_up":
        # A seat played by the table: what it does next, or why it waits.
        player = getattr(_service(), "table_player", None)
        g["table_player"] = player.status(state) if player is not None else None
    if view == "phone" and g["kind"] == "beam_me_up" and not g.get("table_player"):
        from tablepi.games.beam_me_up.advice import hint

        # Worked out for every phone; each phone shows it only for the players it has hints on for.
        g["hint"] = hint(g["s"])
    tv = tvsettings.load(getattr(_service(), "data_dir", None))
    if view == "tv" and tv["odds"] and g["kind"] == "beam_me_up":
        from tablepi.games.beam_me_up.advice import hint

        g["odds"] = hint(g["s"], count=1)
    if view == "tv" and g["kind"] == "beam_me_up" and g["s"].get("winner") and g["id"] is not None:
        # The end of the game: its dice and everyone's luck, short.
        g["end"] = tv_summary(int(g["id"]))
    return {"view": view, "public": state, "g": g, "simulated": _simulated(), "tv": tv}


def qr_svg(url: str) -> Markup:
    """An inline SVG QR code for ``url`` (dark on light, for any screen)."""
    qr = segno.make(url, error="m")
    svg = qr.svg_inline(scale=8, dark="#000", light="#fff", border=2, omitsize=True)
    return Markup(svg)


LOOPBACK_HOSTS = ("localhost", "127.", "[::1]", "::1")


def phone_url() -> str:
    """The address phones should open: the one the TV used, unless the TV runs
    on the table itself (localhost), when the table's network address is the
    one phones can reach."""
    host = request.host.lower()
    if host.startswith(LOOPBACK_HOSTS):
        address = getattr(_service(), "address", "") or ""
        if address and not address.split("//", 1)[-1].startswith(LOOPBACK_HOSTS):
            return address
    return request.host_url


@bp.app_template_filter("tojson_attr")
def _tojson_attr(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


@bp.route("/")
def phone() -> str:
    return render_template("phone.html", **_context("phone"))


@bp.route("/tv")
def tv() -> str:
    url = phone_url()
    return render_template("tv.html", qr=qr_svg(url), phone_url=url, **_context("tv"))


@bp.route("/part/<view>")
def part(view: str) -> str:
    if view not in LIVE_VIEWS:
        abort(404)
    extra = {"qr": qr_svg(phone_url()), "phone_url": phone_url()} if view == "tv" else {}
    return render_template(f"parts/{view}.html", **extra, **_context(view))


@bp.route("/device")
def device() -> str:
    from tablepi.controllers import button_actions

    public = _public_state()
    kind = (public.get("game") or {}).get("kind") or "none"
    buttons = getattr(getattr(_service(), "config", None), "buttons", None)
    hold = float(getattr(buttons, "hold_time", 1.5))
    return render_template(
        "device.html",
        simulated=_simulated(),
        public=public,
        kind=kind,
        actions=button_actions(kind),
        hold_seconds=hold,
    )


def _local_pin() -> str | None:
    """The PIN, for a browser on the table's own computer only (in simulation
    there is no OLED to read it from). The table trusts no proxy headers, so a
    loopback address means this very machine; the Host check keeps other
    sites' pages from reading it through a rebound name."""
    address = request.remote_addr or ""
    if address == "::1" or address.startswith("127."):
        pin = getattr(_service(), "pin", None)
        return str(pin) if pin else None
    return None


RESUMABLE_SHOWN = 8


def resumable_games() -> list[dict[str, Any]]:
    """The latest abandoned games, newest first, as the set-up page lists them."""

    store = getattr(_service().table, "store", None)
    try:
        games = store.games() if store is not None else []
    except Exception:  # noqa: BLE001 - a history that cannot be read hides the list, not the page
        return []
    shown = []
    for record in reversed(games):
        if record.status != "abandoned":
            continue
        players = record.settings.get("players", []) if isinstance(record.settings, dict) else []
        names = [
            (
                gettext("%(name)s (table)", name=p.get("name", "?"))
                if p.get("table") is True
                else p.get("name", "?")
            )
            if isinstance(p, dict)
            else str(p)
            for p in players
        ]
        shown.append(
            {
                "id": record.id,
                "name": KIND_NAMES.get(record.kind, record.kind),
                "players": printable(", ".join(map(str, names))),
                "moves": record.commands,
                "left": _short_when(record.ended_at or record.created_at),
            }
        )
        if len(shown) == RESUMABLE_SHOWN:
            break
    return shown


def _seat_name(player: dict[str, Any]) -> str:
    return gettext("%(name)s (table)", name=player.get("name", "?"))


def _short_when(stamp: float) -> str:
    """Day, month and time, as the reader writes them ("06 Dec 09:15", "06.12. 09:15")."""
    import time

    from web.language import current

    if current() == "en":
        return time.strftime("%d %b %H:%M", time.localtime(stamp))
    return format_datetime(datetime.fromtimestamp(stamp), "dd.MM. HH:mm")


@bp.route("/setup")
def setup() -> str:
    state = _public_state()
    return render_template(
        "setup.html",
        local_pin=_local_pin(),
        resumable=resumable_games(),
        public=state,
        g=describe(state),
        layouts=beam_layouts(),
        kinds=KIND_NAMES,
        tv=tvsettings.load(getattr(_service(), "data_dir", None)),
        name_chars=NAME_CHARS,
    )
