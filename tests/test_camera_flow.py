"""Beam Me Up from the camera: synthetic dice are rendered, the settle
detector and the dice reader read them, the controller turns each reading
into a roll and the buttons pick options and parts on the OLED."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from hardware.cameras import SyntheticCamera
from hardware.display import TableDisplay
from tablepi.config import Config
from tablepi.controllers.beam_me_up import BeamMeUpController, reading_problem
from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.options import options
from tablepi.service import Service
from tablepi.store import Store
from tablepi.table import Table
from vision.settle import READING, ROLLING, Settler

SETTINGS = {"players": [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}]}


def _settle(camera: SyntheticCamera, settler: Settler, t: float) -> tuple[float, list]:
    """Feed frames until the settler reads the dice; returns (time, dice)."""
    saw_motion = False
    for _ in range(40):
        t += 1 / 15
        event = settler.feed(camera.read(), t)
        if event is not None and event.kind == ROLLING:
            saw_motion = True
        if event is not None and event.kind == READING:
            assert saw_motion
            return t, event.dice
    raise AssertionError("the dice never settled")


def _in_camera_order(camera: SyntheticCamera, dice: list) -> list[int]:
    """The values read, matched to the camera's dice by position."""
    values = []
    for truth in camera.dice:
        cx, cy = truth.center
        nearest = min(dice, key=lambda d: math.dist(d.center, (cx, cy)))
        assert math.dist(nearest.center, (cx, cy)) < truth.size / 2
        values.append(nearest.value)
    return values


@pytest.mark.parametrize("seed", [3, 11])
def test_seeded_rolls_give_the_expected_options_and_board(tmp_path: Path, seed: int) -> None:
    table = Table(Store(tmp_path))
    display = TableDisplay()
    controller = BeamMeUpController(table, display, None, time.monotonic)
    table.start_game("beam_me_up", SETTINGS, source="web")
    controller.on_state(table.submit({"type": "advantage", "columns": ["6"]}, "web"))
    shadow = BeamMeUp.from_settings(SETTINGS)
    shadow.push({"type": "advantage", "columns": ["6"]})

    camera = SyntheticCamera(seed=seed, dice=5)
    settler = Settler(still_seconds=0.3)
    t, _ = 0.0, settler.feed(camera.read(), 0.0)
    turns = refused = manual = 0
    while turns < 4:
        keep: list[int] = []
        for roll_no in range(1, 4):
            kept_values = [camera.values[i] for i in keep] if keep else []
            for _ in range(3):
                camera.roll(keep=keep)
                kept_values = [camera.values[i] for i in keep]
                t, dice = _settle(camera, settler, t)
                readings = [d.to_dict() for d in dice]
                if reading_problem(readings, kept_values) is None:
                    break
                # A reading the table cannot trust is not played; the OLED
                # asks for another throw or a fix on a phone.
                assert not controller.on_reading(readings, kept_values, forced=True)
                assert display.screen == "dice"
                assert table.public_state()["game"]["refused_reading"]["problem"]
                assert table.public_state()["game"]["state"]["roll"] == roll_no - 1
                refused += 1
            if reading_problem(readings, kept_values) is None:
                # A roll the table takes is the roll on the table: never a wrong one.
                assert _in_camera_order(camera, dice) == camera.values
                assert controller.on_reading(readings, kept_values, forced=True)
                values = [d["value"] for d in readings]
            else:
                # Three throws refused (a die the reader doubts each time): the player fixes it on a phone.
                values = list(camera.values)
                fixed = {"type": "roll", "dice": values, "manual": True}
                if kept_values:
                    fixed["kept"] = kept_values
                controller.on_state(table.submit(fixed, "web"))
                manual += 1
            roll = {"type": "roll", "dice": values}
            if kept_values:
                roll["kept"] = kept_values
            shadow.push(roll)
            state = table.public_state()
            controller.on_state(state)
            view = state["game"]["state"]
            assert view["roll"] == roll_no
            assert sorted(view["dice"]) == sorted(camera.values)
            assert [o["text"] for o in view["options"]] == [o.text for o in options(camera.values)]
            if view["options"] and roll_no >= 2:
                break
            # Keep the dice of the most common value and throw the rest.
            common = max(set(camera.values), key=camera.values.count)
            keep = [i for i, v in enumerate(camera.values) if v == common]
        # The options on the OLED: A opens them after a roll before the last.
        if view["roll"] < 3:
            controller.on_button("confirm")
        assert display.screen == "options"
        for _ in range(len(view["options"]) - 1):
            controller.on_button("cycle")  # the last option
        controller.on_button("confirm")
        controller.on_state(table.public_state())
        if view["options"]:
            shadow.push({"type": "choose", "option": len(view["options"]) - 1})
            while shadow.phase in ("moving", "bonus"):
                # The part (or bonus column) under the cursor: the first one.
                if shadow.phase == "moving":
                    if shadow.wildcard:
                        controller.on_button("confirm")  # pick the part; its own column comes first
                    shadow.push({"type": "move", "part": shadow.parts_left[0]})
                else:
                    shadow.push({"type": "bonus", "column": "1"})
                controller.on_button("confirm")
                controller.on_state(table.public_state())
        else:
            shadow.push({"type": "end_turn"})
        assert table.public_state()["game"]["state"] == shadow.public_view()
        turns += 1
    logged = [c for c in table.store.commands(table.game_id) if c.command["type"] == "roll"]
    by_camera = [c for c in logged if c.source == "camera"]
    assert len(logged) - len(by_camera) == manual and all(
        c.command.get("manual") for c in logged if c not in by_camera
    )
    # Most rolls are read by the camera (as measured: seed 3 has a white 4 the
    # verifier doubts, and two of its eight rolls are fixed by hand; a roll's room).
    assert manual <= 3 and len(by_camera) >= 2 * manual, (manual, refused, len(logged))


