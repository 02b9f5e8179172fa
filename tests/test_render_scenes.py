"""The rendered scenes' geometry without the path tracer: the die mesh, the resting poses,
the camera's projection and lens, the labels, and how training reads a rendered folder."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.training import render, scenes, textures
from vision.training.die_mesh import NORMALS, build, draw_shape, pip_layout
from vision.training.scenes import COCKED_DEG, Camera, Die, face_up, overlap, sample_layout

SEEDS = range(40)


def test_opposite_faces_sum_to_seven_and_each_face_has_its_pips() -> None:
    handedness = set()
    for seed in SEEDS:
        shape = draw_shape(np.random.default_rng(seed))
        values = shape.values
        assert sorted(values) == [1, 2, 3, 4, 5, 6]
        for k in range(0, 6, 2):  # FACES holds opposite faces one after the other
            assert values[k] + values[k + 1] == 7
            assert NORMALS[k] @ NORMALS[k + 1] == -1
        mesh = build(shape, cells=24)
        for k, centres in enumerate(mesh.pip_centres):
            assert len(centres) == values[k]
            # Every pip sits on its own face, on the flat part.
            assert np.allclose(centres @ NORMALS[k], 0.5)
            flat = 0.5 - shape.rounding
            radius = shape.one_radius if values[k] == 1 else shape.pip_radius
            assert np.abs(centres - 0.5 * NORMALS[k]).max() + radius <= flat + 1e-9
        # Which way 1, 2 and 3 run round their corner.
        n = [NORMALS[values.index(v)] for v in (1, 2, 3)]
        handedness.add(float(np.sign(np.linalg.det(np.array(n)))))
    assert handedness == {-1.0, 1.0}  # both kinds of die are made


def test_the_pips_are_cavities_and_the_edges_are_round() -> None:
    shape = draw_shape(np.random.default_rng(3))
    mesh = build(shape, cells=48)
    v = mesh.vertices
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)
    assert np.abs(v).max() <= 0.5 + 1e-9
    # A corner of a rounded die is cut: no vertex is as far out as the cube's corner.
    assert np.linalg.norm(v, axis=1).max() < math.sqrt(3) * 0.5 - 0.5 * shape.rounding
    per_face = 49**2  # the mesh is built face after face, a grid of 49 x 49 vertices each
    for k, centres in enumerate(mesh.pip_centres):
        normal = NORMALS[k]
        pips = np.unique(mesh.pip_faces)
        on_face = pips[(pips >= k * per_face) & (pips < (k + 1) * per_face)]
        height = v[on_face] @ normal
        radius = shape.one_radius if shape.values[k] == 1 else shape.pip_radius
        # Drilled: inside a pip the surface lies below the face, by up to the cavity's depth.
        assert height.min() < 0.5 - 0.5 * shape.pip_depth * radius
        assert height.min() >= 0.5 - shape.pip_depth * radius - 1e-9
        rim = np.linalg.norm(v[on_face][:, None, :] - centres[None], axis=2).min(axis=1)
        assert rim.max() <= radius + 1e-6
    # Outside the pips the face is flat.
    body = np.unique(mesh.body_faces)
    top = body[(v[body] @ NORMALS[4] > 0.5 - 1e-9)]
    assert len(top) and np.allclose(v[top] @ NORMALS[4], 0.5)


def test_two_three_and_six_are_drawn_either_way() -> None:
    for value in (2, 3, 6):
        plain, turned = pip_layout(value, 0.25, False), pip_layout(value, 0.25, True)
        assert {tuple(p) for p in plain.round(6)} != {tuple(p) for p in turned.round(6)}
    for value in (1, 4, 5):  # these look the same either way
        plain, turned = pip_layout(value, 0.25, False), pip_layout(value, 0.25, True)
        assert {tuple(p) for p in plain.round(6)} == {tuple(p) for p in turned.round(6)}


@pytest.mark.parametrize("face", range(6))
def test_the_value_up_is_the_face_turned_up(face: int) -> None:
    shape = draw_shape(np.random.default_rng(face))
    for yaw in (0.0, 0.7, 2.0, 4.4):
        die = Die(shape, 16.0, face_up(face, yaw), np.zeros(3))
        assert die.value == shape.values[face]
        assert die.top() == (shape.values[face], pytest.approx(0.0, abs=1e-6))


def test_dice_rest_on_the_table_touch_lean_and_stack() -> None:
    seen = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        layout = sample_layout(rng, int(rng.integers(1, 9)), float(rng.uniform(15, 70)))
        assert layout.dice
        on_table = [d for d in layout.dice if d.how != "stacked"]
        for die in layout.dice:
            seen.add(die.how)
            corners = die.to_world(scenes._CUBE)
            if die.how == "stacked":
                below = [d for d in layout.dice if d.how == "under"]
                assert any(corners[:, 2].min() >= d.position[2] + d.size / 2 - 1e-6 for d in below)
            else:
                assert corners[:, 2].min() == pytest.approx(0.0, abs=1e-6)
            value, tilt = die.top()
            if die.how in ("flat", "touching", "stacked"):
                assert die.value == value and 1 <= value <= 6 and tilt == pytest.approx(0.0, abs=1e-6)
            else:  # cocked or covered: no face up to read
                assert die.value == 0
                if die.how == "cocked":
                    assert tilt > COCKED_DEG
            if layout.tray is not None:
                fp = die.footprint()
                assert np.abs(fp[:, 0]).max() <= layout.tray.half_x + 0.2
                assert np.abs(fp[:, 1]).max() <= layout.tray.half_y + 0.2
        upright = [d for d in on_table if d.how in ("flat", "touching", "under")]
        for i, a in enumerate(upright):
            for b in upright[i + 1 :]:
                assert not overlap(a.footprint(), b.footprint())
        for die in (d for d in layout.dice if d.how == "cocked"):  # it leans on something
            fp = die.footprint()
            grown = fp.mean(axis=0) + (fp - fp.mean(axis=0)) * (1 + 0.3 / die.size)
            on_wall = layout.tray is not None and (
                np.abs(fp[:, 0]).max() >= layout.tray.half_x - 0.3
                or np.abs(fp[:, 1]).max() >= layout.tray.half_y - 0.3
            )
            assert on_wall or any(overlap(grown, o.footprint()) for o in upright)
        for die in (d for d in layout.dice if d.how == "touching"):
            grown = die.footprint() * 1.0
            centre = grown.mean(axis=0)
            grown = centre + (grown - centre) * (1 + 0.2 / die.size)
            assert any(overlap(grown, o.footprint()) for o in on_table if o is not die)
    assert seen == {"flat", "touching", "cocked", "stacked", "under"}


def test_the_camera_sees_a_die_below_it_where_and_as_large_as_it_should() -> None:
    cam = Camera(np.array([0.0, 0, 300]), np.zeros(3), 60.0, 320, 240, up=np.array([0.0, 1, 0]))
    die = Die(draw_shape(np.random.default_rng(1)), 20.0, np.eye(3), np.array([0.0, 0, 10]))
    xy = cam.project(die.to_world(scenes._CUBE))
    box = xy.min(axis=0), xy.max(axis=0)
    assert (box[0] + box[1]) / 2 == pytest.approx([160, 120], abs=1e-6)
    assert box[1][0] - box[0][0] == pytest.approx(cam.focal * 20 / 280, rel=1e-6)  # its top, the nearest
    # Up in the world's y is up in the frame; Mitsuba's look-at puts +x on the frame's right.
    above, right = cam.project(np.array([[0.0, 50, 0], [50.0, 0, 0]]))
    assert above[1] < 120 and above[0] == pytest.approx(160)
    assert right[0] > 160 and right[1] == pytest.approx(120)


@pytest.mark.parametrize("lens", [render.Lens("barrel", k=0.2), render.Lens("fisheye", circle=1.0)])
def test_the_boxes_move_as_the_lens_warps_the_frame(lens: render.Lens) -> None:
    w, h, focal = 320, 240, 200.0
    for x, y in [(60, 50), (250, 200), (160, 120), (300, 30)]:
        image = np.zeros((h, w, 3), np.float32)
        cv2.circle(image, (x, y), 3, (1, 1, 1), -1)
        warped = lens.warp(image, focal)[:, :, 0]
        ys, xs = np.nonzero(warped > 0.2)
        if not len(xs):  # past the fisheye's circle
            continue
        weights = warped[ys, xs]
        found = np.array([(xs * weights).sum(), (ys * weights).sum()]) / weights.sum()
        expected = lens.forward(np.array([[x + 0.5, y + 0.5]]), w, h, focal)[0] - 0.5
        assert found == pytest.approx(expected, abs=1.0)


def test_a_plan_is_the_same_for_a_seed_and_its_labels_lie_in_the_frame() -> None:
    for seed in range(12):
        a = render.plan(np.random.default_rng([9, seed]), 320, 240)
        b = render.plan(np.random.default_rng([9, seed]), 320, 240)
        la, lb = render.labels(a), render.labels(b)
        assert la == lb and len(la) == len(a.layout.dice)
        assert np.array_equal(a.table, b.table)
        for d in la:
            x0, y0, x1, y1 = d["box"]
            assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 240
            assert 0 <= d["value"] <= 6
        sizes = [max(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1]) for d in la]
        assert min(sizes) >= 8 and max(sizes) <= 240


def test_every_kind_of_table_is_drawn() -> None:
    for kind in textures.KINDS:
        tex = textures.draw(np.random.default_rng(2), kind, 128)
        assert tex.shape == (128, 128, 3) and tex.dtype == np.float32
        assert 0 <= tex.min() and tex.max() <= 1 and tex.std() > 0.005


def test_a_photo_tile_holds_no_labelled_die(tmp_path: Path) -> None:
    folder = tmp_path / "set" / "train"
    folder.mkdir(parents=True)
    image = np.full((200, 300, 3), 90, np.uint8)
    image[50:110, 200:260] = 250  # a die
    cv2.imwrite(str(folder / "a.jpg"), image)
    (folder / "labels.json").write_text(
        json.dumps({"a.jpg": {"dice": [{"value": 3, "box": [200, 50, 260, 110]}]}})
    )
    for seed in range(5):
        tile = textures.photo_tile(np.random.default_rng(seed), 64, [folder])
        assert tile is not None and tile.max() < 120 / 255
    assert textures.train_folders(tmp_path) == [folder]
    assert textures.train_folders(tmp_path, leave_out=tmp_path / "set") == []


def test_training_reads_a_rendered_folder_and_does_not_find_dice_with_no_face_up(tmp_path: Path) -> None:
    from vision.training import finder, sources

    folder = tmp_path / "rendered-d6" / "train"
    folder.mkdir(parents=True)
    cv2.imwrite(str(folder / "render-1-00000.jpg"), np.zeros((240, 320, 3), np.uint8))
    dice = [{"value": 5, "box": [10, 10, 40, 40]}, {"value": 0, "box": [100, 100, 140, 150]}]
    (folder / "labels.json").write_text(
        json.dumps({"render-1-00000.jpg": {"width": 320, "height": 240, "dice": dice}})
    )
    ((_, labels),) = list(sources.photos(folder))
    assert [d["value"] for d in labels] == [5, 0]  # the verifier learns "no readable face" from it
    ((_, sizes, name),) = finder.load(tmp_path, None)
    assert name == "rendered-d6" and sizes.tolist() == [[25.0, 25.0, 30.0, 1.0]]


def test_folders_of_rendered_frames_weigh_as_one_source_in_training(tmp_path: Path) -> None:
    from vision.training import sources

    def folder(name: str, frames: list[str]) -> None:
        split = tmp_path / name / "train"
        split.mkdir(parents=True)
        for f in frames:
            cv2.imwrite(str(split / f), np.zeros((24, 32, 3), np.uint8))
        split.joinpath("labels.json").write_text(json.dumps({f: {"dice": []} for f in frames}))

    folder("real-d6", ["IMG_1.jpg", "IMG_2.jpg"])
    folder("rendered-a", ["render-1-00000.jpg"])
    folder("rendered-b", ["render-2-00000.jpg", "render-2-00001.jpg"])
    folder("mixed", ["render-3-00000.jpg", "IMG_3.jpg"])  # a dataset that only looks rendered in part
    (tmp_path / "broken" / "train").mkdir(parents=True)
    (tmp_path / "broken" / "train" / "labels.json").write_text("{not json")
    groups = sources.by_source(tmp_path)
    assert {k: [f.name for f in v] for k, v in groups.items()} == {
        "broken": ["broken"],
        "mixed": ["mixed"],
        "real-d6": ["real-d6"],
        sources.PATH_TRACED: ["rendered-a", "rendered-b"],
    }
    assert len(list(sources.source_photos(groups[sources.PATH_TRACED]))) == 3
    assert "real-d6" not in sources.by_source(tmp_path, leave_out="real-d6")


def test_the_command_refuses_bad_arguments_and_a_folder_it_did_not_write(tmp_path: Path, capsys) -> None:
    real = tmp_path / "real-d6" / "train"
    real.mkdir(parents=True)
    (real / "labels.json").write_text(json.dumps({"IMG_1.jpg": {"dice": []}}))
    for argv in (
        ["--count", "0", "--out", str(tmp_path / "x")],
        ["--count", "1", "--out", str(tmp_path / "real-d6")],
        ["--count", "1", "--out", str(tmp_path / "x"), "--datasets", str(tmp_path / "none")],
        ["--count", "1", "--out", str(tmp_path / "x"), "--sheet", str(tmp_path / "s.png")],
    ):
        with pytest.raises(SystemExit) as stop:
            render.main(argv)
        assert stop.value.code == 2
    assert "did not render" in capsys.readouterr().err
    assert json.loads((real / "labels.json").read_text()) == {"IMG_1.jpg": {"dice": []}}
    assert not (tmp_path / "x").exists()
