"""The Beam Me Up game: boards, turns, moves and the win (rulings B6-B12).

Pure rules over plain data: the dice come in as commands, nothing here reads
a clock, a camera or a random source. See the package docstring for the
command vocabulary.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tablepi.games.beam_me_up.board import Layout, default_layouts, layout_from_dict
from tablepi.games.beam_me_up.options import COLUMNS, TABLE, Option, check_dice
from tablepi.games.errors import RuleError
from tablepi.games.names import clean_name
from tablepi.i18n import N_

_INT_ONLY = {int}
PHASES = ("advantage", "rolling", "moving", "bonus", "over")
MAX_ROLLS = 3  # B11
_COLUMN_INDEX = {column: i for i, column in enumerate(COLUMNS)}
_FIELDS = {
    "advantage": frozenset({"type", "columns"}),
    "roll": frozenset({"type", "dice", "kept"}),
    "choose": frozenset({"type", "option"}),
    "move": frozenset({"type", "part", "column"}),
    "bonus": frozenset({"type", "column"}),
    "end_turn": frozenset({"type"}),
}


# Plain words computed once, for the notes written on every move.
_WHERE = {
    c: (N_("the straight column") if c == "straight" else N_("column {column}").format(column=c))
    for c in COLUMNS
}
_SQUARES = {n: (N_("{n} square") if n == 1 else N_("{n} squares")).format(n=n) for n in range(8)}
# The words _plural counts, each as one and as many.
_COUNTED = {
    "counter": (N_("{n} counter"), N_("{n} counters")),
    "option": (N_("{n} option"), N_("{n} options")),
    "part": (N_("{n} part"), N_("{n} parts")),
    "square": (N_("{n} square"), N_("{n} squares")),
}
# Dice shown in the roll note, sorted, by sorted roll.
_SHOWN = {key: " ".join(map(str, key)) for key in TABLE}


def _plural(n: int, word: str) -> str:
    one, many = _COUNTED[word]
    return (one if n == 1 else many).format(n=n)


def _column(command: dict, key: str = "column") -> str:
    column = command.get(key)
    if not isinstance(column, str) or column not in _COLUMN_INDEX:
        raise RuleError(
            "command",
            N_("{key} must be one of {list}, not {column}").format(
                key=key, list=", ".join(COLUMNS), column=repr(column)
            ),
        )
    return column


def _whole(command: dict, key: str) -> int:
    value = command.get(key)
    if type(value) is not int:
        raise RuleError(
            "command", N_("{key} must be a whole number, not {value}").format(key=key, value=repr(value))
        )
    return value


def _without(values: list[int], taken: list[int]) -> list[int] | None:
    """values minus the multiset taken, or None if taken is not inside values."""
    rest = list(values)
    for v in taken:
        try:
            rest.remove(v)
        except ValueError:
            return None
    return rest


def _check_settings(settings: Any) -> list[tuple[str, Layout, list[int]]]:
    """The players' names, layouts and starting rows, or RuleError("settings")."""
    if not isinstance(settings, dict):
        raise RuleError("settings", N_("settings must be an object with a players list"))
    if settings.get("advantage", True) not in (True, False):
        raise RuleError("settings", N_("advantage must be true or false"))
    unknown = set(settings) - {"players", "advantage"}
    if unknown:
        raise RuleError(
            "settings", N_("unknown setting(s): {list}").format(list=", ".join(sorted(map(str, unknown))))
        )
    players = settings.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise RuleError("settings", N_("Beam Me Up is for 2 to 4 players"))
    boards = default_layouts()
    seats: list[tuple[str, Layout, list[int]]] = []
    for seat, player in enumerate(players):
        if not isinstance(player, dict) or set(player) - {"name", "board", "layout", "counters", "table"}:
            raise RuleError(
                "settings", N_("player {n}: give a name and a board (A-D) or a layout").format(n=seat + 1)
            )
        name = clean_name(player.get("name"), f"player {seat + 1}")
        if name.casefold() in (n.casefold() for n, _, _ in seats):
            raise RuleError(
                "settings", N_("two players are called {name}; names must differ").format(name=repr(name))
            )
        if type(player.get("table", False)) is not bool:
            raise RuleError(
                "settings", N_("{name}: table (played by the table) must be true or false").format(name=name)
            )
        if "board" in player and "layout" in player:
            raise RuleError("settings", N_("{name}: give a board or a layout, not both").format(name=name))
        if "layout" in player:
            layout = layout_from_dict(player["layout"], default_name=f"{name}'s board")
        else:
            board = player.get("board", "ABCD"[seat])
            if board not in boards:
                choices = ", ".join(boards)
                raise RuleError(
                    "settings",
                    N_("{name}: board must be one of {choices}, not {board}").format(
                        name=name, choices=choices, board=repr(board)
                    ),
                )
            layout = boards[board]
        seats.append((name, layout, _start_rows(name, player.get("counters", {}), layout)))
    return seats


