"""`tablepi dice read|eval|calibrate` end to end, in process."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablepi.cli import main
from vision.synth import scene


@pytest.fixture()
def photos(tmp_path: Path) -> dict[str, list[int]]:
    truth = {}
    for n, vals in enumerate([[1, 4, 6], [2, 3, 5, 5], []]):
        img, _ = scene(640, 480, vals, 56, np.random.default_rng(n), "wood")
        name = f"roll{n}.png"
        cv2.imwrite(str(tmp_path / name), img)
        truth[name] = sorted(vals)
    return truth


def test_read_json(photos, tmp_path: Path, capsys) -> None:
    files = [str(tmp_path / n) for n in photos]
    assert main(["dice", "read", "--json", *files]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == set(photos)
    for name, dice in out.items():
        assert sorted(d["value"] for d in dice) == photos[name]
        for d in dice:
            assert set(d) == {"value", "box", "confidence"}
            x0, y0, x1, y1 = d["box"]
            assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
            assert 0.5 <= d["confidence"] <= 1


def test_read_text_and_annotate(photos, tmp_path: Path, capsys) -> None:
    out_dir = tmp_path / "annotated"
    assert main(["dice", "read", "--annotate", str(out_dir), str(tmp_path / "roll0.png")]) == 0
    assert capsys.readouterr().out.strip() == "roll0.png: 3 dice: 1 4 6"
    drawn = cv2.imread(str(out_dir / "roll0.png"))
    assert drawn is not None and (drawn != cv2.imread(str(tmp_path / "roll0.png"))).any()


def test_unreadable_image_is_reported_and_others_read(photos, tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg at all")
    missing, good = tmp_path / "missing.png", tmp_path / "roll1.png"
    code = main(["dice", "read", "--json", str(broken), str(missing), str(good)])
    captured = capsys.readouterr()
    assert code != 0
    assert "broken.jpg: not an image" in captured.err
    assert "missing.png: no such file" in captured.err
    out = json.loads(captured.out)
    assert list(out) == ["roll1.png"]
    assert sorted(d["value"] for d in out["roll1.png"]) == [2, 3, 5, 5]


def _labelled(photos: dict[str, list[int]], folder: Path) -> None:
    labels = {}
    for n, (name, vals) in enumerate(photos.items()):
        _, placed = scene(640, 480, vals, 56, np.random.default_rng(n), "wood")
        labels[name] = {
            "width": 640,
            "height": 480,
            "dice": [{"value": p.value, "box": p.box} for p in placed],
        }
    labels["roll1.png"]["dice"][0]["value"] = 6 if labels["roll1.png"]["dice"][0]["value"] != 6 else 1
    (folder / "labels.json").write_text(json.dumps(labels))


def test_eval_prints_a_row_per_dataset_and_their_mean(photos, tmp_path: Path, capsys) -> None:
    _labelled(photos, tmp_path)
    other = tmp_path / "other" / "test"
    other.mkdir(parents=True)
    for name in ("roll0.png", "roll2.png"):
        (other / name).write_bytes((tmp_path / name).read_bytes())
    (other / "labels.json").write_text(
        json.dumps(
            {k: v for k, v in json.loads((tmp_path / "labels.json").read_text()).items() if k != "roll1.png"}
        )
    )
    # a split folder as it is, and a dataset root whose test split is read
    assert main(["dice", "eval", "--misread", str(tmp_path), str(tmp_path / "other")]) == 0
    out = capsys.readouterr().out
    assert "roll1.png" in out and "labelled" in out  # the die labelled wrong is listed
    rows = {line.split()[0]: line.split()[1:] for line in out.strip().splitlines()[-3:]}
    assert set(rows) == {tmp_path.name, "other", "mean"}
    assert float(rows[tmp_path.name][0]) == pytest.approx(6 / 7, abs=1e-3)  # die accuracy
    assert float(rows[tmp_path.name][1]) == pytest.approx(2 / 3, abs=1e-3)  # image accuracy
    assert float(rows["other"][0]) == pytest.approx(1.0)
    assert float(rows["mean"][0]) == pytest.approx((6 / 7 + 1) / 2, abs=1e-3)
    assert main(["dice", "eval", "--json", str(tmp_path)]) == 0
    (got,) = json.loads(capsys.readouterr().out)
    assert got["die_accuracy"] == pytest.approx(6 / 7)
    assert got["outcomes"]["wrong"] == 1  # one photo read sure and wrong: roll1.png


def test_eval_as_the_table_reads_each_photo_in_three_views(
    photos, tmp_path: Path, capsys, monkeypatch
) -> None:
    import vision

    _labelled(photos, tmp_path)
    shapes = []
    real = vision.read_dice

    def counting(image: np.ndarray) -> list:
        shapes.append(image.shape[:2])
        return real(image)

    monkeypatch.setattr(vision, "read_dice", counting)
    assert main(["dice", "eval", "--table", "--json", str(tmp_path)]) == 0
    (got,) = json.loads(capsys.readouterr().out)
    assert got["die_accuracy"] == pytest.approx(6 / 7)
    assert got["outcomes"]["wrong"] == 1
    assert shapes == [(480, 640), (640, 480), (480, 640)] * 3  # as is, turned a quarter, mirrored


def test_read_and_eval_as_one_tables_camera(photos, tmp_path: Path, capsys, monkeypatch) -> None:
    import vision.table_reader

    _labelled(photos, tmp_path)
    told = []
    real = vision.table_reader.TableReader.read

    def read(self, frame: np.ndarray, expect: int | None = None) -> list:
        told.append(expect)
        return real(self, frame, expect)

    monkeypatch.setattr(vision.table_reader.TableReader, "read", read)
    files = [str(tmp_path / n) for n in sorted(photos)]
    assert main(["dice", "read", "--as-table", "--json", *files]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {n: sorted(d["value"] for d in dice) for n, dice in out.items()} == photos
    assert told == [None, None, None]  # photos alone say nothing of the dice thrown
    told.clear()
    assert main(["dice", "eval", "--as-table", "--json", str(tmp_path)]) == 0
    (got,) = json.loads(capsys.readouterr().out)
    assert got["die_accuracy"] == pytest.approx(6 / 7) and got["outcomes"]["wrong"] == 1
    assert told == [3, 4, 0]  # in name order, each told its labelled dice's count


def test_eval_reads_with_another_set_of_models(photos, tmp_path: Path, capsys) -> None:
    import shutil

    import vision.reader

    _labelled(photos, tmp_path)
    shipped = Path(vision.reader.__file__).parent / "models"
    models = tmp_path / "models"
    models.mkdir()
    for name in vision.reader.NAMES:
        shutil.copy(shipped / name, models / name)
    assert main(["dice", "eval", "--json", str(tmp_path)]) == 0
    (alone,) = json.loads(capsys.readouterr().out)
    assert main(["dice", "eval", "--json", "--models", str(models), str(tmp_path)]) == 0
    (copied,) = json.loads(capsys.readouterr().out)
    assert copied == alone  # a copy of the shipped set reads exactly as the shipped set
    # A set whose grade trusts nothing reads every die unsure: only the empty table is read right.
    doubts = tmp_path / "doubts"
    shutil.copytree(models, doubts)
    grade = json.loads((doubts / "confidence.json").read_text())
    grade["right"]["bias"] = -100.0
    (doubts / "confidence.json").write_text(json.dumps(grade))
    assert main(["dice", "eval", "--json", "--table", "--models", str(doubts), str(tmp_path)]) == 0
    (doubting,) = json.loads(capsys.readouterr().out)
    assert doubting["outcomes"] == {"right": 1, "refused": 2, "wrong": 0}
    assert alone["outcomes"] == {"right": 2, "refused": 0, "wrong": 1}
    (models / "verifier.onnx").unlink()
    assert main(["dice", "eval", "--models", str(models), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{models}: no verifier.onnx" in err


def test_robust_reads_every_transform(photos, tmp_path: Path, capsys) -> None:
    _labelled(photos, tmp_path)
    assert (
        main(
            ["dice", "robust", "--json", "--transform", "scale 2", "--transform", "gamma 1.6", str(tmp_path)]
        )
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    table = got["die_accuracy"]
    assert set(table) == {"as taken", "scale 2", "gamma 1.6"}
    assert table["as taken"][tmp_path.name] == pytest.approx(6 / 7)
    assert table["scale 2"][tmp_path.name] == pytest.approx(6 / 7)
    # One photo of the three is read sure and wrong (roll1.png), as eval counts it.
    assert got["photos_wrong"]["as taken"][tmp_path.name] == pytest.approx(1 / 3)
    assert set(got["photos_wrong"]) == set(table)
    assert main(["dice", "robust", "--json", "--table", "--transform", "rotate 30", str(tmp_path)]) == 0
    table = json.loads(capsys.readouterr().out)["die_accuracy"]
    assert table["as taken"][tmp_path.name] == pytest.approx(6 / 7)  # the table's reading of a rest
    assert table["rotate 30"][tmp_path.name] == pytest.approx(6 / 7)
    assert main(["dice", "robust", "--transform", "scale 2", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("scale 2") and f"{tmp_path.name} 0.857 (+0.000, wrong 0.333)" in lines[0]
    assert lines[1].startswith("as taken") and "wrong 0.333" in lines[1]
    assert main(["dice", "robust", "--transform", "sideways", str(tmp_path)]) == 2
    assert "unknown transform 'sideways'" in capsys.readouterr().err


def test_confusion_counts_what_each_labelled_value_is_read_as() -> None:
    from vision.evaluate import confusion

    box = [0, 0, 10, 10]
    labels = {
        "a.png": {"dice": [{"value": 3, "box": box}, {"value": 5, "box": [50, 50, 60, 60]}]},
        "b.png": {"dice": [{"value": 3, "box": box}, {"value": 2, "box": [80, 0, 90, 10]}]},
    }
    preds = {
        # a 3 read as a sure 2, a 5 read right but unsure, and a reading where no die is
        "a.png": [
            {"value": 2, "box": [1, 1, 9, 9], "confidence": 0.8},
            {"value": 5, "box": [51, 51, 59, 59], "confidence": 0.3},
            {"value": 4, "box": [200, 200, 210, 210], "confidence": 0.99},
        ],
        # a 3 read right and sure; the 2 not found
        "b.png": [{"value": 3, "box": [0, 0, 10, 10], "confidence": 0.9}],
    }
    assert confusion(labels, preds) == {
        2: {"-": [1, 0]},
        3: {"2": [1, 1], "3": [1, 1]},
        5: {"5": [1, 0]},
    }


def test_eval_prints_the_confusion_table(photos, tmp_path: Path, capsys) -> None:
    _labelled(photos, tmp_path)
    relabelled = json.loads((tmp_path / "labels.json").read_text())["roll1.png"]["dice"][0]["value"]
    assert main(["dice", "eval", "--confusion", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path.name}: labelled value (rows) read as (columns): readings / sure" in out
    assert f"  {relabelled:5d} " in out  # the relabelled die's row
    assert main(["dice", "eval", "--json", str(tmp_path)]) == 0
    (got,) = json.loads(capsys.readouterr().out)
    table = got["confusion"]
    # Seven dice, all found; the one relabelled in roll1.png shows under its label as another value.
    assert sum(n for cells in table.values() for n, _ in cells.values()) == 7
    assert "-" not in {read for cells in table.values() for read in cells}
    wrong = {(label, read) for label, cells in table.items() for read in cells if read != label}
    assert len(wrong) == 1 and wrong.pop()[0] == str(relabelled)


def test_eval_without_labels(tmp_path: Path, capsys) -> None:
    assert main(["dice", "eval", str(tmp_path)]) == 2
    assert "labels.json" in capsys.readouterr().err


def test_calibrate_from_image_with_regions(photos, tmp_path: Path, capsys) -> None:
    out = tmp_path / "check.png"
    code = main(
        [
            "dice", "calibrate", "--image", str(tmp_path / "roll1.png"), "--out", str(out),
            "--tray", "[[0,0],[1,0],[1,1],[0,1]]", "--keep", "[0.0,0.0,0.5,1.0]",
        ]
    )  # fmt: skip
    assert code == 0
    assert "4 dice read, 4 in the tray" in capsys.readouterr().out
    assert cv2.imread(str(out)).shape == (480, 640, 3)


def test_calibrate_reads_the_config(photos, tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "tablepi.toml"
    cfg.write_text("[camera]\ntray = [[0.0, 0.0], [0.01, 0.0], [0.0, 0.01]]\nkeep = [0.0, 0.0, 0.01, 0.01]\n")
    out = tmp_path / "check.png"
    photo = tmp_path / "roll0.png"
    assert main(["dice", "calibrate", "--config", str(cfg), "--image", str(photo), "--out", str(out)]) == 0
    assert "3 dice read, 0 in the tray" in capsys.readouterr().out


def test_calibrate_refuses_bad_regions(photos, tmp_path: Path, capsys) -> None:
    photo, out = tmp_path / "roll0.png", tmp_path / "x.png"
    code = main(["dice", "calibrate", "--image", str(photo), "--out", str(out), "--keep", "[0.9, 0.9, 0.1]"])
    assert code == 2
    assert "keep" in capsys.readouterr().err


def test_calibrate_from_the_configured_camera(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "tablepi.toml"
    cfg.write_text('[camera]\nsource = "synthetic"\ntray = [[0, 0], [1, 0], [1, 1], [0, 1]]\n')
    out = tmp_path / "camera.png"
    assert main(["dice", "calibrate", "--config", str(cfg), "--out", str(out)]) == 0
    # the synthetic camera's five dice, all in the tray (a die the reader doubts may be left out)
    printed = capsys.readouterr().out
    read, in_tray = re.search(r"(\d) dice read, (\d) in the tray", printed).groups()
    assert read == in_tray and int(read) in (4, 5)
    assert cv2.imread(str(out)) is not None
    assert "camera: synthetic (camera source 'synthetic' in the settings)" in printed
    sharp = float(re.search(r"sharpness (\d+)", printed).group(1))
    # the same frame blurred reads softer
    blurred = tmp_path / "blurred.png"
    cv2.imwrite(str(blurred), cv2.GaussianBlur(cv2.imread(str(out)), (0, 0), 3))
    assert main(["dice", "calibrate", "--image", str(blurred), "--out", str(tmp_path / "b.png")]) == 0
    assert float(re.search(r"sharpness (\d+)", capsys.readouterr().out).group(1)) < sharp / 2


SIZES_COLOUR = (0, 220, 255)  # what vision.regions.draw_sizes draws in


def _throws(tmp_path: Path, count: int) -> tuple[list[str], float]:
    """``count`` rendered throws of five dice of 56 px, as one fixed camera sees them, and
    the mean side of their boxes (a die turned shows a larger box)."""
    paths, sides = [], []
    for n in range(count):
        rng = np.random.default_rng(100 + n)
        img, placed = scene(640, 480, list(rng.integers(1, 7, 5)), 56, rng, "wood")
        sides += [(x1 - x0 + y1 - y0) / 2 for x0, y0, x1, y1 in (d.box for d in placed)]
        paths.append(str(tmp_path / f"throw{n}.png"))
        cv2.imwrite(paths[-1], img)
    return paths, float(np.mean(sides))


def test_calibrate_learns_the_dice_size_from_several_throws(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sizes.png"
    throws, side = _throws(tmp_path, 3)
    assert main(["dice", "calibrate", "--image", *throws, "--dice", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert re.findall(r"throw (\d): (\d) dice read sure", printed) == [("1", "5"), ("2", "5"), ("3", "5")]
    learned = re.search(r"the dice's size, learned from (\d+) sure dice: (\d+) px at the middle", printed)
    assert learned, printed
    # The side of the dice's boxes, as the reader finds them: within a tenth.
    assert int(learned.group(1)) >= 8 and abs(int(learned.group(2)) - side) <= side / 10
    # Fifteen dice are enough to try a plane seen in perspective too: turned dice vary its fit.
    assert re.search(r"\((one size over the whole frame|a plane seen in perspective); spread \d+%\)", printed)
    # The learned squares are drawn in their own colour; nothing is kept without the camera.
    drawn = cv2.imread(str(out))
    assert (np.abs(drawn.astype(int) - SIZES_COLOUR).sum(axis=2) < 60).sum() > 500
    # The dice's looks: said, and a swatch of each drawn at the frame's top left, face and pip.
    said = re.search(
        r"the dice, as they look: (#[0-9a-f]{6}) faces with (#[0-9a-f]{6}) pips \((\d+) dice\)", printed
    )
    assert said and int(said.group(3)) >= 3, printed
    face = tuple(int(said.group(1)[k : k + 2], 16) for k in (5, 3, 1))  # as BGR
    assert (np.abs(drawn[20:40, 20:26].astype(int) - face).max(axis=2) <= 2).any()
    assert "kept in" not in printed


def test_calibrate_says_how_many_dice_it_still_needs(photos, tmp_path: Path, capsys) -> None:
    out = tmp_path / "one.png"
    assert main(["dice", "calibrate", "--image", str(tmp_path / "roll0.png"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "the dice's size is not learned yet: 3 sure dice of the 8 needed" in printed
    drawn = cv2.imread(str(out))
    assert not (np.abs(drawn.astype(int) - SIZES_COLOUR).sum(axis=2) < 60).any()


def test_calibrate_refuses_a_count_under_one(photos, tmp_path: Path, capsys) -> None:
    for option in ("--rolls", "--dice"):
        code = main(
            [
                "dice",
                "calibrate",
                "--image",
                str(tmp_path / "roll0.png"),
                "--out",
                str(tmp_path / "x.png"),
                option,
                "0",
            ]
        )
        assert code == 2 and "--rolls and --dice" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_calibrate_keeps_what_the_cameras_throws_taught(tmp_path: Path, capsys, monkeypatch) -> None:
    from tablepi.camera_sizes import load, sizes_file

    cfg = tmp_path / "tablepi.toml"
    cfg.write_text(f'data_dir = "{tmp_path / "data"}"\n[camera]\nsource = "synthetic"\n')
    (tmp_path / "data").mkdir()
    # Enter after the first and second throws; the input then ends, so the fourth is not taken.
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))
    out = tmp_path / "camera.png"
    assert (
        main(["dice", "calibrate", "--config", str(cfg), "--rolls", "4", "--dice", "5", "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert printed.count("camera: synthetic") == 1
    assert [n for n, _ in re.findall(r"throw (\d): (\d) dice read sure", printed)] == ["1", "2", "3"]
    kept = sizes_file(tmp_path / "data", "synthetic", 640, 480)
    assert f"kept in {kept}" in printed
    # The table starts with it: the file loads as a ready calibration of that frame size.
    calibration = load(kept)
    assert calibration.sizes is not None and calibration.shape == (480, 640)
    middle = int(re.search(r"learned from \d+ sure dice: (\d+) px", printed).group(1))
    assert abs(calibration.sizes.side(320, 240) - middle) <= 1


def test_empty_reads_the_squares_without_dice(photos, tmp_path: Path, capsys) -> None:
    _labelled(photos, tmp_path)
    assert main(["dice", "empty", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path.name}: ") and "empty tiles read, 0 sure dice on them" in out
    tiles = int(out.split(": ")[1].split()[0])
    assert tiles > 0
    assert main(["dice", "empty", str(tmp_path / "nowhere")]) == 2
    assert "no labels.json" in capsys.readouterr().err
