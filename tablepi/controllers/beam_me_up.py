"""Beam Me Up at the table: camera readings become rolls, the buttons and the
OLED pick options, parts, wildcard columns and bonus squares.

The camera reads the five dice each time they come to rest; a good reading
(five dice, each at least ``MIN_CONFIDENCE`` likely right) becomes a ``roll`` command
(source "camera"). A reading that is not good is shown on the OLED with what
to do: roll again, or enter the roll by hand on a phone (a ``roll`` command
with ``"manual": true``).

After the last roll of a turn, or earlier when the player presses A, the
OLED lists the roll's options: C moves the cursor, A takes the one under it.
Parts, wildcard columns and bonus squares are picked the same way. Every
screen is drawn from the table's public state; the controller keeps only the
cursor and the menu it is in.

In the turn of a seat played by the table (``tablepi.table_player``) the
table plays: the camera's readings are not rolls, and the buttons only undo
(hold A) or, when the table waits after an undo, let it play on (A).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from tablepi.games.errors import RuleError
from tablepi.i18n import N_
from tablepi.table import CommandError
from tablepi.words import COMMAND_WORDS

log = logging.getLogger(__name__)

COLUMNS = ("1", "2", "3", "4", "5", "6", "straight")
DICE = 5
# A roll is taken only when each die is at least this likely right: a roll scored
# wrong costs the game, a refused one a tap on a phone (the reader calls 0.5 sure).
MIN_CONFIDENCE = 0.6
ERROR_SECONDS = 3.0
NO_CAMERA = N_("No camera: enter rolls on a phone")
MAX_SHOWN = 10  # dice a refused reading shows on the OLED (more would be too small to tell)


def _refusal(dice: list[dict[str, Any]], kept: list[int] | None, count: int) -> tuple[str, str] | None:
    """Why a reading cannot be taken as a roll: in a sentence, and in the few
    words an OLED row holds; None if it can."""
    if len(dice) != count:
        return (
            N_("Read {n} dice, need {count}. Roll again or fix it on a phone.").format(
                n=len(dice), count=count
            ),
            N_("Saw {n} dice, not {count}").format(n=len(dice), count=count),
        )
    unsure = [i + 1 for i, d in enumerate(dice) if float(d.get("confidence", 0)) < MIN_CONFIDENCE]
    if unsure:
        which = ", ".join(map(str, unsure))
        short = (
            N_("Die {which} unclear").format(which=which)
            if len(unsure) == 1
            else N_("{n} dice unclear").format(n=len(unsure))
        )
        return N_("Die {which} unclear. Roll again or fix it on a phone.").format(which=which), short
    if kept and Counter(kept) - Counter(int(d["value"]) for d in dice):
        aside = " ".join(map(str, sorted(kept)))
        return (
            N_(
                "The dice set aside ({aside}) do not show. Put them back as they were or fix it on a phone."
            ).format(aside=aside),
            N_("Kept dice moved"),
        )
    return None


def reading_problem(
    dice: list[dict[str, Any]], kept: list[int] | None = None, count: int = DICE
) -> str | None:
    """Why a reading cannot be taken as a roll, in words for the pages; None if it can.

    The table knows how many dice there are (five, the ones set aside among
    them), so a reading of another count is refused rather than guessed at,
    and so is one in which a die set aside shows another value."""
    refusal = _refusal(dice, kept, count)
    return None if refusal is None else refusal[0]


def short_problem(dice: list[dict[str, Any]], kept: list[int] | None = None, count: int = DICE) -> str | None:
    """``reading_problem`` in a few words, for a row of the OLED."""
    refusal = _refusal(dice, kept, count)
    return None if refusal is None else refusal[1]


def kept_marks(values: list[int], kept: list[int]) -> tuple[int, ...]:
    """Which of ``values`` (by index) show the dice set aside, each kept value once."""
    left = Counter(kept)
    marks = []
    for index, value in enumerate(values):
        if left[value] > 0:
            left[value] -= 1
            marks.append(index)
    return tuple(marks)


def seen_dice(dice: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the store keeps of a camera reading: each die's value, where it
    lay and how sure the reader was."""
    kept = []
    for d in dice:
        confidence = round(float(d.get("confidence", 0)), 3)
        die: dict[str, Any] = {"value": int(d["value"]), "confidence": confidence}
        if d.get("box") is not None:
            die["box"] = [round(float(v), 1) for v in d["box"]]
        kept.append(die)
    return kept


