"""What a command from the web may look like, checked field by field before
it reaches the table.

Each command type has a schema: its fields, each with a type and bounds. The
games still judge legality (``RuleError``); this only keeps malformed or
oversized input out. There is deliberately no command for the danger coin:
the flip happens on the table's own button and display, never over the web.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tablepi.games import KINDS

# Bounds on anything a phone may send; generous for play, tight for abuse.
MAX_INT = 1_000_000
MAX_STR = 200
MAX_LIST = 100
MAX_DEPTH = 8
MAX_KEYS = 50


class Malformed(ValueError):
    """The request body is not a well-formed command (a 400)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"error": self.message, "rule": "request"}


class WrongChoice(Malformed):
    """A field that tells one variant of a command from another did not match."""


Check = Callable[[Any, str], None]


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = True


def encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8: JSON's \\ud800 escapes can
    make lone surrogates, which no page or file can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def integer(lo: int = -MAX_INT, hi: int = MAX_INT) -> Check:
    def check(value: Any, where: str) -> None:
        # bool is an int in Python but never a number in a command.
        if isinstance(value, bool) or not isinstance(value, int):
            raise Malformed(f"{where} must be a whole number")
        if not lo <= value <= hi:
            raise Malformed(f"{where} must be between {lo} and {hi}")

    return check


def boolean(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise Malformed(f"{where} must be true or false")


def string(max_len: int = MAX_STR, choices: tuple[str, ...] | None = None) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, str):
            raise Malformed(f"{where} must be a string")
        if not encodable(value):
            raise Malformed(f"{where} is not valid text (it holds a lone UTF-16 surrogate)")
        if len(value) > max_len:
            raise Malformed(f"{where} is longer than {max_len} characters")
        if choices is not None and value not in choices:
            raise WrongChoice(f"{where} must be one of {', '.join(choices)}")

    return check


def list_of(item: Check, max_len: int = MAX_LIST, min_len: int = 0) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list):
            raise Malformed(f"{where} must be a list")
        if not min_len <= len(value) <= max_len:
            raise Malformed(f"{where} must hold {min_len} to {max_len} items")
        for i, v in enumerate(value):
            item(v, f"{where}[{i}]")

    return check


def dict_of(key: Check, value: Check, max_len: int = MAX_KEYS, min_len: int = 0) -> Check:
    def check(v: Any, where: str) -> None:
        if not isinstance(v, dict):
            raise Malformed(f"{where} must be an object")
        if not min_len <= len(v) <= max_len:
            raise Malformed(f"{where} must hold {min_len} to {max_len} entries")
        for k, item in v.items():
            key(k, f"{where} key")
            value(item, f"{where}[{k[:40]!r}]")

    return check


def one_of(*checks: Check) -> Check:
    def check(value: Any, where: str) -> None:
        errors = []
        for c in checks:
            try:
                c(value, where)
                return
            except Malformed as exc:
                errors.append(exc.message)
        raise Malformed(" or ".join(dict.fromkeys(errors)))

    return check


def null(value: Any, where: str) -> None:
    if value is not None:
        raise Malformed(f"{where} must be null")


def optional(check: Check) -> Check:
    return one_of(null, check)


