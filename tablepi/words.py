"""Words for players: what the pages and the OLED say, without the rule codes
("B7", "S2", "rule pin") that the games and the API keep for developers."""

from __future__ import annotations

import re

# "(B10)", "(rule S2)", "(rule pin)", "[T2]": references into the rules, for
# developers reading the API's JSON; a player reads the sentence around them.
_RULE_REF = re.compile(r"\s*[(\[](?:rule\s+)?(?:[A-Z]{1,2}\d+[a-z]?|pin)[)\]]")

# What each button action (tablepi/controllers/buttons.json) does, in words.
ACTION_WORDS = {
    "wake": "light the screen",
    "confirm": "take the option shown",
    "undo": "undo the last move",
    "end_turn": "end the turn",
    "roll": "roll (read the dice)",
    "cycle": "next option",
    "show_options": "list the options",
    "timer_toggle": "start or pause the timer",
    "timer_reset": "reset the timer",
    "coin": "flip the danger coin",
    "next_phase": "next phase",
    "show_leader": "show who leads",
}


# What a command is, for "Undo the roll" and "Undone: the roll".
COMMAND_WORDS = {
    "roll": "the roll",
    "choose": "the option chosen",
    "move": "the move",
    "bonus": "the bonus square",
    "advantage": "the set-up move",
    "end_turn": "the end of the turn",
    "leader": "the new leader",
    "partner": "the partner chosen",
    "next_phase": "the phase change",
    "vote": "the vote",
    "timer_start": "the timer start",
    "timer_pause": "the timer pause",
    "timer_reset": "the timer reset",
    "result": "the mission result",
    "add": "the cards added",
    "close_out": "the close-out",
    "reveal": "the secret collection turned face up",
    "final": "the secret collection entered",
}


# A step the table played itself (tablepi.table_player), said so that "Undo
# ..." and "Undone: ..." read as sentences.
TABLE_COMMAND_WORDS = {
    "roll": "the roll thrown by the table",
    "choose": "the option the table chose",
    "move": "the table's move",
    "bonus": "the bonus square the table placed",
    "advantage": "the table's set-up move",
    "end_turn": "the end of the table's turn",
}


def command_words(entry: dict | None) -> str:
    """A logged command ({"type", "source", "manual", ...}) in a few words."""
    if not entry:
        return ""
    kind = str(entry.get("type") or "")
    if entry.get("source") == "table" and not entry.get("manual"):
        return TABLE_COMMAND_WORDS.get(kind, "the table's last step")
    words = COMMAND_WORDS.get(kind, "the last move")
    if kind == "roll":
        words += " entered by hand" if entry.get("manual") else " read by the camera"
    return words


def plain(text: str) -> str:
    """``text`` with its rule references taken out."""
    return _RULE_REF.sub("", text)


def action_words(action: str | None) -> str:
    """What a button action does, for a player."""
    if not action:
        return ""
    return ACTION_WORDS.get(action, action.replace("_", " "))


def keep_words(keep: dict) -> str:
    """A keep the advice suggests ({"keep": [5, 5, 5], "stop": False}), as a
    player says it: "Keep 5 5 5", "Roll all again" or "Play this roll"."""
    if keep.get("stop"):
        return "Play this roll"
    if keep.get("keep"):
        return "Keep " + " ".join(str(v) for v in keep["keep"])
    return "Roll all again"
