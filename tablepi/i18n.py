"""The players' language: gettext catalogs (Babel) for the pages, the OLED and
the messages of the games.

The catalogs live in ``tablepi/locale/<lang>/LC_MESSAGES/messages.po`` (under
version control) and are compiled to ``.mo`` files when the table is installed
(``make``, ``systemd/pi-env.sh``). A language whose ``.mo`` is missing falls
back to English with a warning in the log: the table still runs.

The games build their messages in English from marked templates
(``N_("{name}'s turn")``), so the API's text stays the same for developers;
:meth:`Words.text` turns such a finished English message into the reader's
language by matching it against the templates of the catalog.
"""

from __future__ import annotations

import gettext
import locale
import logging
import os
import re
import threading
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "messages"
DEFAULT = "en"

# "(B10)", "(rule S2)", "[T2]": rule references the pages leave out (tablepi.words).
RULE_REF = re.compile(r"\s*[(\[](?:rule\s+)?(?:[A-Z]{1,2}\d+[a-z]?|pin)[)\]]")
_FIELD = re.compile(r"\{(\w+)\}")
# A number as the games write it in English: "7", "1,234", "2.5", "42%".
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})*(?:\.\d+)?%?|-?\d+(?:\.\d+)?%?")
# Where messages are joined into one line, most specific first.
_JOINS = (
    (re.compile(r"(?<=[.!?]) "), " "),
    (re.compile("; "), "; "),
    (re.compile(" & "), " & "),
    (re.compile(" · "), " · "),
)


def N_(text: str) -> str:
    """Marks ``text`` for translation where it is written; it is translated
    where it is shown (the games are pure data and have no reader)."""
    return text


def languages() -> list[str]:
    """The languages the table can speak: English and each one with a catalog."""
    return list(_languages(LOCALE_DIR))


@lru_cache(maxsize=4)
def _languages(folder: Path) -> tuple[str, ...]:
    # Read once: every page asks, and the catalogs only change with an installation.
    found = {DEFAULT}
    if folder.is_dir():
        for entry in folder.iterdir():
            if (entry / "LC_MESSAGES" / f"{DOMAIN}.po").is_file():
                found.add(entry.name)
    return tuple(sorted(found))


@lru_cache(maxsize=16)
def language_name(lang: str) -> str:
    """A language's name in that language ("Deutsch", "English")."""
    from babel import Locale

    try:
        return Locale.parse(lang).get_display_name(lang).capitalize()
    except (ValueError, TypeError):
        return lang


