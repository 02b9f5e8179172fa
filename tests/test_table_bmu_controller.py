"""The Beam Me Up controller: the OLED menus for the advantage, options,
parts, wildcard columns and rocket bonuses, driven by button actions."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.display import TableDisplay
from tablepi.controllers.beam_me_up import (
    ERROR_SECONDS,
    NO_CAMERA,
    BeamMeUpController,
    reading_problem,
    short_problem,
)
from tablepi.store import Store
from tablepi.table import Table


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _setup(tmp_path: Path, settings: dict) -> tuple[Table, TableDisplay, BeamMeUpController, Clock]:
    table = Table(Store(tmp_path))
    display = TableDisplay()
    clock = Clock()
    controller = BeamMeUpController(table, display, None, clock)
    sub = table.subscribe()
    # The service delivers every state event; here each action is followed by one.
    original = table.submit

    def submit(command, source="web"):
        state = original(command, source)
        while sub.get(0) is not None:
            pass
        controller.on_state(state)
        return state

    table.submit = submit  # type: ignore[method-assign]
    table.start_game("beam_me_up", settings)
    return table, display, controller, clock


def _view(table: Table) -> dict:
    return table.public_state()["game"]["state"]


def _dice(values: list[int]) -> list[dict]:
    return [{"value": v, "box": [0, 0, 10, 10], "confidence": 0.9} for v in values]


def test_advantage_columns_are_picked_on_the_oled(tmp_path: Path) -> None:
    names = {"players": [{"name": "Ann"}, {"name": "Ben"}, {"name": "Sam"}]}
    table, display, controller, _ = _setup(tmp_path, names)
    assert display.screen == "options"
    controller.on_button("cycle")
    controller.on_button("confirm")  # Ben: column 2
    assert _view(table)["players"][1]["counters"]["2"] == 1
    controller.on_button("confirm")  # Sam: column 1 ...
    assert table.seq == 1  # ... one of two picked, nothing sent yet
    controller.on_button("confirm")  # ... then the first column left: 2
    view = _view(table)
    assert view["players"][2]["counters"]["1"] == 1 and view["players"][2]["counters"]["2"] == 1
    assert view["phase"] == "rolling"


def test_wildcard_part_goes_to_the_column_picked(tmp_path: Path) -> None:
    settings = {
        "players": [{"name": "Ann", "board": "A", "counters": {"3": 2}}, {"name": "Ben"}],
        "advantage": False,
    }
    table, display, controller, _ = _setup(tmp_path, settings)
    assert controller.on_reading(_dice([1, 1, 2, 4, 6]))
    controller.on_button("confirm")  # show the options
    controller.on_button("confirm")  # pair of 1s
    assert _view(table)["wildcard"] is True
    controller.on_button("confirm")  # its part: now pick the column
    assert display.screen == "options"
    controller.on_button("cycle")  # own column first, then 1..6, straight: "2"
    controller.on_button("confirm")
    logged = table.store.commands(table.game_id)[-1].command
    assert (logged["type"], logged["part"], logged["column"]) == ("move", 0, "2")
    assert _view(table)["players"][0]["counters"]["2"] == 1


def test_rocket_bonus_chain_and_an_error_on_the_oled(tmp_path: Path) -> None:
    settings = {
        "players": [{"name": "Ann", "board": "A", "counters": {"1": 1, "6": 7}}, {"name": "Ben"}],
        "advantage": False,
    }
    table, display, controller, clock = _setup(tmp_path, settings)
    controller.on_reading(_dice([1, 1, 2, 4, 6]), forced=True)
    controller.on_button("show_options")
    controller.on_button("confirm")  # pair of 1s
    controller.on_button("confirm")  # column 1 up to row 2: a rocket
    assert _view(table)["phase"] == "bonus"
    for _ in range(5):
        controller.on_button("cycle")
    controller.on_button("confirm")  # column 6 is at the top: refused
    assert display.screen == "error"
    assert _view(table)["phase"] == "bonus"
    clock.now += ERROR_SECONDS + 0.1
    controller.tick(clock.now)
    assert display.screen == "options"
    for _ in range(6):
        controller.on_button("cycle")  # the cursor stayed on 6; round to column 5
    controller.on_button("confirm")  # column 5 to row 1: another rocket
    assert _view(table)["phase"] == "bonus"
    controller.on_button("confirm")  # column 1
    view = _view(table)
    assert view["players"][0]["counters"]["5"] == 1 and view["players"][0]["counters"]["1"] == 3
    assert view["turn"]["name"] == "Ben"


def test_readings_that_are_not_new_rolls(tmp_path: Path) -> None:
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}
    table, display, controller, _ = _setup(tmp_path, settings)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]), play=False) is False
    assert table.seq == 0  # dice lying in the tray at start-up are not a roll
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    assert controller.on_reading(_dice([6, 5, 3, 3, 2])) is False  # moved about, not rolled
    assert controller.on_reading(_dice([6, 5, 3, 3, 2]), kept=[3, 3], forced=True)
    assert controller.on_reading(_dice([1, 1, 1, 3, 3]), kept=[3, 3])
    assert _view(table)["roll"] == 3
    assert controller.on_reading(_dice([4, 4, 4, 3, 3])) is False  # no fourth roll
    assert display.screen == "error"
    controller.on_button("undo")
    assert _view(table)["roll"] == 2
    controller.on_button("end_turn")
    assert _view(table)["turn"]["name"] == "Ben"


@pytest.mark.parametrize(
    "dice, problem",
    [
        (_dice([1, 2, 3, 4, 5]), None),
        (_dice([1, 2, 3, 4]), "Read 4 dice"),
        (_dice([1, 2, 3, 4, 5, 6]), "Read 6 dice"),
        ([*_dice([1, 2, 3, 4]), {"value": 5, "box": [0, 0, 1, 1], "confidence": 0.49}], "Die 5 unclear"),
        # sure for the reader, yet too close to a coin toss to score a roll on
        ([*_dice([1, 2]), {"value": 3, "box": [0, 0, 1, 1], "confidence": 0.55}, *_dice([4, 5])], "Die 3"),
        ([*_dice([1, 2]), {"value": 3, "box": [0, 0, 1, 1], "confidence": 0.6}, *_dice([4, 5])], None),
    ],
)
def test_reading_problems(dice: list[dict], problem: str | None) -> None:
    found = reading_problem(dice)
    assert found == problem if problem is None else problem in found


def test_without_a_camera_the_oled_points_to_the_phone(tmp_path: Path) -> None:
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}
    table, display, controller, clock = _setup(tmp_path, settings)
    controller.on_camera("lost")
    assert display.screen == "dice" and controller.note == NO_CAMERA
    controller.on_button("roll")
    assert display.screen == "error"
    clock.now += ERROR_SECONDS + 0.1
    controller.tick(clock.now)
    table.submit({"type": "roll", "dice": [1, 2, 3, 4, 6], "manual": True}, "web")
    assert controller.note == NO_CAMERA  # still true after a roll from the phone
    controller.on_camera("ok")
    assert controller.note is None


def test_the_same_dice_again_are_said_to_be_moved_and_b_plays_them_with_the_kept_dice(tmp_path: Path) -> None:
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}
    table, display, controller, _ = _setup(tmp_path, settings)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    # the two 3s set aside, the other three thrown: they happen to show 2, 5, 6 again
    assert controller.on_reading(_dice([6, 5, 3, 3, 2]), kept=[3, 3]) is False
    assert display.screen == "error" and "Same dice as the last roll" in controller.note
    assert table.seq == 1
    controller.on_button("roll")  # B: take it as a new roll
    assert _view(table)["roll"] == 2
    (logged,) = [c.command for c in table.store.commands(table.game_id)][-1:]
    assert logged["kept"] == [3, 3]  # the forced read keeps the dice set aside


@pytest.mark.parametrize(
    "kept, problem",
    [([3, 3], None), ([3], None), ([4], "The dice set aside (4) do not show"), ([3, 3, 3], "(3 3 3)")],
)
def test_a_die_set_aside_must_still_show_its_value(kept: list[int], problem: str | None) -> None:
    found = reading_problem(_dice([2, 3, 3, 5, 6]), kept)
    assert found == problem if problem is None else problem in found


def test_a_reading_that_changes_a_kept_die_is_refused(tmp_path: Path) -> None:
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}
    table, display, controller, _ = _setup(tmp_path, settings)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    assert controller.on_reading(_dice([2, 3, 4, 5, 1]), kept=[3, 3]) is False  # one 3 now reads 4
    assert "set aside (3 3)" in controller.note and display.screen == "dice"
    assert _view(table)["roll"] == 1


def test_a_refused_reading_stays_in_the_public_state_and_on_the_oled_until_fixed(tmp_path: Path) -> None:
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}
    table, display, controller, clock = _setup(tmp_path, settings)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    assert table.public_state()["game"]["refused_reading"] is None
    # The two 3s set aside; the camera sees one of them as a 4.
    seen = [*_dice([2, 3]), {"value": 4, "box": [0, 0, 1, 1], "confidence": 0.93}, *_dice([5, 1])]
    assert controller.on_reading(seen, kept=[3, 3]) is False
    refused = table.public_state()["game"]["refused_reading"]
    assert [d["value"] for d in refused["dice"]] == [2, 3, 4, 5, 1]
    assert refused["dice"][2]["confidence"] == 0.93 and refused["kept"] == [3, 3]
    assert refused["problem"].startswith("The dice set aside (3 3) do not show.")
    # The OLED shows the dice it saw, the one set aside marked, and a reason that fits.
    assert display.screen == "dice"
    assert display.drawn_boxes and all(
        0 <= x0 and 0 <= y0 and x1 <= 128 and y1 <= 64 for x0, y0, x1, y1 in display.drawn_boxes
    )
    clock.now += ERROR_SECONDS + 1  # it stays: not a passing error
    controller.tick(clock.now)
    assert display.screen == "dice" and table.public_state()["game"]["refused_reading"] == refused
    # Fixed by a roll from a phone: gone from the state and the OLED.
    table.submit({"type": "roll", "dice": [2, 3, 3, 5, 1], "kept": [3, 3], "manual": True}, "web")
    assert table.public_state()["game"]["refused_reading"] is None
    # Thrown again: a refused reading is replaced, a good one takes it away.
    assert controller.on_reading(_dice([1, 2, 3]), kept=[]) is False
    assert "Read 3 dice" in table.public_state()["game"]["refused_reading"]["problem"]
    assert controller.on_reading(_dice([6, 6, 4, 4, 4]), forced=True)
    assert table.public_state()["game"]["refused_reading"] is None


@pytest.mark.parametrize(
    "dice, kept",
    [
        (_dice([1, 2, 3]), []),
        (_dice([1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6, 6]), []),
        ([{"value": v, "box": [0, 0, 1, 1], "confidence": 0.3} for v in (1, 2, 3, 4, 5)], []),
        (_dice([1, 1, 1, 1, 1]), [6, 6, 6, 6]),
    ],
)
def test_the_oled_s_reason_for_a_refused_reading_fits_its_row(dice: list[dict], kept: list[int]) -> None:
    from PIL import Image, ImageDraw

    from hardware.screens import Painter

    short = short_problem(dice, kept)
    assert short is not None and reading_problem(dice, kept) is not None
    painter = Painter(ImageDraw.Draw(Image.new("1", (128, 64))), (128, 64))
    assert painter.text_width(short, 12) <= 126, short
    assert painter.text_width("Roll again or fix it", 11) <= 126
