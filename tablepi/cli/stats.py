"""`tablepi stats`: are the dice fair? Counts of every Beam Me Up die thrown,
over all games kept, one game, one player or since a date, read from the
store's rolls (added up in SQL: no game is replayed)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tablepi.cli import say, say_text
from tablepi.i18n import N_


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help=N_("are the dice fair? face counts and a test against a fair die"))
    p.add_argument("--game", type=int, help=N_("one game's number (see `tablepi games list`)"))
    p.add_argument("--player", help=N_("only the dice this player threw (any case: ann finds Ann)"))
    p.add_argument("--since", help=N_("only games started on or after this date (YYYY-MM-DD)"))
    p.add_argument("--data-dir", type=Path, help=N_("where the games are kept (default from config)"))
    p.add_argument("--config", type=Path, help=N_("a config file read after the system and user ones"))
    p.add_argument("--json", action="store_true", help=N_("print JSON"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tablepi.cli.games import _store
    from tablepi.history import BEAM_ME_UP, UnknownPlayer, dice_summary, find_player, parse_since

    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            print("tablepi stats: " + say(N_("--since is {why}"), why=say_text(str(exc))), file=sys.stderr)
            return 2
    store = _store(args)
    try:
        if args.game is not None:
            record = store.game(args.game)
            if record is None or record.kind != BEAM_ME_UP:
                print(
                    "tablepi stats: " + say(N_("no game of Beam Me Up numbered {id}"), id=args.game),
                    file=sys.stderr,
                )
                return 2
        player = args.player
        if player is not None:
            try:
                player = find_player(store, player)
            except UnknownPlayer as exc:
                print(f"tablepi stats: {say_text(exc.message)}", file=sys.stderr)
                return 2
        summary = dice_summary(store, args.game, player, since)
    finally:
        store.close()
    if args.json:
        print(json.dumps(summary))
        return 0
    n, games = summary["dice"], summary["games"]
    if player:
        thrown = (
            N_("{n} dice thrown by {player} in {games} game")
            if games == 1
            else N_("{n} dice thrown by {player} in {games} games")
        )
    else:
        thrown = (
            N_("{n} dice thrown in {games} game") if games == 1 else N_("{n} dice thrown in {games} games")
        )
    print(say(thrown, n=say_text(f"{n:,}"), player=player, games=games))
    total = max(n, 1)
    for face, count in summary["counts"].items():
        # Numbers as the reader's language writes them: "1,234" is 1.234 in German.
        shown, share = say_text(f"{count:,}"), say_text(f"{count / total:.1%}")
        print(f"  {face}: {shown:>6}  {share:>6}  {'#' * round(60 * count / total)}")
    chi_square, p_value = f"{summary['chi_square']:.2f}", f"{summary['p_value']:.3g}"
    print(
        say(N_("chi-square {chi_square} (5 degrees of freedom), p = {p}"), chi_square=chi_square, p=p_value)
    )
    print(say_text(summary["words"]))
    for row in summary["luck"]:
        print(say_text(row["words"]))
    return 0
