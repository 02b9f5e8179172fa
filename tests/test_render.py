"""Rendering dice scenes end to end with the path tracer (Mitsuba 3, installed with the dev
extra): the picture shows what the labels say, and a seed gives the same folder again."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import cv2
import numpy as np
import pytest

if platform.machine() in ("aarch64", "armv7l"):
    pytest.skip(
        "Mitsuba publishes no wheels for ARM Linux: rendering is tested on x86-64", allow_module_level=True
    )

# Imported, never skipped elsewhere: the dev extra installs the renderer, so `make test` renders.
import mitsuba as mi  # noqa: E402

from vision.datasets import load_photos
from vision.training import render
from vision.training.die_mesh import NORMALS, build, draw_shape
from vision.training.materials import Look
from vision.training.scenes import Camera, Die, Layout, face_up


@pytest.fixture(scope="module", autouse=True)
def variant():
    import drjit as dr

    mi.set_variant(render.VARIANT)
    dr.set_thread_count(1)


def _plastic(body: tuple, pips: tuple, contrast: int) -> Look:
    def bsdf(c):
        return {"type": "principled", "base_color": {"type": "rgb", "value": list(c)}, "roughness": 0.4}

    return Look("plastic", "painted", bsdf(body), bsdf(pips), None, contrast)


def _two_dice() -> render.Plan:
    """A white die with black pips showing 5 and a red one with white pips showing 3, from above."""
    p = render.plan(np.random.default_rng(4), 128, 128)
    dice, meshes = [], []
    for x, value in ((-13.0, 5), (13.0, 3)):
        shape = draw_shape(np.random.default_rng(value))
        die = Die(shape, 18.0, face_up(shape.values.index(value), 0.3), np.array([x, 0.0, 9.0]))
        dice.append(die)
        meshes.append(build(shape, cells=48))
    p.layout = Layout(dice, None, 20.0)
    p.meshes = meshes
    p.looks = [
        _plastic((0.8, 0.8, 0.8), (0.002, 0.002, 0.002), -1),
        _plastic((0.6, 0.02, 0.02), (0.85,) * 3, 1),
    ]
    p.camera = Camera(np.array([0.0, 0.0, 160.0]), np.zeros(3), 40.0, 128, 128, up=np.array([0.0, 1.0, 0.0]))
    p.lens = render.Lens()
    p.aperture, p.motion, p.noise, p.exposure = 0.0, (0.0, 0.0), 0.002, 0.25
    p.table = np.full((8, 8, 3), 0.45, np.float32)
    p.lights = [render.Light("area", np.array([0.3, 0.2, 0.93]), 400.0, 1.0, np.ones(3), radius=80.0)]
    p.ambient = np.full(3, 0.3)
    return p


def _brightness(grey: np.ndarray, p: render.Plan, die: Die, points: list) -> float:
    """The mean grey of 3x3 pixels round where ``points`` (die coordinates) are seen."""
    xy = p.camera.project(die.to_world(np.array(points)))
    return float(np.mean([grey[int(y) - 1 : int(y) + 2, int(x) - 1 : int(x) + 2].mean() for x, y in xy]))


def test_a_rendered_scene_shows_what_its_labels_say() -> None:
    p = _two_dice()
    scene = mi.load_dict(render.scene_dict(p, 16))
    image = render.develop(np.array(mi.render(scene, spp=16)), p, np.random.default_rng(0))
    labels = render.labels(p, scene)
    assert [d["value"] for d in labels] == [5, 3]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    for die, mesh, look, label in zip(p.layout.dice, p.meshes, p.looks, labels, strict=True):
        x0, y0, x1, y1 = label["box"]
        assert 0 <= x0 < x1 <= 128 and 0 <= y0 < y1 <= 128
        centre = p.camera.project(die.position[None])[0]
        assert x0 < centre[0] < x1 and y0 < centre[1] < y1
        side = p.camera.focal * die.size / (160 - die.size)
        assert side * 0.95 < x1 - x0 < side * 1.35  # the whole die, its top face the largest part
        # The top face's pips are darker (or lighter) than the body between them, as painted.
        face = int(np.argmax(NORMALS @ (die.rotation.T @ np.array([0.0, 0, 1]))))
        n = NORMALS[face]
        u = np.roll(n, 1)
        v = np.cross(n, u)
        a = mesh.shape.pip_offset
        between = [0.5 * n + s * a * w for s in (-1, 1) for w in (u, v)]

        pips, body = _brightness(grey, p, die, mesh.pip_centres[face]), _brightness(grey, p, die, between)
        assert np.sign(pips - body) == look.pip_contrast and abs(pips - body) > 40
    # Count the white die's pips in its top face: dark spots on white.
    die, mesh = p.layout.dice[0], p.meshes[0]
    face = int(np.argmax(NORMALS @ (die.rotation.T @ np.array([0.0, 0, 1]))))
    n = NORMALS[face]
    flat = 0.5 - mesh.shape.rounding
    corner_dirs = [c for c in np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).T.reshape(-1, 3) if c @ n == 1]
    corners = [0.5 * n + flat * (c - n) for c in corner_dirs]
    hull = cv2.convexHull(p.camera.project(die.to_world(np.array(corners))).astype(np.float32))
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, hull.astype(np.int32), 1)
    dark = ((grey < 0.5 * np.median(grey[mask > 0])) & (mask > 0)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    assert sum(1 for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 2) == 5


def test_the_command_writes_a_train_split_again_the_same_for_a_seed(tmp_path: Path) -> None:
    out = []
    for run in ("a", "b"):
        folder = tmp_path / run / "rendered-d6"
        assert (
            render.main(
                [
                    "--count",
                    "2",
                    "--seed",
                    "3",
                    "--out",
                    str(folder),
                    "--width",
                    "96",
                    "--height",
                    "72",
                    "--spp",
                    "4",
                ]
            )
            == 0
        )
        out.append(folder)
    for name in ("labels.json", "render-3-00000.jpg", "render-3-00001.jpg"):
        assert (out[0] / "train" / name).read_bytes() == (out[1] / "train" / name).read_bytes()
    photos = load_photos(out[0] / "train")
    assert [ph.name for ph in photos] == ["render-3-00000.jpg", "render-3-00001.jpg"]
    assert sum(len(ph.dice) for ph in photos) >= 2
    labels = json.loads((out[0] / "train" / "labels.json").read_text())
    for ph in photos:
        image = cv2.imread(str(ph.path))
        assert image.shape == (72, 96, 3)
        assert labels[ph.name]["width"] == 96 and labels[ph.name]["height"] == 72
        for value, (x0, y0, x1, y1) in ph.dice:
            assert 0 <= value <= 6 and 0 <= x0 < x1 <= 96 and 0 <= y0 < y1 <= 72
    assert "Value 0" in (out[0] / "README.md").read_text()
