"""The games a table can host.

Every game is a class with the same small, pure API (no I/O, randomness and
time passed in through commands), in the manner of python-chess:

- ``Game.from_settings(settings: dict) -> Game``: a new game; bad settings
  raise ``RuleError``.
- ``game.push(command: dict) -> None``: validate and apply one command
  (``{"type": ..., ...}``); an illegal one raises ``RuleError`` and changes
  nothing.
- ``game.pop() -> dict``: take back the last pushed command and return it.
- ``game.to_dict() -> dict`` / ``Game.from_dict(d)``: an exact JSON round
  trip of a game in progress. Holds no secret.
- ``game.public_view(now: float | None = None) -> dict``: what any viewer may
  see; strips every secret (in the manner of boardgame.io's playerView).
- ``game.finished -> bool``.
- optionally, ``game.roll_facts() -> dict`` right after a roll of dice: who
  threw it ("player"), its number in the turn ("turn_roll") and whether it
  offers anything ("scored"), for the table's statistics.

``KINDS`` maps a game's kind (as stored and as used in the API) to its class.
"""

from __future__ import annotations

import importlib
from typing import Any

from tablepi.games.errors import RuleError
from tablepi.i18n import N_

KINDS: dict[str, str] = {
    "beam_me_up": "tablepi.games.beam_me_up:BeamMeUp",
    "outer_space": "tablepi.games.outer_space:OuterSpace",
    "space_beans": "tablepi.games.space_beans:SpaceBeans",
}


def game_class(kind: str) -> Any:
    try:
        module_name, class_name = KINDS[kind].split(":")
    except KeyError:
        raise RuleError("game-kind", f"unknown game {kind!r}; choose one of {', '.join(KINDS)}") from None
    return getattr(importlib.import_module(module_name), class_name)


def new_game(kind: str, settings: dict[str, Any]) -> Any:
    return game_class(kind).from_settings(settings)


def load_game(kind: str, data: dict[str, Any]) -> Any:
    return game_class(kind).from_dict(data)


def roll_facts(game: Any) -> dict[str, Any] | None:
    """The facts of the roll just played (see above); None for a game without dice."""
    facts = getattr(game, "roll_facts", None)
    return facts() if callable(facts) else None


def winner_words(kind: str | None, game: Any) -> str | None:
    """Who won a finished game, in words for the history of games played:
    read from its public view, so never a secret. None while it is not over."""
    if not getattr(game, "finished", False):
        return None
    view = game.public_view()
    if kind == "beam_me_up":
        winner = view.get("winner")
        return str(winner["name"]) if isinstance(winner, dict) else None
    if kind == "outer_space":
        sides = {"humans": N_("the humans"), "aliens": N_("the aliens")}
        return sides.get(view["winner"], f"the {view['winner']}") if view.get("winner") else None
    if kind == "space_beans":
        names = [str(view["players"][i]["name"]) for i in view.get("winners") or []]
        if len(names) > 1:
            return N_("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])
        return names[0] if names else None
    return None


__all__ = ["KINDS", "RuleError", "game_class", "new_game", "load_game", "roll_facts", "winner_words"]
