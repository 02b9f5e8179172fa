"""Every roll kept with where it came from: camera rolls with each die as read,
phone rolls marked, and stores written before rolls were kept brought up to date."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from hardware.display import TableDisplay
from tablepi.controllers.beam_me_up import BeamMeUpController
from tablepi.store import DB_NAME, SCHEMA_VERSION, Store
from tablepi.table import CommandError, Table

# Written by the program before rolls were kept (schema 1): a Beam Me Up game
# of Ann and Ben with a camera roll (undone), a roll entered on a phone and a
# camera re-roll.
OLD_STORE = Path(__file__).parent / "data" / "store_v1.db"
SETTINGS = {"players": [{"name": "Ann"}, {"name": "Ben"}], "advantage": False}


def _dice(values: list[int]) -> list[dict]:
    return [
        {"value": v, "box": [10.0 * i, 5, 10.0 * i + 8, 13], "confidence": 0.91} for i, v in enumerate(values)
    ]


def _log(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT game_id, seq, command, source, manual FROM commands ORDER BY seq")
        return rows.fetchall()


def test_an_old_store_is_read_as_it_is_and_its_rolls_indexed(tmp_path: Path) -> None:
    shutil.copy(OLD_STORE, tmp_path / DB_NAME)
    before = _log(tmp_path / DB_NAME)
    store = Store(tmp_path)
    assert store.problem is None and store.moved_aside is None
    rolls = store.rolls()
    assert [(r.seq, r.origin, r.dice, r.seen) for r in rolls] == [
        (1, "camera", [2, 3, 3, 5, 6], None),
        (3, "phone", [2, 3, 3, 5, 1], None),
        (4, "camera", [4, 4, 4, 1, 6], None),
    ]
    # The game resumes where it was; the log itself is untouched.
    table = Table(store)
    state = table.public_state()["game"]["state"]
    assert (state["roll"], state["dice"]) == (2, [4, 4, 4, 1, 6])
    store.close()
    assert _log(tmp_path / DB_NAME) == before
    with sqlite3.connect(tmp_path / DB_NAME) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA_VERSION),)
    # Opening it again changes nothing more.
    again = Store(tmp_path)
    assert [r.to_dict() for r in again.rolls()] == [r.to_dict() for r in rolls]
    again.close()


def test_an_old_store_that_cannot_be_written_is_still_read(tmp_path: Path) -> None:
    # A folder the table may not write to is opened read-only, as it is: with
    # no rolls table, the rolls are read from the log.
    (tmp_path / "old").mkdir()
    shutil.copy(OLD_STORE, tmp_path / "old" / DB_NAME)
    store = Store(tmp_path / "new")
    store._conn.close()
    store.path = tmp_path / "old" / DB_NAME
    store._conn = store._open_read_only()
    assert [(r.seq, r.origin) for r in store.rolls()] == [(1, "camera"), (3, "phone"), (4, "camera")]
    assert [(r.seq, r.origin) for r in store.rolls(1)] == [(1, "camera"), (3, "phone"), (4, "camera")]
    store._conn.close()


def _controller(tmp_path: Path) -> tuple[Table, BeamMeUpController]:
    table = Table(Store(tmp_path))
    controller = BeamMeUpController(table, TableDisplay(), None, lambda: 100.0)
    original = table.submit

    def submit(command, source="web"):
        state = original(command, source)
        controller.on_state(state)
        return state

    table.submit = submit  # type: ignore[method-assign]
    table.start_game("beam_me_up", SETTINGS)
    return table, controller


def test_a_camera_roll_keeps_each_die_as_read_and_a_phone_roll_is_marked(tmp_path: Path) -> None:
    table, controller = _controller(tmp_path)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    table.submit({"type": "undo"}, "web")
    table.submit({"type": "roll", "dice": [2, 3, 3, 5, 1], "manual": True}, "web")
    camera, phone = table.store.rolls()
    assert camera.origin == "camera" and camera.dice == [2, 3, 3, 5, 6]
    assert camera.seen == [
        {"value": v, "box": [10.0 * i, 5.0, 10.0 * i + 8, 13.0], "confidence": 0.91}
        for i, v in enumerate([2, 3, 3, 5, 6])
    ]
    assert camera.at is not None
    assert phone.origin == "phone" and phone.seen is None
    # The readings are the table's record, not the rules': the game replays without them.
    table.store.close()
    resumed = Table(Store(tmp_path))
    assert resumed.public_state()["game"]["state"]["dice"] == [2, 3, 3, 5, 1]
    resumed.store.close()


def test_b_plays_the_last_reading_with_its_positions(tmp_path: Path) -> None:
    table, controller = _controller(tmp_path)
    assert controller.on_reading(_dice([2, 3, 3, 5, 6]))
    # The same dice again are taken as moved; B plays them as the camera read them.
    assert not controller.on_reading(_dice([6, 5, 3, 3, 2]))
    controller.camera_ok = True
    controller._do_roll()
    second = table.store.rolls()[-1]
    assert second.seq == 2 and [d["value"] for d in second.seen] == [6, 5, 3, 3, 2]
    assert all(d["confidence"] == 0.91 and len(d["box"]) == 4 for d in second.seen)
    table.store.close()


@pytest.mark.parametrize(
    "seen, message",
    [
        ("five dice", '"seen" must be a list'),
        ([{"value": "6", "confidence": 0.9}], '"seen" die 1 must be an object with a "value"'),
        ([{"value": 6}], '"seen" die 1 needs a "confidence" number'),
        ([{"value": 6, "confidence": 0.9, "box": [1, 2]}], '"seen" die 1 has a "box" that is not four'),
    ],
)
def test_malformed_readings_are_refused_and_nothing_is_kept(tmp_path: Path, seen, message: str) -> None:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", SETTINGS)
    with pytest.raises(CommandError, match=message):
        table.submit({"type": "roll", "dice": [1, 2, 3, 4, 5], "seen": seen}, "camera")
    assert table.seq == 0 and table.store.rolls() == []
    table.store.close()


def test_an_exported_game_brings_its_rolls_along(tmp_path: Path) -> None:
    table, controller = _controller(tmp_path / "a")
    assert controller.on_reading(_dice([1, 1, 4, 5, 6]))
    exported = table.store.export_game(table.store.current_game_id())
    table.store.close()
    other = Store(tmp_path / "b")
    game_id = other.import_game(exported)
    (roll,) = other.rolls(game_id)
    assert roll.origin == "camera" and [d["value"] for d in roll.seen] == [1, 1, 4, 5, 6]
    other.close()
