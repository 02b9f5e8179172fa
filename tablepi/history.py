"""The games the table has seen, for the statistics: what the store adds up
in SQL (``Store.dice_tallies``, ``Store.played_games``) turned into the
figures and words of ``tablepi.stats``. `tablepi stats` and the /stats page
both read through here, so they always agree."""

from __future__ import annotations

import datetime
from typing import Any

from tablepi.stats import FACES, summary
from tablepi.store import Store

BEAM_ME_UP = "beam_me_up"


def parse_since(text: str) -> float:
    """The start of a day given as YYYY-MM-DD (local time), as a time stamp;
    ValueError with words for anything else."""
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%d").timestamp()
    except ValueError:
        raise ValueError(f"a date such as 2026-11-28, not {text!r}") from None


def dice_summary(
    store: Store, game_id: int | None = None, player: str | None = None, since: float | None = None
) -> dict[str, Any]:
    """The Beam Me Up dice thrown in one game, by one player, in games started
    since a time stamp, or in all: their face counts, the test against a fair
    die and each player's luck (see ``tablepi.stats.summary``)."""
    from tablepi.games.beam_me_up.odds import first_roll_scores

    tallies = store.dice_tallies(game_id, player, since)
    counts = [sum(t.faces[face] for t in tallies) for face in range(FACES)]
    firsts = {t.player: (t.first_rolls, t.first_scored) for t in tallies if t.player is not None}
    _, games = store.played_games(BEAM_ME_UP, player, since, game_id, limit=0)
    return summary(counts, firsts, float(first_roll_scores()), games)
