"""A table's learned die sizes kept in the data directory (tablepi.camera_sizes)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tablepi.camera_sizes import learning_reader, load, save, sizes_file
from vision.calibration import Calibration
from vision.die import Die
from vision.synth import scene


def test_kept_sizes_come_back_after_a_restart(tmp_path: Path) -> None:
    path = sizes_file(tmp_path, "picamera", 640, 480)
    assert path.name == "dice-sizes-picamera-640x480.json"
    cal = Calibration()
    rng = np.random.default_rng(0)
    for _ in range(3):
        cal.learn(
            [Die(2, [x, y, x + 50, y + 50], 0.99) for x, y in rng.uniform(0, 400, (4, 2))], (480, 640, 3)
        )
    save(path, cal)
    again = load(path)
    assert again.shape == (480, 640) and len(again.points) == 12
    assert again.sizes.side(320, 240) == pytest.approx(cal.sizes.side(320, 240))
    assert not path.with_name(path.name + ".tmp").exists()


@pytest.mark.parametrize(
    "text",
    [
        "{",
        '{"shape": [480], "points": []}',
        '{"shape": [480, 640], "points": [[1, 2, -3]]}',
        '{"shape": [480, 640], "points": [], "colours": [[1, 2, 3]]}',
        '{"shape": [480, 640], "points": [], "colours": [[1, 2, 3, 4, 5, 300]]}',
        '{"shape": [480, 640], "points": [], "colours": 7}',
    ],
)
def test_a_damaged_file_is_set_aside_and_learning_starts_again(tmp_path: Path, text: str, caplog) -> None:
    path = sizes_file(tmp_path, "opencv", 640, 480)
    path.write_text(text)
    cal = load(path)
    assert cal.sizes is None and len(cal.points) == 0
    assert path.with_name(path.name + ".unreadable").read_text() == text
    assert "learning them again" in caplog.text


def test_a_table_reads_its_rolls_and_keeps_what_it_learns(tmp_path: Path) -> None:
    path = sizes_file(tmp_path, "synthetic", 640, 480)
    read = learning_reader(path, expect=3)
    rng = np.random.default_rng(5)
    for _ in range(4):
        values = [int(v) for v in rng.integers(1, 7, 3)]
        img, _ = scene(640, 480, values, 56, rng, "wood")
        dice = read([img, img, img])
        assert sorted(d.value for d in dice if d.confidence >= 0.5) == sorted(values)
    kept = json.loads(path.read_text())
    assert kept["shape"] == [480, 640] and len(kept["points"]) >= 8
    assert read.reader.calibration.sizes is not None
    # unwritable: the roll is read all the same
    path.unlink()
    path.mkdir()
    img, _ = scene(640, 480, [4, 4, 1], 56, rng, "wood")
    assert sorted(d.value for d in read([img, img, img]) if d.confidence >= 0.5) == [1, 4, 4]


def test_the_dice_colours_are_kept_too_and_older_files_still_load(tmp_path: Path) -> None:
    path = sizes_file(tmp_path, "synthetic", 640, 480)
    read = learning_reader(path, expect=4)
    rng = np.random.default_rng(8)
    white = [((235, 235, 235), (20, 20, 20))]
    for _ in range(3):
        img, _ = scene(640, 480, [int(v) for v in rng.integers(1, 7, 4)], 56, rng, "wood", white)
        read([img, img, img])
    kept = json.loads(path.read_text())
    assert len(kept["colours"]) == len(read.reader.calibration.colours) >= 8
    (look,) = load(path).looks
    assert look.dice == len(kept["colours"]) and min(look.face) > 190 and max(look.pips) < 90
    # A file kept before the table learned colours: its sizes load, its colours start empty.
    del kept["colours"]
    path.write_text(json.dumps(kept))
    older = load(path)
    assert older.sizes is not None and len(older.colours) == 0 and older.looks == []