def roll_command(
    values: list[int],
    kept: list[int] | None = None,
    manual: bool = False,
    seen: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    command: dict[str, Any] = {"type": "roll", "dice": [int(v) for v in values]}
    if seen is not None:
        command["seen"] = seen_dice(seen)
    if kept:
        command["kept"] = [int(v) for v in kept]
    if manual:
        command["manual"] = True
    return command


def _plus(squares: int, column: str) -> str:
    """ "+2 col 3" or "+2 straight": an OLED row for moving up in a column."""
    if column == "straight":
        return N_("+{squares} straight").format(squares=squares)
    return N_("+{squares} col {column}").format(squares=squares, column=column)


def _column_name(column: str) -> str:
    return N_("straight") if column == "straight" else N_("col {column}").format(column=column)


def best_keep_words(state: dict[str, Any]) -> list[str]:
    """The advice's best keep for the roll on the table, in three OLED rows."""
    from tablepi.games.beam_me_up.advice import Advisor, Position

    advice = Advisor(Position.from_public(state)).advise(state["dice"], state["max_rolls"] - state["roll"])
    best = advice.best
    if best.stop:
        chosen = next((c["option"] for c in advice.play if c["type"] == "choose"), None)
        options = state.get("options", [])
        what = (
            N_("end the turn")
            if chosen is None
            else N_("play {option}").format(option=short_option(options[chosen]))
        )
    else:
        what = (
            N_("keep {dice}").format(dice=" ".join(map(str, best.keep)))
            if best.keep
            else N_("roll all again")
        )
    return [
        N_("Best:"),
        what,
        N_("wins {win}").format(win=format(best.win, ".0%"))
        if best.win >= 0.005
        else N_("worth {value}").format(value=format(best.value, ".1f")),
    ]


def short_option(option: dict[str, Any]) -> str:
    """An option in the few characters an OLED row holds ("+3 in 4 & +2 in 6"):
    the squares and columns are what a player picks by; the phone has the words."""
    parts = option.get("parts") or []
    if not parts:
        return str(option.get("text", "?"))
    return " & ".join(
        N_("+{squares} straight").format(squares=p["squares"])
        if p["column"] == "straight"
        else N_("+{squares} in {column}").format(squares=p["squares"], column=p["column"])
        for p in parts
    )


def setup_wait(state: dict[str, Any]) -> str:
    """What the table waits for during the set-up step, before any roll."""
    name = state.get("turn", {}).get("name", "")
    due = state.get("advantage_due", 1)
    return (
        N_("Set-up first: {name} moves {due} counters up one square. Then roll.")
        if due != 1
        else N_("Set-up first: {name} moves {due} counter up one square. Then roll.")
    ).format(name=name, due=due)


class BeamMeUpController:
    """Buttons, camera readings and the OLED for a game of Beam Me Up."""

    kind = "beam_me_up"

    def __init__(
        self,
        table: Any,
        display: Any,
        buzzer: Any = None,
        clock: Callable[[], float] | None = None,
        roll: Callable[[], None] | None = None,
        table_player: Any = None,
    ) -> None:
        import time

        self.table = table
        self.display = display
        self.buzzer = buzzer
        self.clock = clock or time.monotonic
        self.roll = roll  # re-rolls a simulated camera's dice; None at a real table
        self.cursor = 0
        self.menu = "auto"  # "auto" (follow the phase), "options" or "column"
        self.part: int | None = None  # the part whose wildcard column is being picked
        self.picked: list[str] = []  # advantage columns picked so far
        self.note: str | None = None  # a problem with the last reading, until the next roll
        self.last_reading: list[int] | None = None
        self.last_kept: list[int] = []  # the dice set aside when last_reading was read
        self.last_seen: list[dict[str, Any]] | None = None  # last_reading as the camera read it
        self.kept: list[int] = []  # indices of the roll's dice marked as set aside (phones, /device)
        self.camera_ok = True
        self.table_player = table_player  # plays the seats played by the table
        self._public: dict[str, Any] | None = None
        self._state: dict[str, Any] | None = None
        self._signature: tuple | None = None
        self._error_until = 0.0

    # -- inputs --------------------------------------------------------------

    def on_state(self, public_state: dict[str, Any]) -> None:
        game = public_state.get("game") if public_state else None
        if not game or game.get("kind") != self.kind:
            self._state = None
            return
        state = game["state"]
        self._public = public_state
        chosen = state.get("chosen") or {}
        signature = (
            game.get("id"),
            public_state.get("seq"),
            state.get("phase"),
            state.get("turn", {}).get("index"),
            state.get("roll"),
            tuple(chosen.get("parts_left", ())),
            state.get("bonus_owed"),
            state.get("advantage_due"),
        )
        if signature != self._signature:
            self._signature = signature
            self.cursor = 0
            self.menu = "auto"
            self.part = None
            if state.get("phase") != "advantage":
                self.picked = []
            if state.get("roll") != (self._state or {}).get("roll") or state.get("dice") is None:
                self.note = None if self.camera_ok else NO_CAMERA
                self.kept = []
        self._state = state
        self.redraw()

    def on_button(self, action: str) -> None:
        if self._state is None:
            return
        handler = getattr(self, f"_do_{action}", None)
        if handler is None:
            log.debug("no Beam Me Up action %r", action)
            return
        self._error_until = 0.0
        if self._table_turn() and action not in ("undo", "wake"):
            self._table_button(action)
        else:
            handler()
        self.redraw()

    def _table_turn(self) -> bool:
        from tablepi.games.beam_me_up.autoplay import table_to_act

        return self._state is not None and table_to_act(self._state)

    def _table_waiting(self) -> str | None:
        if self.table_player is None or self._public is None:
            return None
        return self.table_player.waiting(self._public)

    def _table_button(self, action: str) -> None:
        """A button in a turn the table plays: A lets it play on after an undo."""
        name = self._state.get("turn", {}).get("name", "")
        if action == "confirm" and self._table_waiting() == "undo" and self.table_player.play_on():
            return
        self._show_error(N_("The table plays {name}'s turn. Hold A to undo.").format(name=name))

    def on_reading(
        self,
        dice: list[dict[str, Any]],
        kept: list[int] | None = None,
        forced: bool = False,
        play: bool = True,
    ) -> bool:
        """A settled camera reading; True if it became a roll. With ``play``
        False (dice not seen moving) it is only remembered, for B to take.

        A reading with the same dice as the roll already on the table is the
        player moving dice about (to the keep area, say), not a new roll,
        unless ``forced`` (the dice were re-rolled on purpose, or B asked for
        the reading to be taken)."""
        state = self._state
        if self._table_turn():
            return False  # the table throws its own dice: the tray is nobody's roll
        if state is not None and state.get("phase") == "advantage" and play:
            self._show_error(setup_wait(state))
            return False
        if state is None or state.get("phase") != "rolling":
            return False
        problem = reading_problem(dice, kept)
        if not play:
            if problem is None:
                self.last_reading = [int(d["value"]) for d in dice]
                self.last_kept = list(kept or [])
                self.last_seen = list(dice)
            return False
        if state.get("roll", 0) >= state.get("max_rolls", 3):
            self._show_error(N_("Three rolls done: pick an option (A) or end the turn (hold B)."))
            return False
        if problem:
            # Shown to everyone (OLED, phones, TV) until it is fixed or thrown again.
            self.note = problem
            refused = {"dice": seen_dice(dice), "problem": problem, "kept": [int(v) for v in kept or []]}
            self._show_refused(refused)
            return False
        self._show_refused(None)
        values = [int(d["value"]) for d in dice]
        self.last_reading = values
        self.last_kept = list(kept or [])
        self.last_seen = list(dice)
        if not forced and state.get("dice") is not None and Counter(values) == Counter(state["dice"]):
            # Most likely the dice were moved about (to the keep area, say), not rolled.
            self.note = N_("Same dice as the last roll: taken as moved. Press B to play it as a new roll.")
            self._show_error(self.note)
            return False
        self.note = None
        return self._submit(roll_command(values, kept, seen=dice), source="camera")

    def _show_refused(self, reading: dict[str, Any] | None) -> None:
        show = getattr(self.table, "show_refused", None)
        if show is not None:
            show(reading)
        self.on_state(self.table.public_state())

    def on_kept(self, kept: list[int]) -> None:
        """Dice of the roll marked as set aside on a phone or /device."""
        self.kept = list(kept)
        self.redraw()

    def on_camera(self, state: str) -> None:
        """The camera is "lost", "absent" or "ok" again: say what still works."""
        self.camera_ok = state == "ok"
        if not self.camera_ok:
            self.note = NO_CAMERA
        elif self.note == NO_CAMERA:
            self.note = None
        self.redraw()

    def tick(self, now: float) -> None:
        if self._error_until and now >= self._error_until:
            self._error_until = 0.0
            self.redraw()

    # -- actions (names from buttons.json) -------------------------------------

    def _do_wake(self) -> None:
        pass

    def _do_cycle(self) -> None:
        items = self._items()
        if items:
            self.cursor = (self.cursor + 1) % len(items)

    def _do_show_options(self) -> None:
        state = self._state
        if state["phase"] == "rolling" and state.get("dice") is not None:
            self.menu = "options"
            self.cursor = 0
            # The best keep, for a few seconds over the options.
            self.redraw()
            self.display.message(best_keep_words(state))
            self._error_until = self.clock() + ERROR_SECONDS

    def _do_undo(self) -> None:
        game = self.table.public_state().get("game") or {}
        undo = game.get("undo")
        if undo is None:
            self._show_error(N_("Nothing to undo."))
            return
        if self._submit({"type": "undo", "seq": undo["seq"]}):
            # Say what went, as the phones do.
            self.display.message(["Undone:", COMMAND_WORDS.get(str(undo.get("type")), "the last move")])
            self._error_until = self.clock() + ERROR_SECONDS

    def _do_end_turn(self) -> None:
        self._submit({"type": "end_turn"})

    def _do_roll(self) -> None:
        if self._state.get("phase") == "advantage":
            self._show_error(setup_wait(self._state))
            return
        if self.roll is not None:
            try:
                self.roll()
            except RuntimeError as exc:
                self._show_error(str(exc))
            return
        # At a real table B takes the last reading as a roll, for when a
        # re-roll happened to show the same dice as before.
        if not self.camera_ok:
            self._show_error(N_("No camera: enter the roll on a phone."))
        elif self.last_reading is not None:
            reading = self.last_seen or [{"value": v, "confidence": 1.0} for v in self.last_reading]
            self.on_reading(reading, self.last_kept, forced=True)
        else:
            self._show_error(N_("Roll the dice in the tray."))

    def _do_confirm(self) -> None:
        state = self._state
        phase = state["phase"]
        items = self._items()
        if phase == "advantage":
            column = self._free_columns()[self.cursor % len(items)]
            self.picked.append(column)
            self.cursor = 0
            if len(self.picked) == state["advantage_due"]:
                columns, self.picked = self.picked, []
                self._submit({"type": "advantage", "columns": columns})
            return
        if phase == "rolling":
            if state.get("dice") is None:
                return
            if self.menu != "options" and state["roll"] < state["max_rolls"]:
                self.menu = "options"
                self.cursor = 0
                return
            options = state.get("options", [])
            if self.cursor < len(options):
                self._submit({"type": "choose", "option": self.cursor})
            else:
                self._submit({"type": "end_turn"})
            return
        if phase == "moving":
            parts = (state.get("chosen") or {}).get("parts_left", [])
            if self.menu == "column" and self.part is not None:
                column = self._column_order(self.part)[self.cursor]
                self._submit({"type": "move", "part": self.part, "column": column})
                return
            if self.cursor >= len(parts):
                self._submit({"type": "end_turn"})
                return
            part = parts[self.cursor]
            if state.get("wildcard"):
                self.menu, self.part, self.cursor = "column", part, 0
                return
            self._submit({"type": "move", "part": part})
            return
        if phase == "bonus":
            self._submit({"type": "bonus", "column": COLUMNS[self.cursor % len(COLUMNS)]})

    # -- menus ---------------------------------------------------------------

    def _free_columns(self) -> list[str]:
        return [c for c in COLUMNS if c not in self.picked]

    def _part(self, index: int) -> dict[str, Any]:
        chosen = self._state.get("chosen") or {}
        return chosen.get("parts", [])[index]

    def _column_order(self, part: int) -> list[str]:
        own = self._part(part)["column"]
        return [own] + [c for c in COLUMNS if c != own]

    def _items(self) -> list[str]:
        state = self._state
        phase = state["phase"]
        if phase == "advantage":
            return [_column_name(c) for c in self._free_columns()]
        if phase == "rolling":
            if state.get("dice") is None:
                return []
            if self.menu != "options" and state["roll"] < state["max_rolls"]:
                return []
            options = [short_option(o) for o in state.get("options", [])]
            return options + ["End turn" if options else "No option: end turn"]
        if phase == "moving":
            if self.menu == "column" and self.part is not None:
                squares = self._part(self.part)["squares"]
                return [_plus(squares, c) for c in self._column_order(self.part)]
            parts = (state.get("chosen") or {}).get("parts_left", [])
            items = []
            for j in parts:
                part = self._part(j)
                items.append(_plus(part["squares"], part["column"]))
            return items + ["End turn"]
        if phase == "bonus":
            return [_plus(1, c) for c in COLUMNS]
        return []

    # -- output --------------------------------------------------------------

    def redraw(self) -> None:
        state = self._state
        if state is None or self._error_until:
            return
        name = state.get("turn", {}).get("name", "")
        phase = state["phase"]
        items = self._items()
        if items:
            self.cursor %= len(items)
        if phase == "over":
            winner = (state.get("winner") or {}).get("name", "")
            self.display.message([N_("{name} wins!").format(name=winner), "Beam Me Up", N_("Hold A to undo")])
        elif self._table_turn():
            note = "Undone. A: play on" if self._table_waiting() == "undo" else "The table plays"
            dice = state.get("dice")
            if phase == "rolling" and dice is not None:
                self.display.dice(list(dice), name, note)
            else:
                self.display.message([name, N_("played by the table"), note])
        elif phase == "advantage":
            need = state["advantage_due"] - len(self.picked)
            self.display.options(
                items, self.cursor, title=N_("{name}: +1 in {need} col").format(name=name, need=need)
            )
        elif phase == "rolling" and not items and self._refused() is not None:
            refused = self._refused()
            values = [int(d["value"]) for d in refused["dice"]][:MAX_SHOWN]
            short = short_problem(refused["dice"], refused.get("kept")) or "Not played"
            marks = kept_marks(values, refused.get("kept") or [])
            self.display.dice(values, short, N_("Roll again or fix it"), kept=marks)
        elif phase == "rolling" and not items:
            dice = state.get("dice")
            if dice is None:
                self.display.dice([None] * DICE, name, self.note or N_("Roll the dice"))
            else:
                note = self.note or N_("Roll {roll}/{max_rolls}  A: options").format(
                    roll=state["roll"], max_rolls=state["max_rolls"]
                )
                self.display.dice(list(dice), name, note, kept=tuple(self.kept))
        elif phase == "rolling":
            self.display.options(items, self.cursor, title=N_("{name}: pick an option").format(name=name))
        elif phase == "moving":
            title = (
                N_("Wildcard column")
                if self.menu == "column"
                else N_("{name}: move a part").format(name=name)
            )
            self.display.options(items, self.cursor, title=title)
        elif phase == "bonus":
            self.display.options(
                items, self.cursor, title=N_("Rocket! bonus x{n}").format(n=state.get("bonus_owed", 1))
            )

    def _refused(self) -> dict[str, Any] | None:
        """The camera reading refused where the table stands (public state)."""
        return ((self._public or {}).get("game") or {}).get("refused_reading")

    def _show_error(self, message: str) -> None:
        self.display.error(message)
        self._error_until = self.clock() + ERROR_SECONDS
        # Phones show it too: a player at the table may not be looking at the OLED.
        publish = getattr(self.table, "publish", None)
        if publish is not None:
            publish("refused", {"message": message, "source": "button"})

    def _submit(self, command: dict[str, Any], source: str = "button") -> bool:
        try:
            self.table.submit(command, source)
            return True
        except (RuleError, CommandError) as exc:
            self._show_error(exc.message)
            return False


Controller = BeamMeUpController
