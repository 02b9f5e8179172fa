"""The table as a player: the next command for a seat played by the table.

A seat is played by the table when its settings say ``"table": true`` (the
public view shows it as ``players[i]["table"]``). Everything here reads the
game's public state only and changes nothing, so a turn can be taken up
anywhere: after an undo, after a restart, after a person played a step of it.
The one random part, the dice, comes from a random source passed in.

- the set-up (B10): the counters whose first square is worth most (the
  advice's potential), the straight column first on a tie: it is the hardest
  to move and has to leave row 0 to win;
- rolling: the first roll throws all five dice; after it, the advice's best
  keep (``advice.Advisor``): stop and play the roll when stopping ranks
  first (or no roll is left), otherwise set the keep aside and roll the rest;
- choosing: the option the advice's value function ranks best (or end the
  turn when none is worth playing);
- moving, bonus squares: the best way to play the rest of the chosen option
  from where the counters stand now (``Advisor.finish``).

``next_command(state)`` is deterministic; a roll comes out without its dice
(``{"type": "roll", "kept": [...]}``) and ``throw(state, command, rng)`` adds
them. ``describe(state, command)`` says the step in a few words for the pages.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tablepi.games.beam_me_up.advice import Advisor, Position, _cell_values
from tablepi.games.beam_me_up.board import layout_from_dict
from tablepi.games.beam_me_up.options import COLUMNS, STRAIGHT
from tablepi.i18n import N_

DICE = 5


def table_seats(state: dict[str, Any]) -> list[int]:
    """The seats of a game's public state that the table plays."""
    return [i for i, p in enumerate(state.get("players") or []) if p.get("table")]


def table_to_act(state: dict[str, Any]) -> bool:
    """Whether the seat to act now is played by the table (and the game goes on)."""
    if state.get("winner") or state.get("finished") or state.get("phase") == "over":
        return False
    turn = state.get("turn") or {}
    players = state.get("players") or []
    seat = turn.get("index")
    return isinstance(seat, int) and 0 <= seat < len(players) and bool(players[seat].get("table"))


def next_command(state: dict[str, Any]) -> dict[str, Any] | None:
    """The table's next command for the seat to act, or None when that seat
    is not the table's (or the game is over). A roll has no dice yet: see
    ``throw``."""
    if not table_to_act(state):
        return None
    phase = state["phase"]
    if phase == "advantage":
        return {"type": "advantage", "columns": advantage_columns(state)}
    position = Position.from_public(state)
    if phase == "rolling":
        dice = state.get("dice")
        if not dice:
            return {"type": "roll"}
        left = int(state["max_rolls"]) - int(state["roll"])
        advice = Advisor(position).advise(dice, max(0, left))
        best = advice.best
        if best.stop:
            return dict(advice.play[0])
        command: dict[str, Any] = {"type": "roll"}
        if best.keep:
            command["kept"] = list(best.keep)
        return command
    if phase in ("moving", "bonus"):
        chosen = state.get("chosen") or {}
        parts = tuple((str(p["column"]), int(p["squares"])) for p in chosen.get("parts", []))
        left = tuple(int(i) for i in chosen.get("parts_left", []))
        advisor = Advisor(position)
        advisor.wildcard = bool(state.get("wildcard"))  # set at the choice, for the whole move (B9)
        steps = advisor.finish(parts, left, bonus_owed=phase == "bonus")
        return dict(steps[0]) if steps else {"type": "end_turn"}
    return None


def advantage_columns(state: dict[str, Any]) -> list[str]:
    """The columns the seat to act moves up one square in the set-up (B10)."""
    seat = int(state["turn"]["index"])
    player = state["players"][seat]
    cells = _cell_values(layout_from_dict(player["layout"]))
    rows = player["counters"]
    top = int(player["layout"].get("top_row", 7))

    def worth(i: int) -> tuple[float, bool, int]:
        column = COLUMNS[i]
        row = int(rows[column])
        gain = cells[i][row + 1] - cells[i][row] if row < top else -1.0
        return (gain, column == STRAIGHT, -i)

    ranked = sorted(range(len(COLUMNS)), key=worth, reverse=True)
    return [COLUMNS[i] for i in ranked[: int(state["advantage_due"])]]


def throw(state: dict[str, Any], command: dict[str, Any], rng: Any) -> dict[str, Any]:
    """The roll ``command`` with its dice thrown by ``rng`` (anything with
    ``randint``, such as ``random.Random(seed)``): the dice set aside stay
    where they lay in the last roll, the others are thrown again."""
    kept = [int(v) for v in command.get("kept") or []]
    last = state.get("dice") or []
    aside = Counter(kept)
    dice = []
    for value in last if kept else [None] * DICE:
        if value is not None and aside[value] > 0:
            aside[value] -= 1
            dice.append(int(value))
        else:
            dice.append(int(rng.randint(1, 6)))
    thrown: dict[str, Any] = {"type": "roll", "dice": dice}
    if kept:
        thrown["kept"] = kept
    return thrown


def _where(column: str) -> str:
    return N_("the straight column") if column == STRAIGHT else N_("column {column}").format(column=column)


def describe(state: dict[str, Any], command: dict[str, Any]) -> str:
    """The table's next step in a few words ("keeps 5 5 and rolls 3 dice again")."""
    kind = command.get("type")
    if kind == "advantage":
        columns = [_where(c) for c in command.get("columns", [])]
        if len(columns) == 1:
            return N_("moves {where} up one square").format(where=columns[0])
        return N_("moves {where} and {where2} up one square").format(
            where=", ".join(columns[:-1]), where2=columns[-1]
        )
    if kind == "roll":
        kept = command.get("kept") or []
        if not state.get("dice"):
            return N_("rolls the dice")
        if not kept:
            return N_("rolls all five dice again")
        again = DICE - len(kept)
        return (
            N_("keeps {kept} and rolls {again} die again")
            if again == 1
            else N_("keeps {kept} and rolls {again} dice again")
        ).format(kept=" ".join(map(str, kept)), again=again)
    if kind == "choose":
        options = state.get("options") or []
        index = int(command.get("option", 0))
        if not 0 <= index < len(options):
            return N_("plays an option")
        return N_("plays “{option}”").format(option=options[index]["text"])
    if kind == "move":
        chosen = state.get("chosen") or {}
        part = chosen.get("parts", [])[int(command.get("part", 0))]
        column = command.get("column") or part["column"]
        squares = int(part["squares"])
        return (
            N_("moves its counter in {where} up {squares} square")
            if squares == 1
            else N_("moves its counter in {where} up {squares} squares")
        ).format(where=_where(column), squares=squares)
    if kind == "bonus":
        return N_("places the rocket's bonus square in {where}").format(
            where=_where(command.get("column", ""))
        )
    if kind == "end_turn":
        if state.get("phase") == "rolling" and not state.get("options"):
            return N_("passes, as the roll has no option")
        return N_("ends the turn")
    return str(kind)
