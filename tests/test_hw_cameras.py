"""Cameras: photo replay, synthetic dice, and a grabber that survives failures."""

from __future__ import annotations

import sys
import threading
import time
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from waiting import until

from hardware import cameras
from hardware.cameras import (
    Camera,
    CameraError,
    ReplayCamera,
    ResilientCamera,
    SyntheticCamera,
    choose_source,
    open_camera,
)


def solid(value: int, size=(40, 30)) -> np.ndarray:
    return np.full((size[1], size[0], 3), value, np.uint8)


@pytest.fixture
def photos(tmp_path):
    # Written out of name order: replay must follow names, not creation time.
    for name, value in (("b.png", 20), ("c.png", 30), ("a.png", 10)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("not a photo")
    return tmp_path


def test_replay_in_name_order_and_looping(photos):
    with ReplayCamera(photos) as cam:
        seen = [int(cam.read()[0, 0, 0]) for _ in range(7)]
        assert seen == [10, 20, 30, 10, 20, 30, 10]
        assert cam.size == (40, 30)
        assert [p.name for p in cam.files] == ["a.png", "b.png", "c.png"]


def test_replay_holds_each_photo(photos):
    cam = ReplayCamera(photos, hold_frames=3)
    seen = [int(cam.read()[0, 0, 0]) for _ in range(7)]
    assert seen == [10, 10, 10, 20, 20, 20, 30]


def test_replay_unreadable_photo_reads_as_none(photos, caplog):
    (photos / "b2.jpg").write_bytes(b"not really a jpeg")
    cam = ReplayCamera(photos)
    seen = [None if (f := cam.read()) is None else int(f[0, 0, 0]) for _ in range(5)]
    assert seen == [10, 20, None, 30, 10]
    assert "b2.jpg is not a readable image" in caplog.text


def test_replay_needs_photos(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        ReplayCamera(tmp_path / "missing")
    with pytest.raises(CameraError, match="no photos"):
        ReplayCamera(tmp_path)


def test_synthetic_same_seed_same_frames_other_seed_differs():
    a, b, c = SyntheticCamera(seed=7), SyntheticCamera(seed=7), SyntheticCamera(seed=8)
    frames_a = [a.read() for _ in range(5)]
    frames_b = [b.read() for _ in range(5)]
    assert all(np.array_equal(x, y) for x, y in zip(frames_a, frames_b, strict=True))
    assert a.values == b.values and a.boxes == b.boxes
    assert a.roll() == b.roll()
    assert np.array_equal(a.read(), b.read())
    assert not np.array_equal(c.read(), SyntheticCamera(seed=7).read())
    # Sensor noise: consecutive frames of one scene are close but not identical.
    diff = cv2.absdiff(frames_a[0], frames_a[1])
    assert 0 < float(diff.mean()) < 6


def test_synthetic_dice_are_valid_sized_and_apart():
    for seed in range(6):
        cam = SyntheticCamera(seed=seed)
        frame = cam.read()
        assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8
        assert len(cam.values) == 5 and all(1 <= v <= 6 for v in cam.values)
        boxes = cam.boxes
        for die, (x0, y0, x1, y1) in zip(cam.dice, boxes, strict=True):
            assert 50 <= die.size <= 90
            assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        for i in range(5):
            for j in range(i + 1, 5):
                a, b = boxes[i], boxes[j]
                overlap = min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])
                ca, cb = cam.dice[i].center, cam.dice[j].center
                # Rotated boxes may touch at the corners; the faces themselves never meet.
                assert not overlap or np.hypot(ca[0] - cb[0], ca[1] - cb[1]) > cam.dice[i].size * 1.4


def test_keep_really_keeps_dice():
    cam = SyntheticCamera(seed=3)
    first_values, first_boxes = cam.values, cam.boxes
    changed = set()
    for _ in range(6):
        cam.roll(keep=[0, 3])
        assert cam.values[0] == first_values[0] and cam.values[3] == first_values[3]
        assert cam.boxes[0] == first_boxes[0] and cam.boxes[3] == first_boxes[3]
        changed |= {i for i in (1, 2, 4) if cam.boxes[i] != first_boxes[i]}
    assert changed == {1, 2, 4}


def test_roll_to_given_values_and_bad_rolls():
    cam = SyntheticCamera(seed=1)
    assert cam.roll(values=[6, 5, 4, 3, 2]) == [6, 5, 4, 3, 2]
    assert cam.roll(values=[1, 1, 1, 1, 1], keep=[0]) == [6, 1, 1, 1, 1]
    before = cam.values
    with pytest.raises(ValueError):
        cam.roll(values=[7, 1, 1, 1, 1])
    with pytest.raises(ValueError):
        cam.roll(values=[1, 2])
    with pytest.raises(ValueError):
        cam.roll(keep=[5])
    assert cam.values == before


def test_no_dice_is_an_empty_table():
    cam = SyntheticCamera(seed=2, dice=0)
    assert cam.values == [] and cam.read().shape == (480, 640, 3)


def test_tumbling_dice_move_then_settle():
    clock = SimpleNamespace(now=0.0)
    cam = SyntheticCamera(seed=4, tumble=0.5, clock=lambda: clock.now)
    cam.roll()
    assert cam.rolling
    early = cam.read()
    clock.now = 0.25
    middle = cam.read()
    clock.now = 1.0
    assert not cam.rolling
    settled = [cam.read() for _ in range(2)]
    assert float(cv2.absdiff(early, middle).mean()) > 2
    assert float(cv2.absdiff(settled[0], settled[1]).mean()) < 6
    assert float(cv2.absdiff(cam.render(), settled[0]).mean()) < 4  # the same scene, minus noise


