"""`tablepi bench advise`: how long the keep advice takes for a roll.

For each of the 252 sorted rolls with 2 rolls left, the full advice (every
keep ranked, the best play worked out) from nothing, on one thread, in two
mid-game positions of a two-player game: one where the player has the
wildcard (a counter on a blue star, the slowest case) and one without.
Prints the median and 99th percentile in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tablepi.cli import say
from tablepi.i18n import N_

MEDIAN_TARGET_MS = 20.0
P99_TARGET_MS = 50.0

# Rows by column 1..6, straight; the advised player is seat 0 on board A.
POSITIONS = {
    "mid-game": ({"1": 3, "2": 2, "4": 1, "straight": 1}, {"1": 4, "3": 5, "6": 2}),
    "mid-game with the wildcard": ({"1": 3, "3": 2, "5": 4, "straight": 1}, {"1": 4, "3": 5, "6": 2}),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--passes", type=int, default=1, help=N_("passes over the 252 rolls (default 1)"))


def position(counters: tuple[dict, dict]):
    from tablepi.games.beam_me_up.advice import Position
    from tablepi.games.beam_me_up.game import BeamMeUp

    players = [
        {"name": "Ann", "board": "A", "counters": counters[0]},
        {"name": "Ben", "board": "B", "counters": counters[1]},
    ]
    return Position.from_game(BeamMeUp.from_settings({"players": players, "advantage": False}))


def timings(passes: int = 1) -> dict[str, list[float]]:
    """Milliseconds per full advice, by position, over the 252 rolls."""
    from tablepi.games.beam_me_up.advice import Advisor
    from tablepi.games.beam_me_up.options import SORTED_ROLLS

    found = {}
    for name, counters in POSITIONS.items():
        where = position(counters)
        times = []
        for _ in range(passes):
            for roll in SORTED_ROLLS:
                start = time.perf_counter()
                Advisor(where).advise(roll, 2)
                times.append((time.perf_counter() - start) * 1000)
        found[name] = times
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(args: argparse.Namespace) -> int:
    found = timings(max(1, getattr(args, "passes", 1)))
    every = [t for times in found.values() for t in times]
    for name, times in [*found.items(), ("all", every)]:
        median, p99 = statistics.median(times), percentile(times, 0.99)
        ok = median <= MEDIAN_TARGET_MS and p99 <= P99_TARGET_MS
        verdict = (
            say(N_("ok"))
            if ok
            else say(N_("ABOVE the {target} ms target"), target=f"{MEDIAN_TARGET_MS:g}/{P99_TARGET_MS:g}")
        )
        print(
            say(
                N_(
                    "advice, 2 rolls left, {name}: median {median} ms, p99 {p99} ms, max {max} ms over "
                    "{rolls} rolls ({verdict})"
                ),
                name=say(N_("all")) if name == "all" else name,
                median=f"{median:.1f}",
                p99=f"{p99:.1f}",
                max=f"{max(times):.1f}",
                rolls=len(times),
                verdict=verdict,
            )
        )
    return 0
