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
    phase = game.phase
    if phase == "advantage":
        return {"type": "advantage", "columns": rng.sample(COLUMNS, game.advantage_due)}
    if phase == "rolling":
        roll_no = game.roll_number
        if roll_no == 0:
            return {"type": "roll", "dice": rng.choices(_FACES, k=5)}
        if game.options and (roll_no == MAX_ROLLS or rng.random() < 0.6):
            return {"type": "choose", "option": rng.randrange(len(game.options))}
        if roll_no < MAX_ROLLS:
            kept = [d for d in game.dice if rng.random() < 0.5]
            dice = kept + rng.choices(_FACES, k=5 - len(kept))
            rng.shuffle(dice)
            return {"type": "roll", "dice": dice, "kept": kept}
        return {"type": "end_turn"}
    if phase == "moving":
        if rng.random() < 0.03:
            return {"type": "end_turn"}
        part = rng.choice(game.parts_left)
        if game.wildcard and rng.random() < 0.5:
            return {"type": "move", "part": part, "column": rng.choice(COLUMNS)}
        return {"type": "move", "part": part}
    if phase == "bonus":
        seat = game.active
        top = game.layout(seat).top_row
        return {"type": "bonus", "column": rng.choice([c for c in COLUMNS if game.row(seat, c) < top])}
    raise ValueError(f"no command in phase {phase!r}")


def random_game(rng: random.Random, players: int = 2, boards: str = "ABCD") -> BeamMeUp:
    """A complete game of random legal play (to the win)."""
    seats = [{"name": NAMES[i], "board": boards[i % len(boards)]} for i in range(players)]
    game = BeamMeUp.from_settings({"players": seats})
    for _ in range(MAX_COMMANDS):
        if game.finished:
            return game
        game.push(random_command(game, rng))
    raise RuntimeError(f"random game still running after {MAX_COMMANDS} commands")
