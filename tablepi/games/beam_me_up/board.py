"""Player boards (rulings B1, B2): seven columns, rows from 0 to the top, and
where a board's rockets, pink stars and blue stars lie.

Rows: row 0 is the black start row, rows 1..``top_row`` climb; a counter on
``space_row`` or above is in space. The four printed boards differ only in
their specials, so they ship as data (``layouts.json``, boards A..D); players
whose printed board differs can load their own layout, from a file or a dict
in the same form::

    {"name": "My board", "space_row": 6, "top_row": 7,
     "rockets":    [{"column": "1", "row": 2}, ...],
     "pink_stars": [{"column": "straight", "row": 4}, ...],
     "blue_stars": [{"column": "5", "row": 3}, ...]}

``space_row`` and ``top_row`` may be left out (6 and 7).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from tablepi.games.beam_me_up.options import COLUMNS
from tablepi.games.errors import RuleError
from tablepi.i18n import N_

SPECIALS: tuple[str, ...] = ("rockets", "pink_stars", "blue_stars")
# Singular words for messages and views.
SPECIAL_WORDS = {"rockets": "rocket", "pink_stars": "pink star", "blue_stars": "blue star"}
DEFAULT_SPACE_ROW = 6
DEFAULT_TOP_ROW = 7
# A printed board has 8 rows; a home-made one gets some room, not unlimited.
MAX_TOP_ROW = 20


class LayoutError(RuleError):
    """A layout that cannot be a board; the message names the bad square."""

    def __init__(self, message: str) -> None:
        super().__init__("B2", message)


@dataclass(frozen=True)
class Layout:
    """Where one board's special squares lie. Squares are (column, row)."""

    name: str
    rockets: frozenset[tuple[str, int]]
    pink_stars: frozenset[tuple[str, int]]
    blue_stars: frozenset[tuple[str, int]]
    space_row: int = DEFAULT_SPACE_ROW
    top_row: int = DEFAULT_TOP_ROW

    def special_at(self, column: str, row: int) -> str | None:
        """The special on a square: "rocket", "pink star", "blue star" or None."""
        square = (column, row)
        for kind in SPECIALS:
            if square in getattr(self, kind):
                return SPECIAL_WORDS[kind]
        return None

    def is_star(self, column: str, row: int) -> bool:
        return (column, row) in self.pink_stars or (column, row) in self.blue_stars

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "space_row": self.space_row, "top_row": self.top_row}
        for kind in SPECIALS:
            squares = sorted(getattr(self, kind), key=lambda s: (COLUMNS.index(s[0]), s[1]))
            data[kind] = [{"column": column, "row": row} for column, row in squares]
        return data


def _row_number(value: Any, what: str) -> int:
    if type(value) is not int:
        raise LayoutError(f"{what} must be a whole number, not {value!r}")
    return value


def layout_from_dict(data: Any, default_name: str = "custom") -> Layout:
    """Check a layout dict and build the Layout, or raise LayoutError."""
    if not isinstance(data, dict):
        raise LayoutError("a layout is an object with rockets, pink_stars and blue_stars")
    unknown = set(data) - {"name", "space_row", "top_row", *SPECIALS}
    if unknown:
        raise LayoutError(f"unknown layout field(s): {', '.join(sorted(map(str, unknown)))}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        raise LayoutError(f"a layout name is 1..40 characters, not {name!r}")
    top_row = _row_number(data.get("top_row", DEFAULT_TOP_ROW), "top_row")
    if not 2 <= top_row <= MAX_TOP_ROW:
        raise LayoutError(f"top_row must be 2..{MAX_TOP_ROW}, not {top_row}")
    space_row = _row_number(data.get("space_row", DEFAULT_SPACE_ROW), "space_row")
    if not 1 <= space_row <= top_row:
        raise LayoutError(f"space_row must be 1..{top_row} (the top row), not {space_row}")

    taken: dict[tuple[str, int], str] = {}
    found: dict[str, frozenset[tuple[str, int]]] = {}
    for kind in SPECIALS:
        word = SPECIAL_WORDS[kind]
        entries = data.get(kind, [])
        if not isinstance(entries, list):
            raise LayoutError(f"{kind} must be a list of squares")
        squares = []
        for entry in entries:
            if not isinstance(entry, dict) or set(entry) != {"column", "row"}:
                raise LayoutError(f'a {word} must be {{"column": ..., "row": ...}}, not {entry!r}')
            column, row = entry["column"], entry["row"]
            where = f"{word} at column {column!r}, row {row!r}"
            if column not in COLUMNS:
                raise LayoutError(f"{where}: unknown column (columns are 1..6 and straight)")
            if type(row) is not int:
                raise LayoutError(f"{where}: the row must be a whole number")
            if row == 0:
                raise LayoutError(f"{where}: row 0 is the start row and holds no special squares")
            if not 1 <= row <= top_row:
                raise LayoutError(f"{where}: row out of range (rows 1..{top_row})")
            square = (column, row)
            if square in taken:
                other = taken[square]
                detail = "listed twice" if other == word else f"already holds a {other}"
                raise LayoutError(f"column {column}, row {row}: {detail}; a square holds one special")
            taken[square] = word
            squares.append(square)
        found[kind] = frozenset(squares)
    return Layout(name=name, space_row=space_row, top_row=top_row, **found)


def load_layout(source: str | Path | dict[str, Any]) -> Layout:
    """A layout from a JSON file (path) or a dict; LayoutError if it is not a board."""
    if not isinstance(source, str | Path):
        return layout_from_dict(source)
    path = Path(source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LayoutError(f"cannot read layout file {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(f"layout file {path} is not valid JSON: {exc}") from None
    return layout_from_dict(data, default_name=path.stem)


# The printed boards' names (layouts.json), for the catalogs: the pages show them translated.
BOARD_NAMES = (N_("Board A"), N_("Board B"), N_("Board C"), N_("Board D"))


@cache
def default_layouts() -> dict[str, Layout]:
    """The four printed boards, A..D, from the package's layouts.json."""
    text = resources.files(__package__).joinpath("layouts.json").read_text(encoding="utf-8")
    return {key: layout_from_dict(data, default_name=key) for key, data in json.loads(text).items()}
