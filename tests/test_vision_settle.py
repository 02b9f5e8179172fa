"""Settling: one reading per rest, a "rolling" event when motion starts, none while moving."""

from __future__ import annotations

import numpy as np
import pytest

from vision.settle import READING, ROLLING, Settler
from vision.synth import background, draw_die


def table(values: list[int], shift: float = 0.0, hand: bool = False) -> np.ndarray:
    img = background(320, 240, "plain", np.random.default_rng(0))
    for i, v in enumerate(values):
        draw_die(img, v, (60 + i * 70 + shift, 120 + shift / 2), 44, angle=shift * 3)
    if hand:
        img[40:200, 100 + int(shift) : 180 + int(shift)] = (90, 120, 170)
    noise = np.random.default_rng(int(shift * 10) + 1).normal(0, 1.5, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


class CountingReader:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, frame: np.ndarray) -> list:
        self.calls += 1
        from vision import read_dice

        return read_dice(frame)


def run(settler: Settler, frames: list[np.ndarray], fps: float = 20.0) -> list:
    events = []
    for n, frame in enumerate(frames):
        ev = settler.feed(frame, n / fps)
        if ev is not None:
            events.append(ev)
    return events


def test_one_reading_per_rest() -> None:
    reader = CountingReader()
    settler = Settler(still_seconds=0.4, reader=reader)
    still = [table([3, 5, 6])] * 30  # 1.5 s at rest
    events = run(settler, still)
    assert [e.kind for e in events] == [READING]
    assert events[0].t == pytest.approx(0.4, abs=0.06)
    assert sorted(d.value for d in events[0].dice if d.confidence >= 0.5) == [3, 5, 6]
    assert reader.calls == 1


def test_roll_then_rest_then_roll_again() -> None:
    reader = CountingReader()
    settler = Settler(still_seconds=0.4, reader=reader)
    frames = [table([1, 2, 3])] * 12
    frames += [table([4, 4, 4], shift=s, hand=s < 20) for s in range(0, 40, 2)]  # tumbling, a hand in view
    frames += [table([2, 6, 6], shift=40.0)] * 12
    frames += [table([2, 6, 6], shift=40.0 - s) for s in range(0, 20, 4)]
    frames += [table([5, 1, 3], shift=20.0)] * 12
    kinds = [e.kind for e in run(settler, frames)]
    assert kinds == [READING, ROLLING, READING, ROLLING, READING]
    assert reader.calls == 3


def test_motion_never_reads() -> None:
    reader = CountingReader()
    settler = Settler(still_seconds=0.4, reader=reader)
    frames = [table([1, 2, 3], shift=float(s), hand=True) for s in range(60)]
    events = run(settler, frames)
    assert [e.kind for e in events] == [ROLLING]
    assert reader.calls == 0


def test_short_pause_is_not_a_rest() -> None:
    settler = Settler(still_seconds=0.4, reader=lambda f: [])
    frames = [table([1], shift=float(s)) for s in range(0, 20, 2)]
    frames += [table([1], shift=20.0)] * 5  # 0.25 s still
    frames += [table([1], shift=float(s)) for s in range(22, 40, 2)]
    kinds = [e.kind for e in run(settler, frames)]
    assert READING not in kinds


def test_sensor_noise_is_not_motion() -> None:
    settler = Settler(still_seconds=0.2, reader=lambda f: [])
    rng = np.random.default_rng(5)
    base = table([2, 4]).astype(np.float32)
    frames = [np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8) for _ in range(20)]
    assert [e.kind for e in run(settler, frames)] == [READING]


def test_reset_and_bad_settings() -> None:
    settler = Settler(still_seconds=0.1, reader=lambda f: [])
    frame = table([6])
    assert settler.feed(frame, 0.0) is None
    settler.reset()
    assert settler.motion(frame) is None
    with pytest.raises(ValueError):
        Settler(still_seconds=-1)


def test_the_default_reader_refuses_a_cocked_die() -> None:
    # The table reads through a Settler built with its default reader, so that
    # default must be the whole reader with its quality checks: the pip-first
    # reader alone reads the side face of a cocked die as a sure value.
    from vision.synth import trouble_scene

    frame, placed, trouble = trouble_scene(
        640, 480, [2, 3, 5], 50, np.random.default_rng(0), "cocked", "wood"
    )
    events = run(Settler(still_seconds=0.2), [frame] * 8)
    assert [e.kind for e in events] == [READING]
    dice = events[0].dice
    sure = sorted(d.value for d in dice if d.confidence >= 0.5)
    assert sure == sorted(p.value for p in placed)
    cx, cy = trouble.center
    doubtful = [d for d in dice if d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3]]
    assert doubtful and all(d.confidence < 0.5 for d in doubtful)
