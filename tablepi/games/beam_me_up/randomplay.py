"""Random legal play, for the tests and the benchmark.

The random source is passed in, so a seed replays the same game.
"""

from __future__ import annotations

import random

from tablepi.games.beam_me_up.game import MAX_ROLLS, BeamMeUp
from tablepi.games.beam_me_up.options import COLUMNS

NAMES = ("Ann", "Ben", "Sam", "Emma")
# A game that has not ended after this many commands is stuck, not slow.
MAX_COMMANDS = 20_000
_FACES = (1, 2, 3, 4, 5, 6)


def random_command(game: BeamMeUp, rng: random.Random) -> dict:
    """One legal command for the game's current position, chosen at random."""
    # Reads the game's fields directly: this runs millions of times in the tests.
    phase = game._phase
    if phase == "rolling":
        roll_no = game._roll_no
        if roll_no == 0:
            return {"type": "roll", "dice": rng.choices(_FACES, k=5)}
        found = len(game._options)
        if found and (roll_no == MAX_ROLLS or rng.random() < 0.8):
            return {"type": "choose", "option": rng.randrange(found) if found > 1 else 0}
        if roll_no < MAX_ROLLS:
            kept = [d for d in game._dice if rng.random() < 0.5]
            return {"type": "roll", "dice": rng.choices(_FACES, k=5 - len(kept)) + kept, "kept": kept}
        return {"type": "end_turn"}
    if phase == "moving":
        if rng.random() < 0.03:
            return {"type": "end_turn"}
        parts = game._parts_left
        part = parts[0] if len(parts) == 1 else rng.choice(parts)
        if game._wildcard and rng.random() < 0.5:
            return {"type": "move", "part": part, "column": rng.choice(_open_columns(game))}
        return {"type": "move", "part": part}
    if phase == "bonus":
        return {"type": "bonus", "column": rng.choice(_open_columns(game))}
    if phase == "advantage":
        return {"type": "advantage", "columns": rng.sample(COLUMNS, game.advantage_due)}
    raise ValueError(f"no command in phase {phase!r}")


def _open_columns(game: BeamMeUp) -> list[str]:
    """The active player's columns whose counter can still climb."""
    top = game._top[game._active]
    return [c for c, r in zip(COLUMNS, game._rows[game._active], strict=True) if r < top]


def random_game(rng: random.Random, players: int = 2, boards: str = "ABCD") -> BeamMeUp:
    """A complete game of random legal play (to the win)."""
    seats = [{"name": NAMES[i], "board": boards[i % len(boards)]} for i in range(players)]
    game = BeamMeUp.from_settings({"players": seats})
    for _ in range(MAX_COMMANDS):
        if game.finished:
            return game
        game.push(random_command(game, rng))
    raise RuntimeError(f"random game still running after {MAX_COMMANDS} commands")


def play_many(seed: int, games: int) -> list[dict]:
    """Play ``games`` random games (2, 3, 4 players in turn, boards rotating)
    and sum each up: player count, winner, the winner's counters and board."""
    rng = random.Random(seed)
    results = []
    for i in range(games):
        players = 2 + i % 3
        boards = "ABCD"[i % 4 :] + "ABCD"[: i % 4]
        game = random_game(rng, players, boards)
        winner = game.winner
        results.append(
            {
                "players": players,
                "winner": winner,
                "active": game.active,
                "last": game._commands[-1]["type"],
                "counters": game.counters(winner),
                "space_row": game.layout(winner).space_row,
                "commands": len(game._commands),
            }
        )
    return results
