"""Words for players: what the pages and the OLED say, without the rule codes
("B7", "S2", "rule pin") that the games and the API keep for developers."""

from __future__ import annotations

import re

from tablepi.i18n import N_, RULE_REF

# What each button action (tablepi/controllers/buttons.json) does, in words.
ACTION_WORDS = {
    "wake": N_("light the screen"),
    "confirm": N_("take the option shown"),
    "undo": N_("undo the last move"),
    "end_turn": N_("end the turn"),
    "roll": N_("roll (read the dice)"),
    "cycle": N_("next option"),
    "show_options": N_("list the options"),
    "timer_toggle": N_("start or pause the timer"),
    "timer_reset": N_("reset the timer"),
    "coin": N_("flip the danger coin"),
    "next_phase": N_("next phase"),
    "show_leader": N_("show who leads"),
}


# What a command is, for "Undo the roll" and "Undone: the roll".
COMMAND_WORDS = {
    "roll": N_("the roll"),
    "choose": N_("the option chosen"),
    "move": N_("the move"),
    "bonus": N_("the bonus square"),
    "advantage": N_("the set-up move"),
    "end_turn": N_("the end of the turn"),
    "leader": N_("the new leader"),
    "partner": N_("the partner chosen"),
    "next_phase": N_("the phase change"),
    "vote": N_("the vote"),
    "timer_start": N_("the timer start"),
    "timer_pause": N_("the timer pause"),
    "timer_reset": N_("the timer reset"),
    "result": N_("the mission result"),
    "add": N_("the cards added"),
    "close_out": N_("the close-out"),
    "reveal": N_("the secret collection turned face up"),
    "final": N_("the secret collection entered"),
}


# A step the table played itself (tablepi.table_player), said so that "Undo
# ..." and "Undone: ..." read as sentences.
TABLE_COMMAND_WORDS = {
    "roll": N_("the roll thrown by the table"),
    "choose": N_("the option the table chose"),
    "move": N_("the table's move"),
    "bonus": N_("the bonus square the table placed"),
    "advantage": N_("the table's set-up move"),
    "end_turn": N_("the end of the table's turn"),
}


def command_words(entry: dict | None) -> str:
    """A logged command ({"type", "source", "manual", ...}) in a few words."""
    if not entry:
        return ""
    kind = str(entry.get("type") or "")
    if entry.get("source") == "table" and not entry.get("manual"):
        return TABLE_COMMAND_WORDS.get(kind, N_("the table's last step"))
    if kind == "roll":
        return N_("the roll entered by hand") if entry.get("manual") else N_("the roll read by the camera")
    return COMMAND_WORDS.get(kind, N_("the last move"))


def plain(text: str) -> str:
    """``text`` with its rule references taken out."""
    return RULE_REF.sub("", text)


def action_words(action: str | None) -> str:
    """What a button action does, for a player."""
    if not action:
        return ""
    return ACTION_WORDS.get(action, action.replace("_", " "))


def keep_words(keep: dict) -> str:
    """A keep the advice suggests ({"keep": [5, 5, 5], "stop": False}), as a
    player says it: "Keep 5 5 5", "Roll all again" or "Play this roll"."""
    if keep.get("stop"):
        return N_("Play this roll")
    if keep.get("keep"):
        return N_("Keep {dice}").format(dice=" ".join(str(v) for v in keep["keep"]))
    return N_("Roll all again")


# A folder named in a problem: the stream every viewer reads gets its last name only.
_FOLDER = re.compile(r"(?<![\w.~])(?:~/|/)(?:[^\s/:;,()'\"]+/)*(?=[^\s/:;,()'\"]+)")


def public_words(message: str) -> str:
    """A problem as every viewer may read it: the folders it names cut to their last name
    (the whole path is for /healthz with the PIN, the terminal and the log)."""
    return _FOLDER.sub("…/", message)
