"""Players' names, the same in every game: what a name may be and the one
form the table keeps it in.

A name is normalised (Unicode NFC; control and format characters such as
NUL, the byte-order mark, zero-width spaces and right-to-left marks removed;
any run of spaces one space, none at either end), so "Ann" and "Ann" with a
zero-width space are one player, and a name nobody can see is refused: it
needs a letter, digit, punctuation mark or symbol, and at most NAME_CHARS
characters.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from tablepi.games.errors import RuleError

NAME_CHARS = 40
# Categories dropped from a name: controls, format characters (zero-width,
# direction marks and overrides, the BOM), surrogates and unassigned points.
_DROPPED = {"Cc", "Cf", "Cs", "Cn"}
_VISIBLE = ("L", "N", "P", "S")


def clean_name(value: Any, who: str = "a player") -> str:
    """``value`` as the table keeps a name; ``RuleError`` ("settings") if it is
    not text, has nothing visible or is longer than NAME_CHARS."""
    if not isinstance(value, str):
        raise RuleError("settings", f"{who} needs a name (text)")
    kept = []
    for char in unicodedata.normalize("NFC", value):
        category = unicodedata.category(char)
        if char.isspace() or category.startswith("Z"):
            kept.append(" ")
        elif category not in _DROPPED:
            kept.append(char)
    name = " ".join("".join(kept).split())
    if not any(unicodedata.category(c).startswith(_VISIBLE) for c in name):
        raise RuleError("settings", f"{who} needs a name with a letter, digit or sign in it")
    if len(name) > NAME_CHARS:
        raise RuleError("settings", f"{who}: a name is at most {NAME_CHARS} characters, not {len(name)}")
    return name


def clean_settings(settings: Any) -> Any:
    """``settings`` with each player's name (a name, or an object with one)
    in the form the table keeps; anything else as it was, for the game's own
    rules to judge."""
    if not isinstance(settings, dict) or not isinstance(settings.get("players"), list):
        return settings
    players = []
    for seat, player in enumerate(settings["players"], start=1):
        if isinstance(player, str):
            player = clean_name(player, f"player {seat}")
        elif isinstance(player, dict) and "name" in player:
            player = {**player, "name": clean_name(player["name"], f"player {seat}")}
        players.append(player)
    return {**settings, "players": players}