def test_a_pip_counting_reader_reads_the_synthetic_dice():
    from vision import read_dice

    right = total = 0
    for seed in range(8):
        cam = SyntheticCamera(seed=seed)
        for roll in range(2):
            if roll:
                cam.roll(keep=[1])
            total += 1
            right += sorted(d.value for d in read_dice(cam.read())) == sorted(cam.values)
    # the camera draws its dice as the reader's rendered training frames do: every scene reads exactly
    assert right == total == 16, f"{right}/{total} scenes read exactly"


# --- resilience -------------------------------------------------------------------


class Flaky(Camera):
    """Gives ``good`` frames, then raises; the first ``refuse`` reopenings fail."""

    opened = 0

    def __init__(self, good: int, refuse: int, log: list):
        type(self).opened += 1
        if 1 < type(self).opened <= 1 + refuse:
            raise CameraError("unplugged")
        self.good = good
        self.log = log

    def read(self):
        if self.good <= 0:
            raise OSError("read failed")
        self.good -= 1
        return solid(type(self).opened)

    @property
    def size(self):
        return (40, 30)


def test_failing_source_is_reopened_and_reported():
    events: list[tuple[str, str]] = []
    Flaky.opened = 0
    log: list = []
    cam = ResilientCamera(
        lambda: Flaky(good=3, refuse=2, log=log),
        lambda kind, msg: events.append((kind, msg)),
        frame_period=0.01,
        first_backoff=0.01,
        max_backoff=0.05,
    )
    try:
        assert until(lambda: [k for k, _ in events][:2] == ["lost", "restored"])
        assert "read failed" in events[0][1]
        assert Flaky.opened >= 4  # first open, two refused reopenings, then success
        assert until(lambda: (f := cam.read()) is not None and f[0, 0, 0] >= 4)
        assert cam.reopens >= 1
    finally:
        cam.close()


def test_read_returns_none_while_lost_and_never_raises():
    def refuse():
        raise CameraError("no camera here")

    events = []
    cam = ResilientCamera(
        refuse, lambda kind, msg: events.append(kind), frame_period=0.02, first_backoff=0.01, max_backoff=0.02
    )
    try:
        assert cam.read() is None
        assert until(lambda: events == ["lost"], timeout=5.0)
        time.sleep(0.1)
        assert events == ["lost"]  # reported once, not on every retry
        assert not cam.connected
    finally:
        cam.close()


class Slow(Camera):
    def __init__(self, delay: float):
        self.delay = delay
        self.count = 0
        self.release = threading.Event()

    def read(self):
        if self.count:
            self.release.wait(self.delay)
        self.count += 1
        return solid(self.count)

    @property
    def size(self):
        return (40, 30)

    def close(self):
        self.release.set()


def test_read_never_waits_much_longer_than_a_frame_period():
    slow = Slow(delay=30.0)  # stuck after the first frame until released
    events = []
    cam = ResilientCamera(
        lambda: slow, lambda kind, msg: events.append(kind), frame_period=0.05, stale_after=0.3
    )
    try:
        assert cam.wait_frame(2.0) is not None
        worst = 0.0
        for _ in range(5):
            t = time.monotonic()
            cam.read()
            worst = max(worst, time.monotonic() - t)
        assert worst < 0.05 + 0.1
        # Stuck for longer than stale_after: no stale frame, and the loss is reported.
        time.sleep(0.35)
        assert cam.read() is None
        assert events == ["lost"]
    finally:
        slow.release.set()
        cam.close()


def test_open_camera_in_simulation_is_synthetic():
    cfg = SimpleNamespace(source="auto", device=0, folder="", width=320, height=240, fps=30)
    with open_camera(cfg, simulate=True) as cam:
        frame = cam.wait_frame(2.0)
        assert cam.kind == "synthetic"
        assert frame.shape == (240, 320, 3)
        assert cam.size == (320, 240)
        assert isinstance(cam.source, SyntheticCamera)


def test_open_camera_replay(photos):
    cfg = SimpleNamespace(source="replay", device=0, folder=str(photos), width=640, height=480, fps=30)
    with open_camera(cfg, simulate=True) as cam:
        assert cam.kind == "replay"
        assert int(cam.wait_frame(2.0)[0, 0, 0]) in (10, 20, 30)


def test_auto_without_any_camera_falls_back_to_synthetic(monkeypatch, caplog):
    monkeypatch.setattr(cameras, "on_pi", lambda: False)
    monkeypatch.setattr(cameras, "_device_present", lambda device: False)
    cfg = SimpleNamespace(source="auto", device=0)
    assert choose_source(cfg, simulate=False) == (
        "synthetic",
        "no camera found (not a Raspberry Pi; nothing at 0): synthetic dice",
    )
    assert "no camera found" in caplog.text
    assert choose_source(SimpleNamespace(source="opencv", device=0), simulate=False)[0] == "opencv"
    assert choose_source(SimpleNamespace(source="picamera"), simulate=True)[0] == "synthetic"


def test_picamera_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # as on any machine without it
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        cameras.PiCamera()


def test_opencv_camera_missing_device_is_a_clear_error():
    with pytest.raises(CameraError, match="no camera at"):
        cameras.OpenCVCamera("/nonexistent/video-device")
