"""The log's lines (what ``journalctl -u tablepi`` shows) in the system's language.

A line is written in English with a marked template, as everywhere in TablePi:
``log.warning(N_("camera lost: %s"), Text(message))`` or ``log.info(Said(N_(...), ...))``.
:class:`LogFormatter` says it in the language when the line is written; the
record itself (what tests and other handlers see) stays English.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

from tablepi.i18n import DEFAULT, Said, Text, system_language, words

FORMAT = "%(levelname)s %(name)s: %(message)s"


def log_handler(stream: TextIO | None = None) -> logging.Handler:
    """Where the long-running commands log (standard error, which systemd's
    journal keeps), in the system's language (``LANG``)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(LogFormatter(FORMAT, system_language()))
    return handler


class LogFormatter(logging.Formatter):
    """Says each record in ``lang``: its template through the catalog, its
    ``Said`` and ``Text`` arguments in the language, the other arguments (paths,
    numbers, library errors) as they are. A line that is one finished message
    (``log.error("%s", problem)``) is said as the pages say it."""

    # A Formatter, not a Filter: only the journal's line is translated, when it is
    # written, and the record keeps its English for every other handler.
    def __init__(self, fmt: str | None = None, lang: str = DEFAULT) -> None:
        super().__init__(fmt)
        self.lang = lang
        self.words = words(lang)  # loaded now: a catalog missing warns before logging uses this

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        if self.lang != DEFAULT:
            try:
                said = self.say(record)
            except (TypeError, ValueError, KeyError, IndexError):  # a catalog entry that lost a field
                said = None
            if said is not None:
                record = logging.makeLogRecord({**record.__dict__, "message": said})
        return super().formatMessage(record)

    def say(self, record: logging.LogRecord) -> str | None:
        msg, args = record.msg, record.args
        if isinstance(msg, (Said, Text)):
            return msg.say(self.lang)
        if not isinstance(msg, str) or not isinstance(args, tuple):
            return None
        if msg == "%s" and len(args) == 1 and isinstance(args[0], str):
            return self.words.text(args[0])
        template = self.words.gettext(msg)
        said: tuple[Any, ...] = tuple(a.say(self.lang) if isinstance(a, (Said, Text)) else a for a in args)
        return template % said if said else template
