"""Two players by rule, for measuring the advice: games played through the
engine's own commands, with the dice from a random source passed in.

``advice_turn`` plays a turn by the advice: keep what it ranks first, stop
when stopping ranks first, then play the roll as it says.

``frequent_turn`` is a simple human-like rule: set aside the dice of the most
frequent value (the higher on a tie) and re-roll the rest; stop early on a
roll worth 3 squares or more (four or five of a kind, a full house, a big
straight); play every part in its own column; a rocket's bonus square goes
to the highest counter not yet in space (or the lowest that can climb).

Both give the starting player's advantage (B10) the same way, in the first
columns, so the games differ only by the turns.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from tablepi.games.beam_me_up.advice import Advisor, Position
from tablepi.games.beam_me_up.game import MAX_ROLLS, BeamMeUp
from tablepi.games.beam_me_up.options import COLUMNS, TABLE

_FACES = (1, 2, 3, 4, 5, 6)
MAX_TURNS = 2_000  # a game still going after this many turns is stuck, not long


def _roll(game: BeamMeUp, kept: list[int], rng: random.Random) -> None:
    dice = kept + rng.choices(_FACES, k=5 - len(kept))
    game.push(
        {"type": "roll", "dice": dice, "kept": kept} if game.roll_number else {"type": "roll", "dice": dice}
    )


def advice_turn(game: BeamMeUp, rng: random.Random) -> None:
    """One whole turn of the active player, by the advice."""
    advisor = Advisor(Position.from_game(game))
    _roll(game, [], rng)
    while True:
        advice = advisor.advise(game.dice, MAX_ROLLS - game.roll_number)
        if advice.best.stop:
            for command in advice.play:
                game.push(command)
            return
        _roll(game, list(advice.best.keep), rng)


def frequent_turn(game: BeamMeUp, rng: random.Random) -> None:
    """One whole turn of the active player, keeping the most frequent value."""
    _roll(game, [], rng)
    while game.roll_number < MAX_ROLLS:
        found = TABLE[tuple(sorted(game.dice))]
        if found and sum(s for _, s in found[0].parts) >= 3:
            break
        value, n = max(Counter(game.dice).items(), key=lambda item: (item[1], item[0]))
        _roll(game, [value] * n, rng)
    if not game.options:
        game.push({"type": "end_turn"})
        return
    seat = game.active
    game.push({"type": "choose", "option": 0})
    for part in range(len(game.chosen.parts)):
        if game.finished:
            return
        game.push({"type": "move", "part": part})
        while game.bonus_owed:
            game.push({"type": "bonus", "column": _bonus_column(game, seat)})


def _bonus_column(game: BeamMeUp, seat: int) -> str:
    layout = game.layout(seat)
    rows = game.counters(seat)
    below = [c for c in COLUMNS if rows[c] < layout.space_row]
    if below:
        return max(below, key=lambda c: rows[c])
    return min((c for c in COLUMNS if rows[c] < layout.top_row), key=lambda c: rows[c])


def play_game(players: list, boards: str, rng: random.Random) -> tuple[BeamMeUp, int]:
    """A two-player game to the win, each seat playing its turn function;
    returns the game and the number of turns played."""
    seats = [{"name": f"seat {i + 1}", "board": boards[i]} for i in range(len(players))]
    game = BeamMeUp.from_settings({"players": seats})
    while game.phase == "advantage":
        game.push({"type": "advantage", "columns": list(COLUMNS[: game.advantage_due])})
    for turn in range(1, MAX_TURNS + 1):
        players[game.active](game, rng)
        if game.finished:
            return game, turn
    raise RuntimeError(f"game still running after {MAX_TURNS} turns")


def duel(games: int, seed: int = 1) -> dict[str, Any]:
    """``games`` two-player games, advice against the most frequent value,
    alternating who starts and rotating the boards."""
    rng = random.Random(seed)
    wins = turns = 0
    for i in range(games):
        advice_seat = i % 2
        players = [frequent_turn, frequent_turn]
        players[advice_seat] = advice_turn
        boards = "ABCD"[i % 4] + "ABCD"[(i + 1) % 4]
        game, played = play_game(players, boards, rng)
        wins += game.winner == advice_seat
        turns += played
    return {
        "games": games,
        "seed": seed,
        "advice_wins": wins,
        "advice_win_rate": wins / games,
        "average_turns": turns / games,
        "average_rounds": turns / games / 2,
    }
