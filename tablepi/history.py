"""The games the table has seen, for the statistics: what the store adds up
in SQL (``Store.dice_tallies``, ``Store.played_games``) turned into the
figures and words of ``tablepi.stats``. `tablepi stats` and the /stats page
both read through here, so they always agree."""

from __future__ import annotations

import datetime
from typing import Any

from tablepi.i18n import N_
from tablepi.stats import FACES, summary
from tablepi.store import Store

BEAM_ME_UP = "beam_me_up"


def parse_since(text: str) -> float:
    """The start of a day given as YYYY-MM-DD (local time), as a time stamp;
    ValueError with words for anything else."""
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%d").timestamp()
    except ValueError:
        raise ValueError(N_("a date such as 2026-11-28, not {text}").format(text=repr(text))) from None


class UnknownPlayer(LookupError):
    """A player name no game of the table knows; ``known`` lists the ones it does."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        if known:
            words = N_("No player called {name} has played at this table. Known players: {known}.").format(
                name=repr(name), known=", ".join(known)
            )
        else:
            words = N_("No player called {name} has played at this table: no games are kept yet.").format(
                name=repr(name)
            )
        super().__init__(words)
        self.message = words


def known_players(store: Store) -> list[str]:
    """Everyone who has thrown dice at the table or sat in one of its games, by name."""
    names = set(store.roll_players())
    games, _ = store.played_games()
    for game in games:
        names.update(game.players)
    return sorted(names, key=lambda n: (n.casefold(), n))


def find_player(store: Store, name: str) -> str:
    """The name as the table keeps it, for ``name`` typed in any case ("ann"
    finds "Ann"); ``UnknownPlayer`` when no game knows it."""
    thrown = store.roll_players()
    if name in thrown:
        return name
    known = known_players(store)
    if name in known:
        return name
    wanted = name.strip().casefold()
    for candidate in known:
        if candidate.casefold() == wanted:
            return candidate
    raise UnknownPlayer(name, known)


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
