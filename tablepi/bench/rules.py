"""`tablepi bench rules`: how fast the Beam Me Up rules run.

Prints rolls read per second over all 7776 ordered rolls (best of several
passes) and complete random games played per second (random legal play to
the win, player counts 2..4 in turn).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from tablepi.cli import say
from tablepi.i18n import N_

ROLLS_TARGET = 50_000  # rolls/s the camera flow needs with room to spare


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--passes", type=int, default=7, help=N_("passes over the 7776 rolls (default 7)"))
    parser.add_argument("--games", type=int, default=500, help=N_("random games to play (default 500)"))
    parser.add_argument("--seed", type=int, default=1, help=N_("random seed for the games"))


def run(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.options import options
    from tablepi.games.beam_me_up.randomplay import random_game

    passes = max(1, getattr(args, "passes", 7))
    games = max(1, getattr(args, "games", 500))
    rolls = list(itertools.product(range(1, 7), repeat=5))
    rates = []
    for _ in range(passes):
        start = time.perf_counter()
        for roll in rolls:
            options(roll)
        rates.append(len(rolls) / (time.perf_counter() - start))
    best, median = max(rates), statistics.median(rates)
    verdict = (
        say(N_("ok"))
        if median >= ROLLS_TARGET
        else say(N_("BELOW the {target}/s target"), target=f"{ROLLS_TARGET:,}")
    )
    print(
        say(
            N_(
                "rolls read: {best}/s best, {median}/s median of {passes} passes over {rolls} rolls "
                "({verdict})"
            ),
            best=f"{best:,.0f}",
            median=f"{median:,.0f}",
            passes=passes,
            rolls=len(rolls),
            verdict=verdict,
        )
    )

    rng = random.Random(getattr(args, "seed", 1))
    commands = 0
    start = time.perf_counter()
    for i in range(games):
        game = random_game(rng, players=2 + i % 3)
        commands += len(game.commands)
    elapsed = time.perf_counter() - start
    print(
        say(
            N_(
                "random games: {rate} games/s ({games} games to the win, 2-4 players, {commands} commands "
                "a game, {command_rate} commands/s)"
            ),
            rate=f"{games / elapsed:,.0f}",
            games=games,
            commands=f"{commands / games:.0f}",
            command_rate=f"{commands / elapsed:,.0f}",
        )
    )
    return 0
