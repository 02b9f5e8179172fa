"""What the Beam Me Up controller says to players: the set-up step, options
short enough for an OLED row, and refusals shown on the phones too."""

from __future__ import annotations

from pathlib import Path

from hardware.display import TableDisplay
from tablepi.controllers.beam_me_up import BeamMeUpController, short_option
from tablepi.store import Store
from tablepi.table import Table


def _table(tmp_path: Path, advantage: bool = True) -> tuple[Table, TableDisplay, BeamMeUpController]:
    table = Table(Store(tmp_path))
    display = TableDisplay()
    controller = BeamMeUpController(table, display, None, lambda: 100.0, roll=lambda: None)
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": advantage}
    controller.on_state(table.start_game("beam_me_up", settings))
    return table, display, controller


def _dice(values: list[int]) -> list[dict]:
    return [{"value": v, "box": [0, 0, 10, 10], "confidence": 0.9} for v in values]


def test_a_roll_during_the_set_up_step_says_what_the_table_waits_for(tmp_path: Path) -> None:
    table, display, controller = _table(tmp_path)
    sub = table.subscribe()
    assert not controller.on_reading(_dice([1, 2, 3, 4, 5]))
    assert display.screen == "error"
    event = sub.get(1)
    assert event.type == "refused"
    assert event.data["message"] == "Set-up first: Ben moves 1 counter up one square. Then roll."
    controller.on_button("roll")  # B in simulation: not rolled, the same words
    assert sub.get(1).data["message"].startswith("Set-up first: Ben")
    assert table.seq == 0  # nothing recorded


def test_oled_options_fit_a_row(tmp_path: Path) -> None:
    assert short_option({"parts": [{"column": "4", "squares": 3}, {"column": "6", "squares": 2}]}) == (
        "+3 in 4 & +2 in 6"
    )
    assert short_option({"parts": [{"column": "straight", "squares": 4}]}) == "+4 straight"
    table, display, controller = _table(tmp_path, advantage=False)
    assert controller.on_reading(_dice([4, 4, 4, 6, 6]))
    controller.on_state(table.public_state())
    controller.on_button("confirm")
    items = controller._items()
    assert items[0] == "+2 in 4 & +1 in 6"  # the full house, not "full house: triplet of 4s +3 in..."
    assert all("(" not in item for item in items)


def test_dice_set_aside_are_marked_on_the_oled(tmp_path: Path) -> None:
    table, display, controller = _table(tmp_path, advantage=False)
    assert controller.on_reading(_dice([6, 2, 6, 3, 1]))
    controller.on_state(table.public_state())
    plain = display.image.copy()
    controller.on_kept([0, 2])
    marked = display.image.copy()
    assert display.screen == "dice" and marked.tobytes() != plain.tobytes()
    # The marks go with the roll: the next one starts unmarked.
    controller.on_state(table.submit({"type": "roll", "dice": [6, 6, 1, 1, 4], "kept": [6, 6]}))
    assert controller.kept == []


def test_a_long_a_says_what_it_undid(tmp_path: Path) -> None:
    table, display, controller = _table(tmp_path, advantage=False)
    controller.on_button("undo")
    assert display.screen == "error"  # nothing to undo yet
    assert controller.on_reading(_dice([6, 2, 6, 3, 1]))
    controller.on_state(table.public_state())
    controller.on_button("undo")
    assert display.screen == "message"
    assert table.public_state()["game"]["last"]["undid"]["type"] == "roll"
    assert table.public_state()["game"]["state"]["dice"] is None


def test_a_long_c_shows_the_best_keep_over_the_options(tmp_path: Path) -> None:
    table, display, controller = _table(tmp_path, advantage=False)
    shown: list[list[str]] = []
    say = display.message
    display.message = lambda lines, mirror=None: (shown.append(list(lines)), say(lines, mirror))
    assert controller.on_reading(_dice([5, 5, 5, 2, 3]))
    controller.on_state(table.public_state())
    controller.on_button("show_options")
    assert controller.menu == "options" and display.screen == "message"
    assert shown[-1][0] == "Best:" and shown[-1][1].startswith("keep ")
    # With no rolls left the best is to play the roll (or end the turn): never a keep.
    for dice in ([1, 1, 2, 3, 6], [4, 4, 2, 3, 6]):
        controller.on_state(table.submit({"type": "roll", "dice": dice}))
    controller.on_button("show_options")
    assert shown[-1][1].startswith(("play ", "end the turn")), shown[-1]
    # After a few seconds the options come back.
    controller.clock = lambda: 200.0
    controller.tick(200.0)
    assert display.screen == "options"


def test_the_advice_reads_the_public_state_as_it_reads_the_game(tmp_path: Path) -> None:
    from tablepi.games.beam_me_up.advice import Position

    table, _, controller = _table(tmp_path, advantage=True)
    table.submit({"type": "advantage", "columns": ["3"]})
    table.submit({"type": "roll", "dice": [1, 1, 2, 3, 4]})
    table.submit({"type": "choose", "option": 0})
    state = table.public_state()["game"]["state"]
    assert Position.from_public(state) == Position.from_game(table._game)


def test_a_keep_is_worded_the_same_on_the_phone_the_tv_and_the_oled() -> None:
    from tablepi.words import keep_words

    assert keep_words({"keep": [5, 5, 5], "stop": False}) == "Keep 5 5 5"
    assert keep_words({"keep": [], "stop": False}) == "Roll all again"
    assert keep_words({"keep": [2, 3, 4, 5, 6], "stop": True}) == "Play this roll"


def test_a_name_of_the_game_s_longest_fits_every_oled_screen_of_a_turn(tmp_path: Path) -> None:
    from tablepi.games.names import NAME_CHARS

    long = "W" * NAME_CHARS
    table = Table(Store(tmp_path))
    display = TableDisplay()
    controller = BeamMeUpController(table, display, None, lambda: 100.0, roll=lambda: None)
    settings = {"players": [{"name": long}, {"name": "Ann"}], "advantage": False}
    screens = set()
    for command in (None, {"type": "roll", "dice": [4, 4, 1, 2, 6]}):
        state = table.start_game("beam_me_up", settings) if command is None else table.submit(command)
        controller.on_state(state)
        for action in (None, "confirm"):
            if action:
                controller.on_button(action)
            screens.add(display.screen)
            assert display.drawn_boxes
            assert all(
                0 <= x0 and 0 <= y0 and x1 <= 128 and y1 <= 64 for x0, y0, x1, y1 in display.drawn_boxes
            )
    assert screens >= {"dice", "options"}
