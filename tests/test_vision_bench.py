"""`tablepi bench dice`: the lines it prints, with and without the labelled photos."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision import bench, fast
from vision.synth import scene


def test_photo_line_is_skipped_without_the_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent"
    monkeypatch.setattr(bench, "PHOTOS", missing)
    assert bench.run(argparse.Namespace(frames=5, seed=1)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("640x480: median ")
    assert lines[1].endswith(" of 5 frames")  # the quick reader's share
    assert lines[2].startswith("640x480, full reader only: median ")
    assert lines[3].startswith("1280x720: median ")
    assert lines[4].startswith("1280x720, full reader only: median ")
    assert lines[5] == f"byler-d6/train photos: skipped, {missing} not found"


def test_photo_line_times_the_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(2)
    for i in range(6):
        img, _ = scene(320, 320, [3, 5], 40, rng)
        assert cv2.imwrite(str(tmp_path / f"photo{i}.jpg"), img)
    (tmp_path / "labels.json").write_text("{}")
    assert len(bench.photo_frames(tmp_path, 4)) == 4
    monkeypatch.setattr(bench, "PHOTOS", tmp_path)
    read: list[tuple[int, ...]] = []
    monkeypatch.setattr(
        vision, "read_dice", lambda frame, quick=True, views=6: read.append((frame.shape, quick, views)) or []
    )
    monkeypatch.setattr(fast, "read", lambda frame: [] if frame.shape[0] == 320 else None)
    assert bench.run(argparse.Namespace(frames=5, seed=1)) == 0
    *_, last, one = capsys.readouterr().out.splitlines()
    assert last.startswith("byler-d6/train photos (320x320): median ")
    assert last.endswith("; 5 frames); the quick reader read 5 of 5 frames")
    assert one.startswith("byler-d6/train photos (320x320), one view: median ")
    # every frame timed is read, after a warm-up read of each set's first;
    # the rendered frames with and without the quick reader, the photos in
    # up to six views and in one
    big, wide, photo = (480, 640, 3), (720, 1280, 3), (320, 320, 3)
    assert read == (
        [(big, True, 6)] * 6
        + [(big, False, 6)] * 6
        + [(wide, True, 6)] * 6
        + [(wide, False, 6)] * 6
        + [(photo, True, 6)] * 6
        + [(photo, True, 1)] * 6
    )


def test_the_quick_readers_share_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [np.full((4, 4, 3), v, np.uint8) for v in (0, 1, 2)]
    monkeypatch.setattr(fast, "read", lambda frame: [] if frame[0, 0, 0] else None)
    assert bench.quick_share(frames) == "the quick reader read 2 of 3 frames"


def test_shared_photos_are_found_beside_the_project(shared_dir: Path) -> None:
    assert bench.PHOTOS == shared_dir / "datasets" / "byler-d6" / "train"
    assert len(bench.photo_frames(bench.PHOTOS, 3)) == 3


def test_summary_gives_wall_and_cpu_medians_and_p95() -> None:
    wall = np.array([10.0, 20.0, 30.0, 40.0, 100.0])
    cpu = np.array([5.0, 6.0, 7.0, 8.0, 50.0])
    assert bench.summary("640x480", wall, cpu) == (
        "640x480: median 30.0 ms, p95 88.0 ms per frame (CPU median 7.0 ms, p95 41.6 ms; 5 frames)"
    )
