"""The command line's parser, in the system's language.

The commands mark their help texts with ``N_``; :class:`Parser` says them, and
argparse's own words ("usage:", "error:", "the following arguments are
required"), through the table's catalog.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from tablepi.i18n import N_


def ngettext(singular: str, plural: str, n: int = 1) -> str:
    """Marks a message with a plural for translation, as argparse writes it."""
    return singular if n == 1 else plural


# argparse's own messages (Python 3.11's msgids, copied so that extraction
# finds them): those a user can meet, not the ones for a programming mistake.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    ngettext("expected %s argument", "expected %s arguments"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
)


def _said(text: str) -> str:
    from tablepi.i18n import system_language, words

    return words(system_language()).gettext(text)


@contextmanager
def _argparse_said() -> Iterator[None]:
    # argparse looks its words up through its module's `_` and `ngettext` (gettext's
    # process-wide domain): the table's catalog stands in for them while a command line is read.
    from tablepi.i18n import system_language, words

    said = words(system_language())
    before = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = said.gettext, said.ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = before  # type: ignore[attr-defined]


class HelpFormatter(argparse.HelpFormatter):
    """Says each help text, description and heading in the system's language."""

    def add_usage(self, usage, actions, groups, prefix=None) -> None:
        super().add_usage(usage, actions, groups, _said("usage: ") if prefix is None else prefix)

    def add_text(self, text: str | None) -> None:
        super().add_text(_said(text) if text and text != argparse.SUPPRESS else text)

    def start_section(self, heading: str | None) -> None:
        super().start_section(_said(heading) if heading else heading)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _said(action.help) if action.help else action.help


class Parser(argparse.ArgumentParser):
    """An ArgumentParser speaking the system's language; its sub-commands' parsers
    are of this class too (argparse makes them with the parent's class)."""

    def __init__(self, *args, formatter_class: type[argparse.HelpFormatter] = HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def parse_args(self, args=None, namespace=None):
        with _argparse_said():
            return super().parse_args(args, namespace)

    def parse_known_args(self, args=None, namespace=None):
        with _argparse_said():
            return super().parse_known_args(args, namespace)

    def error(self, message: str):
        with _argparse_said():
            super().error(message)
