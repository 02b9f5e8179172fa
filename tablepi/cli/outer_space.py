"""`tablepi outer-space setup N`: the set-up checklist for N players."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("outer-space", help="They Came From Outer Space: the set-up checklist")
    which = parser.add_subparsers(dest="outer_space", required=True, metavar="WHAT")
    p = which.add_parser("setup", help="print the set-up checklist for a number of players")
    p.add_argument("players", help="number of players (6-12)")
    p.set_defaults(func=_setup)


def _setup(args: argparse.Namespace) -> int:
    from tablepi.games.errors import RuleError
    from tablepi.games.outer_space import MAX_PLAYERS, MIN_PLAYERS, setup

    try:
        n = int(args.players)
        plan = setup(n)
    except (ValueError, RuleError):
        print(
            f"tablepi outer-space setup: the player count must be a whole number from "
            f"{MIN_PLAYERS} to {MAX_PLAYERS}, not {args.players!r}",
            file=sys.stderr,
        )
        return 2
    print(f"They Came From Outer Space: set-up for {n} players")
    for number, step in enumerate(plan.checklist(), 1):
        print(f"{number}. {step}")
    return 0
