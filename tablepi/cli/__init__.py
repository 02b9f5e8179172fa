"""The `tablepi` command.

Each module in this package that defines ``register(subparsers)`` adds one
sub-command; the sub-command's parser sets ``func`` to a callable taking the
parsed arguments and returning an exit code. Heavy imports (OpenCV, Flask,
gpiozero) stay inside those callables so that `tablepi bmu ...` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence


def log_to_stderr(level: str) -> None:
    """Log at ``level`` (a name such as "INFO") to standard error in the system's
    language, as the long-running commands do: systemd's journal keeps what they write there."""
    import logging

    from tablepi.log_language import log_handler

    logging.basicConfig(level=getattr(logging, level), handlers=[log_handler(sys.stderr)])


def say(template: str, **fields: object) -> str:
    """A message marked with ``N_`` in the system's language (``LANG``), its fields
    filled in: what the commands print for people. Machine output (JSON, figures,
    names) is printed as it is."""
    from tablepi.i18n import Said, system_language

    return Said(template, **fields).say(system_language())


def say_text(english: str) -> str:
    """A finished English message from a game, the store or the settings (a rule's
    words, an option, a refusal) in the system's language."""
    from tablepi.i18n import system_language, words

    return words(system_language()).text(english)


def build_parser() -> argparse.ArgumentParser:
    from tablepi.cli.parser import Parser
    from tablepi.i18n import N_

    parser = Parser(prog="tablepi", description=N_("TablePi games-table controller"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