def plain_json(value: Any, where: str, depth: int = 0) -> None:
    """Any JSON value within the size bounds (for game settings, whose keys
    the game itself checks)."""
    if depth > MAX_DEPTH:
        raise Malformed(f"{where} is nested too deeply")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        integer()(value, where)
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_INT:
            raise Malformed(f"{where} must be a number between {-MAX_INT} and {MAX_INT}")
    elif isinstance(value, str):
        string()(value, where)
    elif isinstance(value, list):
        if len(value) > MAX_LIST:
            raise Malformed(f"{where} holds more than {MAX_LIST} items")
        for i, v in enumerate(value):
            plain_json(v, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        if len(value) > MAX_KEYS:
            raise Malformed(f"{where} has more than {MAX_KEYS} fields")
        for k, v in value.items():
            string(40)(k, f"{where} field name")
            plain_json(v, f"{where}.{k}", depth + 1)
    else:  # pragma: no cover - json.loads makes nothing else
        raise Malformed(f"{where} has an unsupported value")


def settings(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise Malformed(f"{where} must be an object")
    plain_json(value, where)


def _check_fields(value: dict, fields: Mapping[str, Field], where: str) -> None:
    # Fields that pick a command's variant are judged first, so that a command
    # meant for one variant is not told about another variant's fields.
    deferred: Malformed | None = None
    for name, field in fields.items():
        if name in value:
            try:
                field.check(value[name], f"{where}.{name}")
            except WrongChoice:
                raise
            except Malformed as exc:
                deferred = deferred or exc
    unknown = sorted(set(value) - set(fields))
    if unknown:
        shown = ", ".join(repr(k)[:40] for k in unknown[:5])
        raise Malformed(f"{where} has unknown field(s) {shown}")
    for name, field in fields.items():
        if field.required and name not in value:
            raise Malformed(f"{where} needs the field {name!r}")
    if deferred is not None:
        raise deferred


def req(check: Check) -> Field:
    return Field(check)


def opt(check: Check) -> Field:
    return Field(check, required=False)


# Table-level commands, common to every game.
TABLE_COMMANDS: dict[str, dict[str, Field]] = {
    "new_game": {"kind": req(string(40, tuple(KINDS))), "settings": opt(settings)},
    "end_game": {},
    "undo": {"seq": opt(integer(1, MAX_INT))},
    "resume_game": {"game": req(integer(1, MAX_INT))},
}

NAME = string(60)
# "manual" marks a command typed in by hand rather than read by the table.
MANUAL = {"manual": opt(boolean)}

# Game commands, by type; see each game's module docstring. The table stamps
# the time ("at") itself, so a client may not send one.
OUTER_SPACE: dict[str, dict[str, Field]] = {
    "leader": {"player": req(NAME)},
    "partner": {"player": req(NAME)},
    "next_phase": {},
    "vote": {
        "votes": req(dict_of(NAME, integer(0, 100), max_len=12, min_len=1)),
        "tie_break": opt(optional(NAME)),
    },
    "timer_start": {},
    "timer_pause": {},
    "timer_reset": {},
    "result": {"winner": req(string(20, ("humans", "aliens")))},
}

COLUMN = string(10)
DIE = integer(1, 6)
BEAM_ME_UP: dict[str, dict[str, Field]] = {
    "advantage": {"columns": req(list_of(COLUMN, max_len=3, min_len=1))},
    "roll": {"dice": req(list_of(DIE, max_len=10)), "kept": opt(list_of(DIE, max_len=10))},
    "choose": {"option": req(integer(0, 100))},
    "move": {"part": req(integer(0, 10)), "column": opt(optional(COLUMN))},
    "bonus": {"column": req(COLUMN)},
    "end_turn": {},
}

PLAYER = integer(0, 5)
BEAN = string(40)
CARDS = list_of(integer(1, 9), max_len=15, min_len=1)
OPEN, SECRET = string(10, ("open",)), string(10, ("secret",))
SPACE_BEANS: dict[str, dict[str, Field] | list[dict[str, Field]]] = {
    "close_out": {"player": req(PLAYER)},
    "reveal": {"player": req(PLAYER), "bean": req(BEAN), "cards": req(CARDS)},
    "add": [
        {"player": req(PLAYER), "collection": req(OPEN), "bean": req(BEAN), "cards": req(CARDS)},
        # A secret addition is a count only: the schema has no room for its cards.
        {"player": req(PLAYER), "collection": req(SECRET), "count": req(integer(1, 15))},
    ],
    "end_turn": {},
    "final": {"player": req(PLAYER), "bean": req(BEAN), "cards": req(CARDS)},
}

GAME_COMMANDS: dict[str, dict[str, dict[str, Field] | list[dict[str, Field]]]] = {
    "beam_me_up": BEAM_ME_UP,
    "outer_space": OUTER_SPACE,
    "space_beans": SPACE_BEANS,
}

_TYPE = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _candidates(ctype: str, kind: str | None) -> list[dict[str, Field]]:
    """The schemas a command of this type may follow: the table's own, else
    the game on the table's (or, with no game, any game's: the table then
    answers that there is no game)."""
    if ctype in TABLE_COMMANDS:
        return [TABLE_COMMANDS[ctype]]
    games = [GAME_COMMANDS[kind]] if kind in GAME_COMMANDS else list(GAME_COMMANDS.values())
    found = []
    for game in games:
        schema = game.get(ctype)
        for fields in schema if isinstance(schema, list) else [schema] if schema is not None else []:
            found.append({**MANUAL, **fields})
    return found


def parse(body: bytes, kind: str | None = None) -> dict[str, Any]:
    """The command in a request body, or ``Malformed`` saying what is wrong."""
    if not body:
        raise Malformed("send the command as a JSON object in the request body")
    try:
        command = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Malformed("the request body is not valid JSON") from None
    validate(command, kind)
    return command


def validate(command: Any, kind: str | None = None) -> None:
    """Raise ``Malformed`` unless ``command`` fits a schema; ``kind`` is the
    game on the table, if any."""
    if not isinstance(command, dict):
        raise Malformed("a command must be a JSON object")
    ctype = command.get("type")
    if not isinstance(ctype, str):
        raise Malformed('a command needs a "type" string')
    candidates = _candidates(ctype, kind) if _TYPE.fullmatch(ctype) else []
    if not candidates:
        shown = ctype if len(ctype) <= 40 else ctype[:40] + "..."
        game = f" in {kind}" if kind else ""
        raise Malformed(f"unknown command type {shown!r}{game}")
    errors: list[Malformed] = []
    for fields in candidates:
        try:
            _check_fields(command, {"type": req(string(40)), **fields}, "command")
            return
        except Malformed as exc:
            errors.append(exc)
    # The variant whose distinguishing fields matched says best what is wrong.
    relevant = [e for e in errors if not isinstance(e, WrongChoice)] or errors
    raise Malformed(" or ".join(dict.fromkeys(e.message for e in relevant)))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
