"""The camera loop on the simulated camera: frames go to the web's view, rests
become readings only while a game wants them, and only dice seen moving count as rolled."""

from __future__ import annotations

from hardware.cameras import SyntheticCamera
from tablepi.camera_loop import CameraLoop


class Recorder:
    def __init__(self, wanted: bool = True) -> None:
        self.frames = 0
        self.rolling = 0
        self.settled: list[tuple[list, bool]] = []
        self.wanted = wanted

    def loop(self, camera: SyntheticCamera) -> CameraLoop:
        return CameraLoop(
            camera,
            still_seconds=0.0,
            wanted=lambda: self.wanted,
            on_frame=lambda frame: setattr(self, "frames", self.frames + 1),
            on_rolling=lambda: setattr(self, "rolling", self.rolling + 1),
            on_settled=lambda frame, dice, rolled: self.settled.append((dice, rolled)),
        )


def test_dice_at_rest_at_start_are_read_but_not_rolled_then_a_roll_is() -> None:
    camera = SyntheticCamera(seed=4, dice=5)
    got = Recorder()
    loop = got.loop(camera)
    for _ in range(6):
        loop.step()
    assert got.frames == 6
    assert len(got.settled) == 1 and got.settled[0][1] is False  # lying there at start-up
    camera.roll()
    for _ in range(60):
        loop.step()
    assert got.rolling >= 1
    assert len(got.settled) == 2 and got.settled[1][1] is True
    dice, _ = got.settled[1]
    assert sorted(d.value for d in dice if d.confidence >= 0.5) == sorted(camera.values)


def test_no_game_with_dice_no_reading_and_a_changed_camera_starts_afresh() -> None:
    camera = SyntheticCamera(seed=5, dice=3)
    got = Recorder(wanted=False)
    loop = got.loop(camera)
    for _ in range(8):
        loop.step()
    assert got.frames == 8 and got.settled == [] and loop.settling_frames == 0
    got.wanted = True
    for _ in range(3):
        loop.step()
    assert loop.settling_frames == 3
    loop.camera_changed()
    loop.step()
    assert loop.settling_frames == 1  # the frames from before the change were forgotten


def test_a_camera_that_fails_a_read_keeps_the_loop_running() -> None:
    class Flaky(SyntheticCamera):
        calls = 0

        def read(self):  # type: ignore[override]
            self.calls += 1
            if self.calls % 2:
                raise OSError("the camera went away")
            return super().read()

    got = Recorder()
    loop = got.loop(Flaky(seed=1, dice=2))
    for _ in range(10):
        loop.step()
    assert got.frames == 5