def system_language() -> str:
    """The system locale's language when the table speaks it, else English."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "")
        if value:
            lang = value.split(".")[0].split("_")[0].lower()
            return lang if lang in languages() else DEFAULT
    try:
        value = locale.getlocale()[0] or ""
    except ValueError:
        value = ""
    lang = value.split("_")[0].lower()
    return lang if lang in languages() else DEFAULT


def best_match(accepted: list[str], fallback: str) -> str:
    """The first of ``accepted`` (language tags such as "de-AT") the table speaks."""
    known = languages()
    for tag in accepted:
        lang = tag.replace("_", "-").split("-")[0].lower()
        if lang in known:
            return lang
    return fallback


_warned: set[str] = set()
_lock = threading.Lock()


@lru_cache(maxsize=8)
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang``; English (no translation) when it has
    no ``.mo`` file, said once in the log."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    mo = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not mo.is_file():
        with _lock:
            if lang not in _warned:
                _warned.add(lang)
                log.warning(
                    "No compiled catalog for language %r (%s is missing): showing English. "
                    "Compile the catalogs with `pybabel compile -d %s` (make does it).",
                    lang,
                    mo,
                    LOCALE_DIR,
                )
        return gettext.NullTranslations()
    from babel.support import Translations

    return Translations.load(str(LOCALE_DIR), [lang], DOMAIN)


class Words:
    """Everything said in one language: ``gettext`` for a message written
    here, ``text`` for a finished English message from a game."""

    def __init__(self, lang: str = DEFAULT):
        self.lang = lang
        self.translations = catalog(lang)
        entries = getattr(self.translations, "_catalog", {}) or {}
        self._exact: dict[str, str] = {}
        self._patterns: list[tuple[re.Pattern[str], str]] = []
        templates = []
        for msgid, msgstr in entries.items():
            if not isinstance(msgid, str) or not msgid or not msgstr:
                continue
            key, said = plain(msgid), plain(msgstr)
            self._exact.setdefault(key, said)
            if _FIELD.search(key):
                templates.append((key, said))
        # The template with the most fixed text first: "{name} passes: ..." before "{name} {what}".
        templates.sort(key=lambda t: -len(_FIELD.sub("", t[0])))
        for key, said in templates:
            self._patterns.append((_pattern(key), said))

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translations.ngettext(singular, plural, n)

    def __call__(self, message: str) -> str:
        return self.translations.gettext(message)

    def text(self, english: str) -> str:
        """A finished English message (a game's note, an option, an error) in
        this language; the message itself when the catalog has no template for it."""
        if self.lang == DEFAULT or not english:
            return english
        # The rule codes ("(B7)") are for developers: a player reads the sentence.
        return self._text(plain(english), 0)

    @lru_cache(maxsize=4096)  # noqa: B019 - one Words per language, kept for the process
    def _text(self, english: str, depth: int) -> str:
        found = self._exact.get(english)
        if found is not None:
            return found
        if _NUMBER.fullmatch(english):
            return self._number(english)
        if depth > 4:
            return english
        for pattern, said in self._patterns:
            match = pattern.fullmatch(english)
            if match is None:
                continue
            values = {k: self._text(v, depth + 1) for k, v in match.groupdict().items()}
            try:
                return said.format(**values)
            except (KeyError, IndexError, ValueError):
                return english
        # Messages joined into one ("A. B", "+1 in 3 & +2 in 5"): each part on its own.
        for split, joiner in _JOINS:
            parts = split.split(english)
            if len(parts) > 1:
                said_parts = [self._text(part, depth + 1) for part in parts]
                if said_parts != parts:
                    return joiner.join(said_parts)
        return english

    def _number(self, english: str) -> str:
        """A number as English writes it ("1,234", "16.7%") as this language does."""
        from babel.numbers import format_decimal, format_percent

        digits = english.rstrip("%").replace(",", "")
        places = len(digits.split(".")[1]) if "." in digits else 0
        if english.endswith("%"):
            pattern = number_pattern(self.lang, places, percent=True)
            return format_percent(float(digits) / 100, pattern, locale=self.lang)
        return format_decimal(float(digits), number_pattern(self.lang, places), locale=self.lang)


def number_pattern(lang: str, places: int = 0, percent: bool = False) -> str:
    """The language's own pattern for a number or a percentage ("#,##0 %" in
    German), with ``places`` digits after the decimal point."""
    from babel import Locale

    formats = Locale.parse(lang).percent_formats if percent else Locale.parse(lang).decimal_formats
    pattern = formats[None].pattern.split(";")[0]
    pattern = re.sub(r"0(\.0+|\.#+)?", "0", pattern, count=1) if "0" in pattern else pattern
    return pattern.replace("0", "0." + "0" * places, 1) if places else pattern


def plain(text: str) -> str:
    """``text`` without its rule references."""
    return RULE_REF.sub("", text)


def _pattern(template: str) -> re.Pattern[str]:
    parts = []
    seen: set[str] = set()
    position = 0
    for field in _FIELD.finditer(template):
        parts.append(re.escape(template[position : field.start()]))
        name = field.group(1)
        # A field never spans a join of two messages ("+1 in 3 & +2 in 5").
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>(?:(?! & | · ).)*?)")
        seen.add(name)
        position = field.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts), re.DOTALL)


class Said:
    """A message kept as its marked template and fields, to be said in any language
    (``say``); a field may be a ``Said`` of its own. ``str`` gives the English. For
    messages with a structure of their own (a setting's problem, the value it was
    given), which matching finished English against templates could take apart wrongly."""

    def __init__(self, template: str, **fields: object):
        self.template = template
        self.fields = fields

    def say(self, lang: str = DEFAULT) -> str:
        said = {k: v.say(lang) if isinstance(v, (Said, Text)) else v for k, v in self.fields.items()}
        template = words(lang).gettext(self.template)
        try:
            return template.format(**said)
        except (KeyError, IndexError, ValueError):  # a catalog entry that lost a field
            return self.template.format(**said)

    def __str__(self) -> str:
        return self.say(DEFAULT)

    def __repr__(self) -> str:
        return f"Said({self.template!r}, **{self.fields!r})"


class Text:
    """A finished English message (a camera's state, a store's error) kept to be
    said later in any language, as :meth:`Words.text` says it; ``str`` gives the
    English. Taking the error itself keeps ``str`` for when the line is written."""

    __slots__ = ("english",)

    def __init__(self, english: object):
        self.english = english

    def say(self, lang: str = DEFAULT) -> str:
        return words(lang).text(str(self.english))

    def __str__(self) -> str:
        return str(self.english)

    def __repr__(self) -> str:
        return f"Text({self.english!r})"


@lru_cache(maxsize=8)
def words(lang: str) -> Words:
    """The (cached) :class:`Words` of ``lang``."""
    return Words(lang if lang in languages() else DEFAULT)


__all__ = [
    "DEFAULT",
    "LOCALE_DIR",
    "N_",
    "Said",
    "Text",
    "Words",
    "best_match",
    "catalog",
    "language_name",
    "languages",
    "plain",
    "system_language",
    "words",
]