def _start_rows(name: str, counters: Any, layout: Layout) -> list[int]:
    """Where a player's counters start: row 0, or where a game carried over stood."""
    if not isinstance(counters, dict):
        raise RuleError("settings", N_("{name}: counters map columns to rows").format(name=name))
    rows = [0] * len(COLUMNS)
    for column, row in counters.items():
        if column not in _COLUMN_INDEX:
            raise RuleError(
                "settings",
                N_("{name}: unknown column {column} in counters").format(name=name, column=repr(column)),
            )
        if type(row) is not int or not 0 <= row <= layout.top_row:
            top = layout.top_row
            raise RuleError(
                "settings",
                N_("{name}: the counter in column {column} needs a row 0..{top}").format(
                    name=name, column=column, top=top
                ),
            )
        rows[_COLUMN_INDEX[column]] = row
    return rows


class BeamMeUp:
    """A game of Beam Me Up in progress. Build with ``from_settings`` or
    ``from_dict``; change only through ``push`` and ``pop``."""

    kind = "beam_me_up"
    takes_at = False  # the rules never read the clock

    def __init__(self, settings: dict[str, Any]) -> None:
        seats = _check_settings(settings)
        try:
            self._settings = json.loads(json.dumps(settings))
        except (TypeError, ValueError):
            raise RuleError("settings", N_("settings must be plain JSON data")) from None
        self._names = [name for name, _, _ in seats]
        # Seats played by the table (tablepi.table_player): the rules treat them like any other.
        self._by_table = [bool(player.get("table", False)) for player in settings["players"]]
        self._layouts = [layout for _, layout, _ in seats]
        n = len(seats)
        self._n = n
        self._need = 5 if n == 2 else 4  # B12
        self._top = [layout.top_row for layout in self._layouts]
        self._space = [layout.space_row for layout in self._layouts]
        # Specials as (column index, row) sets, for the hot path.
        self._rockets = [{(_COLUMN_INDEX[c], r) for c, r in lay.rockets} for lay in self._layouts]
        self._blue = [{(_COLUMN_INDEX[c], r) for c, r in lay.blue_stars} for lay in self._layouts]
        self._stars = [
            blue | {(_COLUMN_INDEX[c], r) for c, r in lay.pink_stars}
            for blue, lay in zip(self._blue, self._layouts, strict=True)
        ]
        self._rows = [rows for _, _, rows in seats]
        self._phase = "advantage" if settings.get("advantage", True) else "rolling"
        self._due = 1  # the seat giving the starting player's advantage next (B10)
        self._active = 0
        self._roll_no = 0
        self._dice: list[int] | None = None
        self._kept: list[int] = []
        self._options: list[Option] = []
        self._chosen: int | None = None
        self._parts_left: list[int] = []
        self._wildcard = False
        self._bonus = 0
        self._winner: int | None = None
        if self._phase == "advantage":
            self._effects = [
                N_("set-up (B10): {name} moves 1 counter up one square").format(name=self._names[1])
            ]
        else:
            self._effects = [N_("{name}'s turn").format(name=self._names[0])]
        self._commands: list[dict[str, Any]] = []

    # -- construction and the protocol -------------------------------------------------

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> BeamMeUp:
        return cls(settings)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BeamMeUp:
        if not isinstance(data, dict) or set(data) != {"kind", "settings", "commands"}:
            raise RuleError("saved-game", N_("a saved game has kind, settings and commands"))
        if not isinstance(data["commands"], list):
            raise RuleError("saved-game", N_("a saved game has kind, settings and commands"))
        if data["kind"] != cls.kind:
            raise RuleError("saved-game", N_("not a Beam Me Up game: {data}").format(data=repr(data["kind"])))
        game = cls(data["settings"])
        for number, command in enumerate(data["commands"], 1):
            try:
                game.push(command)
            except RuleError as exc:
                raise RuleError(
                    exc.rule,
                    N_("saved command {number} is illegal: {message}").format(
                        number=number, message=exc.message
                    ),
                ) from None
        return game

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "settings": copy.deepcopy(self._settings),
            "commands": copy.deepcopy(self._commands),
        }

    def push(self, command: dict[str, Any]) -> None:
        """Validate and apply one command; a RuleError leaves the game unchanged."""
        if not isinstance(command, dict):
            raise RuleError("command", N_("a command is an object with a type"))
        kind = command.get("type")
        try:
            fields = _FIELDS.get(kind)
        except TypeError:  # an unhashable type, such as a list
            fields = None
        if fields is None:
            raise RuleError(
                "command",
                N_("unknown command type {kind}; one of {list}").format(
                    kind=repr(kind), list=", ".join(_FIELDS)
                ),
            )
        if not fields.issuperset(command):
            extra = ", ".join(sorted(map(str, set(command) - fields)))
            raise RuleError(
                "command", N_("unknown field(s) for {kind}: {extra}").format(kind=kind, extra=extra)
            )
        if self._phase == "over":
            raise RuleError("B12", N_("the game is over: {name} won").format(name=self._names[self._winner]))
        if self._bonus and kind != "bonus":
            raise RuleError("B8", N_("a rocket's bonus square is owed: place it first"))
        effects: list[str] = []
        stored = _HANDLERS[kind](self, command, effects)
        self._commands.append(stored)
        self._effects = effects

    def pop(self) -> dict[str, Any]:
        """Take back the last command (by replaying the others) and return it."""
        if not self._commands:
            raise RuleError("undo", N_("nothing to undo"))
        last = self._commands[-1]
        replayed = BeamMeUp(self._settings)
        for command in self._commands[:-1]:
            replayed.push(command)
        self.__dict__.update(replayed.__dict__)
        return last

    @property
    def finished(self) -> bool:
        return self._phase == "over"

    # -- read-only state ---------------------------------------------------------------

    @property
    def phase(self) -> str:
        """One of "advantage", "rolling", "moving", "bonus", "over"."""
        return self._phase

    @property
    def players(self) -> list[str]:
        return list(self._names)

    @property
    def active(self) -> int:
        """Seat of the player to act (in the set-up: the one giving the advantage)."""
        return self._due if self._phase == "advantage" else self._active

    @property
    def advantage_due(self) -> int:
        """How many counters the player due in the set-up moves (B10); 0 after it."""
        return self._due if self._phase == "advantage" else 0

    @property
    def roll_number(self) -> int:
        return self._roll_no

    @property
    def dice(self) -> list[int] | None:
        return None if self._dice is None else list(self._dice)

    @property
    def options(self) -> list[Option]:
        return list(self._options)

    @property
    def chosen(self) -> Option | None:
        return None if self._chosen is None else self._options[self._chosen]

    @property
    def parts_left(self) -> list[int]:
        return list(self._parts_left)

    @property
    def wildcard(self) -> bool:
        return self._wildcard

    @property
    def bonus_owed(self) -> int:
        return self._bonus

    @property
    def winner(self) -> int | None:
        return self._winner

    def roll_facts(self) -> dict[str, Any]:
        """The roll just played, for the table's statistics: who threw it, its
        number in the turn (1 to 3) and whether it offers an option."""
        if not self._commands or self._commands[-1]["type"] != "roll":
            raise RuleError("command", N_("the last command is not a roll"))
        return {
            "player": self._names[self._active],
            "turn_roll": self._roll_no,
            "scored": bool(self._options),
        }

    @property
    def last_effects(self) -> list[str]:
        return list(self._effects)

    @property
    def commands(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self._commands)

    def layout(self, seat: int) -> Layout:
        return self._layouts[seat]

    def row(self, seat: int, column: str) -> int:
        return self._rows[seat][_COLUMN_INDEX[column]]

    def counters(self, seat: int) -> dict[str, int]:
        """Row of each of the seat's counters, by column."""
        return dict(zip(COLUMNS, self._rows[seat], strict=True))

    def in_space(self, seat: int) -> int:
        space = self._space[seat]
        return sum(r >= space for r in self._rows[seat])

    def has_won(self, seat: int) -> bool:
        """B12: enough counters in space and none on row 0."""
        rows = self._rows[seat]
        return 0 not in rows and self.in_space(seat) >= self._need

    # -- commands (each validates everything before it changes anything) ---------------

    def _do_advantage(self, command: dict, effects: list[str]) -> dict:
        if self._phase != "advantage":
            raise RuleError("B10", N_("the starting player's advantage is given only before the first roll"))
        columns = command.get("columns")
        if not isinstance(columns, list):
            raise RuleError("command", N_("columns must be a list of columns"))
        for column in columns:
            if not isinstance(column, str) or column not in _COLUMN_INDEX:
                raise RuleError(
                    "command",
                    N_("columns are {list}, not {column}").format(
                        list=", ".join(COLUMNS), column=repr(column)
                    ),
                )
        # Seat k (the k+1-th player) moves k counters.
        seat = due = self._due
        name = self._names[seat]
        if len(columns) != due:
            raise RuleError(
                "B10",
                N_("{name} moves exactly {count} up one square").format(
                    name=name, count=_plural(due, "counter")
                ),
            )
        if len(set(columns)) != len(columns):
            raise RuleError("B10", N_("the advantage moves counters in different columns"))
        for column in columns:
            self._rows[seat][_COLUMN_INDEX[column]] += 1
        moved = ", ".join(_WHERE[c] for c in columns)
        effects.append(
            N_(
                "starting player's advantage (B10): {name} moves {moved} up one square"
                " (no rockets, no cool downs)"
            ).format(name=name, moved=moved)
        )
        self._due += 1
        if self._due == self._n:
            self._phase = "rolling"
            effects.append(N_("{name}'s turn").format(name=self._names[0]))
        else:
            effects.append(
                N_("set-up (B10): {name} moves {due} counters up one square").format(
                    name=self._names[self._due], due=self._due
                )
            )
        return {"type": "advantage", "columns": list(columns)}

    def _do_roll(self, command: dict, effects: list[str]) -> dict:
        if self._phase == "advantage":
            raise RuleError("B10", N_("the starting player's advantage comes first"))
        if self._phase != "rolling":
            raise RuleError("phase", N_("an option is chosen: move its parts or end the turn"))
        dice = command.get("dice")
        key = check_dice(dice)
        if self._roll_no >= MAX_ROLLS:
            raise RuleError("B11", N_("a turn has at most three rolls: choose an option or end the turn"))
        stored: dict[str, Any] = {"type": "roll", "dice": list(dice)}
        kept = command.get("kept")
        if kept is not None:
            if not isinstance(kept, list) or not {*map(type, kept)} <= _INT_ONLY:
                raise RuleError("command", N_("kept must be a list of die values"))
            if kept and self._dice is None:
                raise RuleError("B11", N_("nothing can be set aside before the first roll"))
            if kept and _without(self._dice, kept) is None:
                raise RuleError(
                    "B11",
                    N_("the dice set aside {kept} are not in the last roll {dice}").format(
                        kept=kept, dice=self._dice
                    ),
                )
            if kept and _without(dice, kept) is None:
                raise RuleError(
                    "B11",
                    N_("the dice set aside {kept} are not in this roll {list}").format(
                        kept=kept, list=list(dice)
                    ),
                )
            stored["kept"] = list(kept)
            self._kept = list(kept)
        else:
            self._kept = []
        self._roll_no += 1
        self._dice = list(dice)
        self._options = list(TABLE[key])
        name = self._names[self._active]
        shown = _SHOWN[key]
        if self._kept:
            shown = N_("{dice} (set aside: {kept})").format(dice=shown, kept=" ".join(map(str, self._kept)))
        if self._options:
            effects.append(
                N_("{name}'s roll {roll_no} of {max_rolls}: {shown}").format(
                    name=name, roll_no=self._roll_no, max_rolls=MAX_ROLLS, shown=shown
                )
            )
        else:
            effects.append(
                N_("{name}'s roll {roll_no} of {max_rolls}: {shown} - no option (B4)").format(
                    name=name, roll_no=self._roll_no, max_rolls=MAX_ROLLS, shown=shown
                )
            )
        return stored

    def _do_choose(self, command: dict, effects: list[str]) -> dict:
        index = _whole(command, "option")
        if self._phase == "advantage":
            raise RuleError("B10", N_("the starting player's advantage comes first"))
        if self._phase != "rolling":
            raise RuleError("phase", N_("an option is already chosen"))
        if self._dice is None:
            raise RuleError("B11", N_("roll the dice first"))
        if not self._options:
            raise RuleError("B4", N_("this roll has no option: roll again or end the turn"))
        if not 0 <= index < len(self._options):
            raise RuleError(
                "B3",
                N_("this roll has {count}; no option {index}").format(
                    count=_plural(len(self._options), "option"), index=index
                ),
            )
        seat = self._active
        self._chosen = index
        option = self._options[index]
        self._parts_left = list(range(len(option.parts)))
        self._wildcard = False
        for square in self._blue[seat]:
            if self._rows[seat][square[0]] == square[1]:
                self._wildcard = True
                break
        self._phase = "moving"
        effects.append(N_("{name} plays {text}").format(name=self._names[seat], text=option.text))
        if self._wildcard:
            effects.append(N_("wildcard (B9): a counter on a blue star lets each part go in any column"))
        return {"type": "choose", "option": index}

    def _do_move(self, command: dict, effects: list[str]) -> dict:
        part = _whole(command, "part")
        if self._phase != "moving":
            if self._phase == "advantage":
                raise RuleError("B10", N_("the starting player's advantage comes first"))
            raise RuleError("phase", N_("choose an option of the roll first"))
        option = self._options[self._chosen]
        if part not in self._parts_left:
            if 0 <= part < len(option.parts):
                raise RuleError("B5", N_("part {part} of this option is already used").format(part=part))
            raise RuleError(
                "B5",
                N_("this option has {count}; no part {part}").format(
                    count=_plural(len(option.parts), "part"), part=part
                ),
            )
        own, squares = option.parts[part]
        # "column": null is the part's own column, as when it is left out.
        given = command.get("column") is not None
        column = _column(command) if given else own
        if column != own and not self._wildcard:
            raise RuleError(
                "B9",
                N_("this part moves {where}; another column needs a counter on a blue star").format(
                    where=_WHERE[own]
                ),
            )
        stored = {"type": "move", "part": part}
        if given:
            stored["column"] = column

        seat = self._active
        name = self._names[seat]
        c = _COLUMN_INDEX[column]
        rows = self._rows[seat]
        old = rows[c]
        new = min(old + squares, self._top[seat])
        moved = new - old
        rows[c] = new
        self._parts_left.remove(part)
        if column != own:
            said = N_("{name} moves {where} up {squares} to row {new} (wildcard, B9)")
        else:
            said = N_("{name} moves {where} up {squares} to row {new}")
        effects.append(said.format(name=name, where=_WHERE[column], squares=_SQUARES[moved], new=new))
        if moved < squares:
            effects.append(
                N_("top of the column (B6): {count} forfeited").format(
                    count=_plural(squares - moved, "square")
                )
            )
        if moved >= 2:
            self._cool_down(c, column, effects)
        elif squares >= 2:
            effects.append(N_("no cool down (B7): fewer than 2 squares were moved"))
        if moved and (c, new) in self._rockets[seat]:
            self._bonus += 1
            effects.append(
                N_("rocket (B8): {name} landed on a rocket; place a bonus square on any counter").format(
                    name=name
                )
            )
        self._after_step(effects)
        return stored

    def _cool_down(self, c: int, column: str, effects: list[str]) -> None:
        for other in range(self._n):
            if other == self._active:
                continue
            name = self._names[other]
            row = self._rows[other][c]
            if row == 0:
                effects.append(
                    N_("cool down (B7): {name}'s counter in {where} is on row 0 and stays").format(
                        name=name, where=_WHERE[column]
                    )
                )
            elif (c, row) in self._stars[other]:
                star = N_("blue") if (c, row) in self._blue[other] else N_("pink")
                effects.append(
                    N_("{name}'s counter on a {star} star is safe from the cool down (B7)").format(
                        name=name, star=star
                    )
                )
            else:
                self._rows[other][c] = row - 1
                effects.append(
                    N_("cool down (B7): {name}'s counter in {where} moves down 1").format(
                        name=name, where=_WHERE[column]
                    )
                )
                if (c, row - 1) in self._rockets[other]:
                    effects.append(
                        N_("{name}'s counter was cooled onto a rocket: no bonus (B8)").format(name=name)
                    )

    def _do_bonus(self, command: dict, effects: list[str]) -> dict:
        column = _column(command)
        if self._phase != "bonus":
            raise RuleError("B8", N_("no bonus square is owed"))
        seat = self._active
        c = _COLUMN_INDEX[column]
        rows = self._rows[seat]
        top = self._top[seat]
        if rows[c] >= top:
            raise RuleError(
                "B8",
                N_("the counter in {where} is at the top; give the bonus square to another").format(
                    where=_WHERE[column]
                ),
            )
        rows[c] += 1
        self._bonus -= 1
        name = self._names[seat]
        effects.append(
            N_("rocket bonus (B8): {name} moves {where} up 1 to row {row} (no cool down)").format(
                name=name, where=_WHERE[column], row=rows[c]
            )
        )
        if (c, rows[c]) in self._rockets[seat]:
            self._bonus += 1
            effects.append(N_("rocket (B8): the bonus square landed on another rocket; place one more"))
        self._after_step(effects)
        return {"type": "bonus", "column": column}

    def _do_end_turn(self, command: dict, effects: list[str]) -> dict:
        if self._phase == "advantage":
            raise RuleError("B10", N_("the starting player's advantage comes first"))
        if self._phase == "rolling" and self._dice is None:
            raise RuleError("B11", N_("roll at least once before ending the turn"))
        name = self._names[self._active]
        if self._phase == "moving":
            effects.append(
                N_("{name} leaves {count} unused (B5)").format(
                    name=name, count=_plural(len(self._parts_left), "part")
                )
            )
        elif not self._options:
            effects.append(N_("{name} passes: the roll has no option (B4)").format(name=name))
        else:
            effects.append(N_("{name} ends the turn without using the roll").format(name=name))
        self._next_turn(effects)
        return {"type": "end_turn"}

    def _after_step(self, effects: list[str]) -> None:
        """Win check after every part and bonus square (B12), then what comes next."""
        seat = self._active
        if self.has_won(seat):
            self._phase = "over"
            self._winner = seat
            self._bonus = 0
            self._parts_left = []
            effects.append(
                N_("{name} wins (B12): {in_space} counters in space and none on row 0").format(
                    name=self._names[seat], in_space=self.in_space(seat)
                )
            )
        elif self._bonus:
            self._phase = "bonus"
        elif self._parts_left:
            self._phase = "moving"
        else:
            self._next_turn(effects)

    def _next_turn(self, effects: list[str]) -> None:
        self._active = (self._active + 1) % self._n
        self._phase = "rolling"
        self._roll_no = 0
        self._dice = None
        self._kept = []
        self._options = []
        self._chosen = None
        self._parts_left = []
        self._wildcard = False
        effects.append(N_("{name}'s turn").format(name=self._names[self._active]))

    # -- the view ----------------------------------------------------------------------

    def public_view(self, now: float | None = None) -> dict[str, Any]:
        """Everything on the table (Beam Me Up has no secrets); ``now`` is unused."""
        players = []
        for seat, name in enumerate(self._names):
            rows = self._rows[seat]
            players.append(
                {
                    "name": name,
                    "layout": self._layouts[seat].to_dict(),
                    "counters": dict(zip(COLUMNS, rows, strict=True)),
                    "in_space": self.in_space(seat),
                    "on_start_row": rows.count(0),
                    "table": self._by_table[seat],
                }
            )
        seat = self.active
        chosen = None
        if self._chosen is not None:
            option = self._options[self._chosen]
            chosen = {
                "index": self._chosen,
                **option.to_dict(),
                "text": option.text,
                "parts_left": list(self._parts_left),
            }
        winner = None
        if self._winner is not None:
            winner = {"index": self._winner, "name": self._names[self._winner]}
        return {
            "game": self.kind,
            "players": players,
            "turn": {"index": seat, "name": self._names[seat]},
            "phase": self._phase,
            "advantage_due": self.advantage_due,
            "roll": self._roll_no,
            "max_rolls": MAX_ROLLS,
            "dice": self.dice,
            "kept": list(self._kept),
            "options": [{**o.to_dict(), "text": o.text} for o in self._options],
            "chosen": chosen,
            "wildcard": self._wildcard,
            "bonus_owed": self._bonus,
            "winner": winner,
            "counters_to_win": self._need,
            "finished": self.finished,
            "last_effects": list(self._effects),
        }


_HANDLERS = {kind: getattr(BeamMeUp, "_do_" + kind) for kind in _FIELDS}
