"""`tablepi outer-space setup N`: the set-up checklist for N players."""

from __future__ import annotations

import argparse
import sys

from tablepi.cli import say, say_text
from tablepi.i18n import N_


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("outer-space", help=N_("They Came From Outer Space: the set-up checklist"))
    which = parser.add_subparsers(dest="outer_space", required=True, metavar="WHAT")
    p = which.add_parser("setup", help=N_("print the set-up checklist for a number of players"))
    p.add_argument("players", help=N_("number of players (6-12)"))
    p.set_defaults(func=_setup)


def _setup(args: argparse.Namespace) -> int:
    from tablepi.games.errors import RuleError
    from tablepi.games.outer_space import MAX_PLAYERS, MIN_PLAYERS, setup

    try:
        n = int(args.players)
        plan = setup(n)
    except (ValueError, RuleError):
        problem = say(
            N_("the player count must be a whole number from {min_players} to {max_players}, not {given}"),
            min_players=MIN_PLAYERS,
            max_players=MAX_PLAYERS,
            given=repr(args.players),
        )
        print(f"tablepi outer-space setup: {problem}", file=sys.stderr)
        return 2
    print(say(N_("They Came From Outer Space: set-up for {n} players"), n=n))
    for number, step in enumerate(plan.checklist(), 1):
        print(f"{number}. {say_text(step)}")
    return 0