def test_bad_reading_asks_for_a_reroll_and_manual_roll_is_recorded(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    display = TableDisplay()
    controller = BeamMeUpController(table, display, None, time.monotonic)
    table.start_game("beam_me_up", SETTINGS, source="web")
    controller.on_state(table.submit({"type": "advantage", "columns": ["6"]}, "web"))
    four = [{"value": v, "box": [0, 0, 1, 1], "confidence": 0.9} for v in (1, 2, 3, 4)]
    assert controller.on_reading(four) is False
    assert display.screen == "dice"
    assert "Read 4 dice" in controller.note
    unsure = four + [{"value": 6, "box": [0, 0, 1, 1], "confidence": 0.2}]
    assert controller.on_reading(unsure) is False
    assert "Die 5 unclear" in controller.note
    assert table.seq == 1  # nothing was played
    # The correction from a phone: a roll entered by hand.
    state = table.submit({"type": "roll", "dice": [1, 2, 3, 4, 6], "manual": True}, "web")
    assert state["game"]["last"] == {**state["game"]["last"], "type": "roll", "source": "web", "manual": True}
    assert table.store.commands(table.game_id)[-1].manual is True


def _rolled_since(reading: dict | None, before: float | None) -> bool:
    """Whether ``reading`` is a throw's, read after the time ``before``."""
    return reading is not None and reading["at"] != before and reading["rolled"]


def test_service_rolls_the_synthetic_camera_and_plays_the_reading(tmp_path: Path) -> None:
    config = Config(data_dir=tmp_path)
    config.beam_me_up.still_seconds = 0.2
    service = Service(config, tmp_path, simulate=True)
    service.start("http://test/")
    try:
        service.table.start_game("beam_me_up", SETTINGS)
        service.table.submit({"type": "advantage", "columns": ["2"]}, "web")

        def throw(action, seq: int) -> dict:
            """Throw (again while the reading is one the table cannot trust)
            until the roll is played; the view then."""
            # Each throw has its own time: a loaded machine reads slower, not wrong.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                before = (service.last_reading or {}).get("at")
                try:
                    action()
                except RuntimeError:
                    time.sleep(0.1)  # the camera is still starting
                    continue
                # A reading of a frame from before the throw may still land after it: it
                # shows the tray but is no roll; the throw's own reading follows.
                waited = min(deadline, time.monotonic() + 5)
                while time.monotonic() < waited and not _rolled_since(service.last_reading, before):
                    time.sleep(0.02)
                assert service.wait_idle()
                if service.table.seq == seq:
                    break
                # Only a reading the table cannot trust, one the rules refuse or
                # a throw the camera was not ready for (shown on the OLED) is
                # not played.
                assert (
                    service.last_reading is None
                    or service.last_reading["problem"] is not None
                    or service.display.screen == "error"
                )
            state = service.table.public_state()
            assert state["seq"] == seq
            assert state["game"]["last"]["source"] == "camera"
            assert service.last_reading["rolled"]  # the throw's own reading was played
            read = [d["value"] for d in service.last_reading["dice"]]
            assert sorted(state["game"]["state"]["dice"]) == sorted(read)
            return state["game"]["state"]

        view = throw(service.roll, 2)
        camera = service._synthetic_camera()
        assert camera is not None and camera is not True
        jpeg = service.camera_jpeg()
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
        # Keep two dice from the web; the re-roll keeps them and the rules see them kept.
        service.set_kept([0, 1])
        kept = view["dice"][:2]
        view = throw(service.roll, 3)
        assert view["roll"] == 2 and view["kept"] == kept
        # Button B throws the dice in simulation, as a player would.
        view = throw(lambda: service.press("B"), 4)
        assert view["roll"] == 3
        with pytest.raises(ValueError):
            service.set_kept([7])
        # The table learned its camera's die sizes from its own sure readings, and kept them.
        sizes = service.health()["camera"]["die_sizes"]
        assert sizes is not None and sizes["dice"] >= 8 and (sizes["width"], sizes["height"]) == (640, 480)
        kept_file = tmp_path / "dice-sizes-synthetic-640x480.json"
        assert len(json.loads(kept_file.read_text())["points"]) >= 8
        # And what its dice look like: kinds of face and pip colours, each seen on several dice.
        looks = service.health()["camera"]["dice_looks"]
        assert looks and all(
            k["face"].startswith("#") and len(k["pips"]) == 7 and k["dice"] >= 3 for k in looks
        )
    finally:
        service.close()


def test_dice_left_in_the_keep_area_are_kept(tmp_path: Path) -> None:
    import numpy as np

    from vision.die import Die
    from vision.regions import Regions

    config = Config(data_dir=tmp_path)
    service = Service(config, tmp_path, simulate=True, camera=False)
    service.start("http://test/")
    try:
        service.table.start_game("beam_me_up", {**SETTINGS, "advantage": False})
        service.table.submit({"type": "roll", "dice": [2, 2, 5, 1, 6]}, "camera")
        assert service.wait_idle()
        frame = np.zeros((480, 640, 3), np.uint8)
        keep_area = Regions.from_values(keep=[0.0, 0.0, 0.25, 1.0])  # the left quarter

        def die(value: int, x: float) -> Die:
            return Die(value, [x, 200, x + 40, 240], 0.95)

        # The two 2s lie in the keep area; the others were thrown again.
        dice = [die(2, 10), die(2, 80), die(4, 300), die(4, 400), die(3, 500)]
        service._on_reading(frame, dice, keep_area, rolled=True)
        assert service.wait_idle()
        state = service.table.public_state()
        assert state["seq"] == 2
        assert state["game"]["state"]["kept"] == [2, 2]
        assert sorted(state["game"]["state"]["dice"]) == [2, 2, 3, 4, 4]
        assert service.last_reading["problem"] is None
        # Four dice read: nothing is played and the OLED says why.
        service._on_reading(frame, dice[:4], keep_area, rolled=True)
        assert service.wait_idle()
        assert service.table.seq == 2
        assert "Read 4 dice" in service.last_reading["problem"]
        assert service.display.screen == "dice"
        assert "Read 4 dice" in service.table.public_state()["game"]["refused_reading"]["problem"]
    finally:
        service.close()


def test_a_reading_of_the_scene_before_a_simulated_throw_is_not_played_as_it(tmp_path: Path) -> None:
    from types import SimpleNamespace

    import numpy as np

    from vision.die import Die
    from vision.regions import Regions

    service = Service(Config(data_dir=tmp_path), tmp_path, simulate=True, camera=False)
    service.start("http://test/")
    try:
        service.table.start_game("beam_me_up", {**SETTINGS, "advantage": False})
        camera = SyntheticCamera(seed=2)
        service._camera_wanted, service._camera = True, camera
        service._loop = SimpleNamespace(settling_frames=5)
        frame = np.zeros((480, 640, 3), np.uint8)
        before = [Die(v, [100 * i, 200, 100 * i + 40, 240], 0.95) for i, v in enumerate(camera.values)]
        service.roll()
        # The reader was still busy with a frame of the dice lying there before the throw.
        service._on_reading(frame, before, Regions(), rolled=False)
        assert service.wait_idle()
        assert service.table.public_state()["game"]["state"]["dice"] is None
        # A frame of the thrown dice arrives and is read: that reading is the roll,
        # even though the settle detector saw no motion.
        service._on_frame(camera.read())
        thrown = [Die(v, [100 * i, 200, 100 * i + 40, 240], 0.95) for i, v in enumerate(camera.values)]
        service._on_reading(frame, thrown, Regions(), rolled=False)
        assert service.wait_idle()
        state = service.table.public_state()["game"]["state"]
        assert state["dice"] == camera.values and state["roll"] == 1
    finally:
        service.close()
