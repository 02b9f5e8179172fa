"""`tablepi stats`: are the dice fair? Counts of every Beam Me Up die thrown,
over all games kept, one game, one player or since a date, read from the
store's rolls (added up in SQL: no game is replayed)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="are the dice fair? face counts and a test against a fair die")
    p.add_argument("--game", type=int, help="one game's number (see `tablepi games list`)")
    p.add_argument("--player", help="only the dice this player threw (any case: ann finds Ann)")
    p.add_argument("--since", help="only games started on or after this date (YYYY-MM-DD)")
    p.add_argument("--data-dir", type=Path, help="where the games are kept (default from config)")
    p.add_argument("--config", type=Path, help="a config file read after the system and user ones")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablepi.cli.games import _store
    from tablepi.history import BEAM_ME_UP, UnknownPlayer, dice_summary, find_player, parse_since

    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            print(f"tablepi stats: --since is {exc}", file=sys.stderr)
            return 2
    store = _store(args)
    try:
        if args.game is not None:
            record = store.game(args.game)
            if record is None or record.kind != BEAM_ME_UP:
                print(f"tablepi stats: no game of Beam Me Up numbered {args.game}", file=sys.stderr)
                return 2
        player = args.player
        if player is not None:
            try:
                player = find_player(store, player)
            except UnknownPlayer as exc:
                print(f"tablepi stats: {exc.message}", file=sys.stderr)
                return 2
        summary = dice_summary(store, args.game, player, since)
    finally:
        store.close()
    if args.json:
        print(json.dumps(summary))
        return 0
    n, games = summary["dice"], summary["games"]
    by = f" by {player}" if player else ""
    print(f"{n:,} dice thrown{by} in {games} game{'s' * (games != 1)}")
    total = max(n, 1)
    for face, count in summary["counts"].items():
        print(f"  {face}: {count:>6,}  {count / total:6.1%}  {'#' * round(60 * count / total)}")
    print(f"chi-square {summary['chi_square']:.2f} (5 degrees of freedom), p = {summary['p_value']:.3g}")
    print(summary["words"])
    for row in summary["luck"]:
        print(row["words"])
    return 0
