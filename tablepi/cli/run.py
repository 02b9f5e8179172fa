"""`tablepi run`: the table service with its web server.

Simulation (mock pins, an in-memory OLED, the synthetic camera) is chosen
automatically when no Raspberry Pi is found, or asked for with --simulate.
SIGTERM and SIGINT stop it cleanly.
"""

from __future__ import annotations

import argparse
import logging
import signal
import socket
import sys
import threading
from pathlib import Path

from tablepi.cli import log_to_stderr, say, say_text
from tablepi.i18n import N_

log = logging.getLogger("tablepi")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help=N_("run the table: buttons, OLED, camera and the web server"))
    parser.add_argument("--simulate", action="store_true", help=N_("simulated buttons, OLED and camera"))
    parser.add_argument("--host", help=N_("address to serve the web pages on (default from config: 0.0.0.0)"))
    parser.add_argument(
        "--port", type=int, help=N_("web port (default from config: 8080; 0 picks a free one)")
    )
    parser.add_argument("--data-dir", type=Path, help=N_("where games and the PIN are kept"))
    parser.add_argument("--config", type=Path, help=N_("a config file read after the system and user ones"))
    parser.add_argument("--no-camera", action="store_true", help=N_("do not start the camera"))
    parser.add_argument(
        "--table-step",
        type=float,
        metavar="SECONDS",
        help=N_(
            "seconds between the steps of a Beam Me Up seat played by the table "
            "(default from config: 1.2; 0 plays at once)"
        ),
    )
    parser.add_argument(
        "--table-seed",
        type=int,
        metavar="N",
        help=N_("throw the table's own dice from this seed, for the same game again (tests, demos)"),
    )
    parser.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    parser.set_defaults(func=run)


def _lan_address() -> str:
    """The address phones on the same network reach this computer at."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent for a UDP connect
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def web_address(host: str, port: int) -> str:
    shown = _lan_address() if host in ("0.0.0.0", "", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def run(args: argparse.Namespace) -> int:
    log_to_stderr(args.log_level)
    from tablepi.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        from tablepi.i18n import system_language

        print(exc.text(system_language()), file=sys.stderr)
        return 2
    except OSError as exc:
        print(say(N_("cannot read the configuration: {why}"), why=exc), file=sys.stderr)
        return 2

    from tablepi.service import Service, sd_notify
    from tablepi.store import StoreError

    host = args.host if args.host is not None else config.web.host
    port = args.port if args.port is not None else config.web.port
    data_dir = args.data_dir if args.data_dir is not None else config.data_dir
    try:
        simulate = True if args.simulate else None
        if args.table_step is not None and not 0 <= args.table_step <= 60:
            print(say(N_("--table-step must be 0 to 60 seconds")), file=sys.stderr)
            return 2
        service = Service(
            config,
            data_dir,
            simulate=simulate,
            camera=not args.no_camera,
            table_seed=args.table_seed,
            table_step_seconds=args.table_step,
        )
    except (StoreError, OSError) as exc:
        print(say(N_("cannot start: {why}"), why=say_text(str(exc))), file=sys.stderr)
        return 1

    from web import create_app
    from web.server import make_server

    try:
        server = make_server(create_app(service), host=host, port=port)
    except OSError as exc:
        print(say(N_("cannot serve on {where}: {why}"), where=f"{host}:{port}", why=exc), file=sys.stderr)
        service.close()
        return 1
    address = web_address(host, server.effective_port)
    service.start(address)

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    serving = threading.Thread(target=server.run, name="tablepi-web", daemon=True)
    serving.start()
    from tablepi.i18n import Said, words

    # Said in the table's language, as its screen and TV are.
    lang = service.language
    mode = Said(N_("simulation")) if service.simulated else "Raspberry Pi"
    # The PIN goes to a terminal only: printed to a pipe it would land in the
    # system journal, which is not where a secret belongs.
    if sys.stdout.isatty():
        started = Said(
            N_("TablePi ({mode}) on {address}  PIN {pin}"), mode=mode, address=address, pin=service.pin
        )
        print(started.say(lang), flush=True)
    else:
        print(Said(N_("TablePi ({mode}) on {address}"), mode=mode, address=address).say(lang), flush=True)
        pin = N_("PIN: on the table's screen (and on /setup in a browser on this computer)")
        print(words(lang).gettext(pin), flush=True)
    print(Said(N_("data: {path}"), path=service.data_dir).say(lang), flush=True)
    for problem in service.problems:
        print(Said(N_("problem: {problem}"), problem=words(lang).text(problem)).say(lang), flush=True)
    sd_notify(f"READY=1\nSTATUS=serving on {address}")

    failed = False
    while not stop.wait(0.5):
        if not serving.is_alive():
            # Exit with an error so that systemd restarts the table.
            log.error(N_("the web server stopped"))
            failed = True
            break
    sd_notify("STOPPING=1")
    print(words(lang).gettext(N_("stopping")), flush=True)
    service.close()
    try:
        server.close()
    except Exception:
        log.exception(N_("closing the web server"))
    return 1 if failed else 0
