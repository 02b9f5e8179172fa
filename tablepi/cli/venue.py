"""`tablepi venue --broker HOST`: the venue board, every table on one page.

It listens to the venue's MQTT broker (``tablepi/+/#``, what each table with
a ``[venue]`` section publishes) and serves a read-only page for a TV, with
no PIN: the board shows only what the tables made public. SIGTERM and
SIGINT stop it cleanly.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from tablepi.cli import log_to_stderr, say, say_text
from tablepi.i18n import N_

log = logging.getLogger("tablepi")

DEFAULT_WEB_PORT = 8090
PASSWORD_ENV = "TABLEPI_VENUE_PASSWORD"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("venue", help=N_("the venue board: every table's game on one page (MQTT)"))
    parser.add_argument("--broker", required=True, help=N_("the venue's MQTT broker (host name or address)"))
    parser.add_argument(
        "--port", type=int, default=None, help=N_("broker port (default 1883, 8883 with --tls)")
    )
    parser.add_argument(
        "--web-host", default="0.0.0.0", help=N_("address to serve the board on (default 0.0.0.0)")
    )
    parser.add_argument(
        "--web-port", type=int, default=DEFAULT_WEB_PORT, help=N_("board port (default %(default)s)")
    )
    parser.add_argument("--username", default="", help=N_("broker user name"))
    parser.add_argument(
        "--password-file",
        type=Path,
        help=say(
            N_("a file holding the broker password (or set {env}; never on the command line)"),
            env=PASSWORD_ENV,
        ),
    )
    parser.add_argument("--tls", action="store_true", help=N_("connect to the broker with TLS"))
    parser.add_argument(
        "--ca-file", default="", help=N_("CA certificate (PEM) for --tls (default: the system's)")
    )
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level)
    from tablepi.config import broker_host

    try:
        broker = broker_host(args.broker)
    except ValueError as exc:
        print(
            say(
                N_("--broker: expected {what}, got {given}"), what=say_text(str(exc)), given=repr(args.broker)
            ),
            file=sys.stderr,
        )
        return 2
    if not broker:
        print(say(N_("--broker: name the venue's MQTT broker")), file=sys.stderr)
        return 2
    port = args.port if args.port is not None else (8883 if args.tls else 1883)
    if not 1 <= port <= 65535 or not 0 <= args.web_port <= 65535:
        print(say(N_("ports are 1-65535")), file=sys.stderr)
        return 2
    if args.ca_file and not Path(args.ca_file).is_file():
        print(say(N_("--ca-file: no such file: {path}"), path=args.ca_file), file=sys.stderr)
        return 2
    password = os.environ.get(PASSWORD_ENV, "")
    if args.password_file is not None:
        try:
            password = args.password_file.read_text().strip()
        except OSError as exc:
            print(
                say(N_("--password-file: cannot be read ({why})"), why=exc.strerror or exc), file=sys.stderr
            )
            return 2

    from tablepi.venue import Board, BoardListener
    from web.server import make_server
    from web.venue import create_board_app

    board = Board()
    try:
        listener = BoardListener(
            board,
            broker,
            port,
            username=args.username,
            password=password,
            tls=args.tls,
            ca_file=args.ca_file,
        )
    except (OSError, ValueError) as exc:
        print(say(N_("cannot set up the broker connection: {why}"), why=say_text(str(exc))), file=sys.stderr)
        return 1
    app = create_board_app(board)
    try:
        server = make_server(app, host=args.web_host, port=args.web_port)
    except OSError as exc:
        where = f"{args.web_host}:{args.web_port}"
        print(say(N_("cannot serve on {where}: {why}"), where=where, why=exc), file=sys.stderr)
        return 1
    listener.start()

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    serving = threading.Thread(target=server.run, name="tablepi-board-web", daemon=True)
    serving.start()
    from tablepi.cli.run import web_address

    address = web_address(args.web_host, server.effective_port)
    print(say(N_("TablePi venue board on {address}"), address=address), flush=True)
    print(say(N_("listening to the broker at {broker} (tablepi/+/#)"), broker=f"{broker}:{port}"), flush=True)
    failed = False
    while not stop.wait(0.5):
        if not serving.is_alive():
            log.error(N_("the web server stopped"))
            failed = True
            break
    print(say(N_("stopping")), flush=True)
    board.close()
    listener.close()
    try:
        server.close()
    except Exception:
        log.exception(N_("closing the web server"))
    return 1 if failed else 0
