"""`tablepi bench dice`: the lines it prints, with and without the labelled photos."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision import bench
from vision.synth import scene


def _args(root: Path, **kw) -> argparse.Namespace:
    return argparse.Namespace(datasets=root, photos=0, large=2, frames=5, seed=1, **kw)


def test_photo_lines_are_skipped_without_the_photos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent"
    assert bench.run(_args(missing)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"labelled photos: skipped, {missing} not found"
    assert lines[2].startswith("rendered 640x480 frames (the simulated camera): median ")


def test_every_datasets_test_photos_are_timed_and_enlarged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(2)
    for name in ("aset", "bset"):
        (tmp_path / name / "test").mkdir(parents=True)
        for i in range(3):
            img, _ = scene(320, 320, [3, 5], 40, rng)
            assert cv2.imwrite(str(tmp_path / name / "test" / f"photo{i}.jpg"), img)
    read: list[tuple[int, ...]] = []
    monkeypatch.setattr(vision, "read_dice", lambda frame: read.append(frame.shape) or [])
    assert bench.run(_args(tmp_path)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("aset/test photos (320x320): median ")
    assert lines[2].startswith("bset/test photos (320x320): median ")
    assert lines[3].startswith("all test photos: median ")
    assert lines[4].startswith("test photos enlarged to 3280x2464: median ")
    assert lines[5].startswith("rendered 640x480 frames")
    small, large, rendered = (320, 320, 3), (2464, 3280, 3), (480, 640, 3)
    # each set after a warm-up read of its first frame
    assert read == [small] * 4 + [small] * 4 + [large] * 3 + [rendered] * 6
    # Then each set's photos as one table's rolls: none calibrated before its first roll is read.
    assert lines[6].startswith("aset/test as a table's rolls: calibrated ")
    assert lines[7].startswith("bset/test as a table's rolls: calibrated ")
    assert len(lines) == 8
    for line in lines[6:]:
        assert "(1 rolls)" in line or "(2 rolls)" in line or "(3 rolls)" in line, line


def test_a_tables_rolls_are_timed_calibrated_apart(capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(4)
    frames = [scene(480, 360, [2, 4, 6], 44, rng)[0] for _ in range(4)]
    calibrated, not_yet = bench.time_rolls(frames, [3] * 4)
    # The first roll is read before any calibration; all are timed once.
    assert len(calibrated) + len(not_yet) == 4 and len(not_yet) >= 1
    assert (np.concatenate([calibrated, not_yet]) > 0).all()
    line = bench.roll_summary("x", np.array([10.0, 30.0]), np.array([]))
    assert line == "x as a table's rolls: calibrated median 20.0 ms, p95 29.0 ms (2 rolls); uncalibrated none"


def test_shared_datasets_are_found_beside_the_project(shared_dir: Path) -> None:
    assert bench.DATASETS == shared_dir / "datasets"
    assert len(bench.photos(bench.DATASETS / "byler-d6" / "test", 3)) == 3


def test_summary_gives_wall_and_cpu_medians_and_p95() -> None:
    wall = np.array([10.0, 20.0, 30.0, 40.0, 100.0])
    cpu = np.array([5.0, 6.0, 7.0, 8.0, 50.0])
    assert bench.summary("640x480", wall, cpu) == (
        "640x480: median 30.0 ms, p95 88.0 ms per frame (CPU median 7.0 ms, p95 41.6 ms; 5 frames)"
    )
