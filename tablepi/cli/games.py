"""`tablepi games list|export|import|resume`: the history of played games.

An exported game is one JSON file: settings, every command (with its time
stamp, source and manual flag) and the final state. Importing replays it
first; a file that does not replay exactly is refused and nothing changes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tablepi.cli import say, say_text
from tablepi.i18n import N_


def register(sub: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help=N_("where the games are kept (default from config)"))
    common.add_argument("--config", type=Path, help=N_("a config file read after the system and user ones"))
    parser = sub.add_parser("games", help=N_("list, export, import and resume played games"))
    which = parser.add_subparsers(dest="games_command", required=True, metavar="ACTION")
    p = which.add_parser("list", help=N_("every game kept, newest last"), parents=[common])
    p.add_argument("--json", action="store_true", help=N_("print JSON"))
    p.set_defaults(func=list_games)
    p = which.add_parser("export", help=N_("print (or write) one game as JSON"), parents=[common])
    p.add_argument("id", type=int, help=N_("the game's number (see `tablepi games list`)"))
    p.add_argument("-o", "--output", type=Path, help=N_("write to this file instead of printing"))
    p.set_defaults(func=export_game)
    p = which.add_parser("import", help=N_("add an exported game to the history"), parents=[common])
    p.add_argument("file", type=Path, help=N_("a JSON file from `tablepi games export`"))
    p.set_defaults(func=import_game)
    p = which.add_parser(
        "resume",
        help=N_("put an abandoned game back on the table (taken up when the table starts)"),
        parents=[common],
    )
    p.add_argument("id", type=int, help=N_("the abandoned game's number (see `tablepi games list`)"))
    p.set_defaults(func=resume_game)


def _store(args: argparse.Namespace):
    from tablepi.store import Store

    data_dir = args.data_dir
    if data_dir is None:
        from tablepi.config import load_config

        data_dir = load_config(args.config).data_dir
    store = Store(data_dir)
    if store.problem:
        print(say_text(store.problem), file=sys.stderr)
    return store


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def list_games(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        games = store.games()
        current = store.current_game_id()
    finally:
        store.close()
    if args.json:
        print(json.dumps([dict(g.to_dict(), current=g.id == current) for g in games], indent=2))
        return 0
    if not games:
        print(say(N_("no games yet")))
        return 0
    number, game, status = say(N_("id")), say(N_("game")), say(N_("status"))
    commands, started, players = say(N_("commands")), say(N_("started")), say(N_("players"))
    print(f"{number:>4}  {game:<12} {status:<10} {commands:>8}  {started:<16}  {players}")
    for g in games:
        players = g.settings.get("players", [])
        names = ", ".join(p.get("name", "?") if isinstance(p, dict) else str(p) for p in players)
        mark = " *" if g.id == current else ""
        started = _when(g.created_at)
        print(f"{g.id:>4}  {g.kind:<12} {g.status:<10} {g.commands:>8}  {started:<16}  {names}{mark}")
    if current is not None:
        print(say(N_("* on the table now")))
    return 0


def export_game(args: argparse.Namespace) -> int:
    from tablepi.store import StoreError

    store = _store(args)
    try:
        data = store.export_game(args.id)
    except StoreError as exc:
        print(say(N_("cannot export game {id}: {why}"), id=args.id, why=say_text(str(exc))), file=sys.stderr)
        return 1
    finally:
        store.close()
    text = json.dumps(data, indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
        print(say(N_("game {id} written to {path}"), id=args.id, path=args.output))
    return 0


def import_game(args: argparse.Namespace) -> int:
    from tablepi.store import StoreError

    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
    except OSError as exc:
        print(say(N_("cannot read {path}: {why}"), path=args.file, why=exc.strerror or exc), file=sys.stderr)
        return 1
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(say(N_("{path} is not a JSON file: {error}"), path=args.file, error=exc), file=sys.stderr)
        return 1
    store = _store(args)
    try:
        game_id = store.import_game(data)
    except StoreError as exc:
        print(
            say(N_("{path} was not imported: {why}"), path=args.file, why=say_text(str(exc))), file=sys.stderr
        )
        return 1
    finally:
        store.close()
    print(say(N_("imported as game {id}"), id=game_id))
    return 0


def resume_game(args: argparse.Namespace) -> int:
    from tablepi.store import StoreError

    store = _store(args)
    try:
        record = store.game(args.id)
        if record is None:
            print(say(N_("there is no game {id} (see `tablepi games list`)"), id=args.id), file=sys.stderr)
            return 1
        store.resume_game(args.id)
    except StoreError as exc:
        print(
            say(N_("game {id} was not resumed: {why}"), id=args.id, why=say_text(str(exc))), file=sys.stderr
        )
        return 1
    finally:
        store.close()
    # A table already running keeps the game it holds until it restarts; its
    # set-up page resumes a game at once.
    print(
        say(
            N_("game {id} ({kind}) is on the table again; `tablepi run` takes it up where it was left"),
            id=args.id,
            kind=record.kind,
        )
    )
    return 0
