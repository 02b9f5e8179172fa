"""/stats: are our dice fair, and who was lucky? And the games played.

Everything here is read from the store's SQL sums (``tablepi.history``), never
by replaying games, so the page stays quick with a table's whole history.
It shows only what every player saw at the table: dice, names, winners and
lengths. The coin is never stored, and a Space Beans secret collection is
stored as a count only, so neither can reach these pages.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import format_datetime, gettext, ngettext

from tablepi.history import BEAM_ME_UP, UnknownPlayer, dice_summary, find_player, parse_since
from tablepi.i18n import DEFAULT, N_
from tablepi.stats import SIGNIFICANT
from tablepi.store import PlayedGame, Store
from web.charts import COMPACT, face_chart
from web.language import current, decimal
from web.marks import KIND_NAMES, dice_marks

bp = Blueprint("stats", __name__)

GAMES_PER_PAGE = 25
# A long game's rolls come a page at a time: a whole evening's is hundreds of KB.
ROLLS_PER_PAGE = 100
MAX_GAME_ID = 2**63 - 1  # SQLite's largest integer
STATUS_WORDS = {
    "playing": N_("playing now"),
    "abandoned": N_("not finished"),
    "finished": N_("no winner"),
    "imported": N_("imported"),
}
ORIGIN_WORDS = {"camera": N_("camera"), "phone": N_("phone"), "manual": N_("by hand"), "table": N_("table")}


def _store() -> Store:
    return current_app.extensions["tablepi"].table.store


def when(stamp: float) -> str:
    """A date and time as the reader writes them ("06 Dec 2026 09:15", "06.12.26 09:15")."""
    moment = datetime.fromtimestamp(stamp)
    if current() == DEFAULT:
        return moment.strftime("%d %b %Y %H:%M")
    return format_datetime(moment, "dd.MM.yy HH:mm" if current() == "de" else "short")


def length_words(game: PlayedGame) -> str:
    """How long a game ran (from its first move to its last) and how many moves it took."""
    parts = []
    if game.last_move is not None and game.moves:
        minutes = round(max(0.0, game.last_move - game.started) / 60)
        if minutes >= 60:
            parts.append(f"{minutes // 60} h {minutes % 60:02d} min")
        else:
            parts.append(f"{minutes} min" if minutes else "< 1 min")
    parts.append(ngettext("%(count)s move", "%(count)s moves", game.moves, count=decimal(game.moves)))
    if game.kind == BEAM_ME_UP:
        parts.append(ngettext("%(count)s roll", "%(count)s rolls", game.rolls, count=decimal(game.rolls)))
    return " · ".join(parts)


@bp.app_template_global()
def table_rolls(game_id: int | None = None) -> dict[str, Any] | None:
    """The rolls the table made for the seats it plays, which the statistics
    leave out (they are not dice anyone threw): for one game, how many and
    whose (None when it made none); for every game, {} (no count is kept)."""
    if game_id is None:
        return {}
    made = [r for r in _store().rolls(game_id) if r.origin == "table" and not r.undone]
    if not made:
        return None
    return {"count": len(made), "players": sorted({r.player for r in made if r.player})}


def game_row(game: PlayedGame) -> dict[str, Any]:
    return {
        "id": game.id,
        "date": when(game.started),
        "name": KIND_NAMES.get(game.kind, game.kind),
        "players": ", ".join(game.players),
        "winner": game.winner,
        "status": STATUS_WORDS.get(game.status, game.status),
        "length": length_words(game),
    }


def _luck_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for row in summary["luck"]:
        share = row["scored"] / row["first_rolls"]
        verdict = N_("ordinary luck")
        if row["p_value"] < SIGNIFICANT:
            verdict = N_("luckier than chance") if share > row["chance"] else N_("unluckier than chance")
        short = N_("{name}: {scored} of {first} first rolls scored ({share}) · {verdict}").format(
            name=row["player"],
            scored=row["scored"],
            first=row["first_rolls"],
            share=f"{share:.0%}",
            verdict=verdict,
        )
        rows.append({**row, "share": share, "verdict": verdict, "short": short})
    return rows


@bp.route("/stats")
def stats() -> tuple[str, int]:
    store = _store()
    player = request.args.get("player") or None
    since_text = request.args.get("since") or ""
    problem = None
    status = 200
    since = None
    if since_text:
        try:
            since = parse_since(since_text)
        except ValueError as exc:
            problem = N_("The date to start from must be {why}; all games are shown.").format(why=exc)
            status = 400
    if player is not None:
        try:
            player = find_player(store, player)
        except UnknownPlayer as exc:
            shown = N_("{problem} Everyone's dice are shown.").format(problem=exc.message)
            problem = " ".join(filter(None, (problem, shown)))
            player = None
            status = 404
    try:
        # Bounded so that the offset stays a number SQLite holds.
        page = min(max(1, int(request.args.get("page", "1"))), MAX_GAME_ID // GAMES_PER_PAGE)
    except ValueError:
        page = 1
    summary = dice_summary(store, None, player, since)
    games, total = store.played_games(
        None, player, since, limit=GAMES_PER_PAGE, offset=(page - 1) * GAMES_PER_PAGE
    )
    pages = max(1, -(-total // GAMES_PER_PAGE))
    if page > pages:
        abort(404, f"There are {pages} page(s) of games.")
    title = (
        gettext("Beam Me Up dice thrown by %(name)s", name=player) if player else gettext("Beam Me Up dice")
    )
    html = render_template(
        "stats.html",
        summary=summary,
        chart=face_chart(list(summary["counts"].values()), title),
        luck=_luck_rows(summary),
        games=[game_row(g) for g in games],
        total_games=total,
        page=page,
        pages=pages,
        players=store.roll_players(),
        player=player,
        since=since_text if since is not None else "",
        problem=problem,
        title=title,
    )
    return html, status


@bp.route("/stats/game/<int:game_id>")
def game(game_id: int) -> str:
    if game_id > MAX_GAME_ID:
        abort(404)
    store = _store()
    found, _ = store.played_games(game_id=game_id, limit=1)
    if not found:
        abort(404)
    played = found[0]
    summary = chart = None
    rolls: list[dict[str, Any]] = []
    page = pages = 1
    if played.kind == BEAM_ME_UP:
        summary = dice_summary(store, game_id)
        chart = face_chart(list(summary["counts"].values()), f"Dice of game {game_id}")
        try:
            page = min(max(1, int(request.args.get("page", "1"))), MAX_GAME_ID // ROLLS_PER_PAGE)
        except ValueError:
            page = 1
        pages = max(1, -(-store.roll_count(game_id) // ROLLS_PER_PAGE))
        if page > pages:
            abort(404, f"Game {game_id} has {pages} page(s) of rolls.")
        first = (page - 1) * ROLLS_PER_PAGE
        for number, roll in enumerate(store.rolls(game_id, ROLLS_PER_PAGE, first), start=first + 1):
            rolls.append(
                {
                    "number": number,
                    "player": roll.player or "?",
                    "turn_roll": roll.turn_roll,
                    "dice": dice_marks(roll.dice, roll.kept),
                    "origin": ORIGIN_WORDS.get(roll.origin, roll.origin),
                    "undone": roll.undone,
                    "scored": roll.scored,
                    "at": time.strftime("%H:%M:%S", time.localtime(roll.at)) if roll.at else "",
                }
            )
    return render_template(
        "stats_game.html",
        game=game_row(played),
        played=played,
        summary=summary,
        chart=chart,
        luck=_luck_rows(summary) if summary else [],
        rolls=rolls,
        page=page,
        pages=pages,
    )


def tv_summary(game_id: int) -> dict[str, Any]:
    """The short version for the TV at the end of a game of Beam Me Up: its
    dice as a small chart, what they say, and each player's luck."""
    summary = dice_summary(_store(), game_id)
    return {
        "summary": summary,
        "chart": face_chart(list(summary["counts"].values()), "This game's dice", "tv-chart", COMPACT),
        "luck": _luck_rows(summary),
    }
