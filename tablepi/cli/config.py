"""`tablepi config check|show`: validate the settings and print them, in the
system's language where the table speaks it (``LANG``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablepi.i18n import N_


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("config", help=N_("check or show the settings"))
    which = parser.add_subparsers(dest="config_command", required=True, metavar="ACTION")
    check = which.add_parser("check", help=N_("validate the config files and explain every problem"))
    check.add_argument("--config", type=Path, metavar="FILE", help=N_("a config file read after the others"))
    check.set_defaults(func=run_check)
    show = which.add_parser("show", help=N_("print the effective settings as TOML"))
    show.add_argument("--config", type=Path, metavar="FILE", help=N_("a config file read after the others"))
    show.set_defaults(func=run_show)


def _files_line(config, lang: str) -> str:
    from tablepi.config import default_paths
    from tablepi.i18n import Said

    if config.sources:
        return Said(N_("read: {path}"), path=", ".join(str(p) for p in config.sources)).say(lang)
    looked = ", ".join(str(p) for p in default_paths())
    return Said(N_("no config file found (looked for {path}); using the defaults"), path=looked).say(lang)


def run_check(args: argparse.Namespace) -> int:
    from tablepi.config import ConfigError, load_config
    from tablepi.i18n import N_, system_language, words

    lang = system_language()
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc.text(lang), file=sys.stderr)
        print(words(lang).gettext(N_("Fix these and run `tablepi config check` again.")), file=sys.stderr)
        return 1
    print(words(lang).gettext(N_("config OK")))
    print(_files_line(config, lang))
    return 0


def run_show(args: argparse.Namespace) -> int:
    from tablepi.config import ConfigError, load_config
    from tablepi.i18n import system_language

    lang = system_language()
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(exc.text(lang), file=sys.stderr)
        return 1
    print("# " + _files_line(config, lang))
    sys.stdout.write(config.to_toml())
    return 0
