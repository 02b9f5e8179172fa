"""`tablepi config check|show`: validate the settings and print them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("config", help="check or show the settings")
    which = parser.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    check = which.add_parser("check", help="validate the config files and explain every problem")
    check.add_argument("--config", type=Path, metavar="FILE", help="a config file read after the others")
    check.set_defaults(func=run_check)
    show = which.add_parser("show", help="print the effective settings as TOML")
    show.add_argument("--config", type=Path, metavar="FILE", help="a config file read after the others")
    show.set_defaults(func=run_show)


def _files_line(config) -> str:
    from tablepi.config import default_paths

    if config.sources:
        return "read: " + ", ".join(str(p) for p in config.sources)
    looked = ", ".join(str(p) for p in default_paths())
    return f"no config file found (looked for {looked}); using the defaults"


def run_check(args: argparse.Namespace) -> int:
    from tablepi.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        print("Fix these and run `tablepi config check` again.", file=sys.stderr)
        return 1
    print("config OK")
    print(_files_line(config))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from tablepi.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    print("# " + _files_line(config))
    sys.stdout.write(config.to_toml())
    return 0
