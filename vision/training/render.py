"""Render labelled photos of dice scenes with a path tracer (Mitsuba 3, on the CPU).

    python -m vision.training.render --count 2000 --seed 1 --out ../rendered/rendered-d6 \\
        --datasets ../shared/datasets

writes ``OUT/train/`` as the datasets are laid out (JPEGs and ``labels.json``), so the training
scripts take ``OUT`` beside the real datasets. A seed gives the same frames again. Each frame
holds 1-8 dice of random make at rest (flat, touching, cocked, stacked) on cloth, felt, wood,
paper, a printed board or a tile of a train photo where no die lies, in a tray or not, under one
to three lights, seen from overhead to 50 degrees of slant through a lens from normal to
fisheye, with focus and motion blur, sensor noise and JPEG. A die with no face up (cocked, or
under another) is labelled 0, as the project's other rendered frames mark a die no reading is
right for. Needs the ``train`` extra (``mitsuba``).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.training import sources, textures
from vision.training.die_mesh import NORMALS, DieMesh, build
from vision.training.materials import Look, draw_look
from vision.training.scenes import Camera, Layout, fit_camera, sample_camera, sample_layout

VARIANT = "scalar_rgb"
TEXTURE_PX = 512


@dataclass
class Lens:
    """The lens's distortion, applied to the rendered pinhole frame: ``k`` barrel (0: none), or an
    equidistant fisheye whose picture ends in a circle of ``circle`` times the half diagonal."""

    kind: str = "none"  # none, barrel, fisheye
    k: float = 0.0
    circle: float = 1.0

    def forward(self, xy: np.ndarray, width: int, height: int, focal: float) -> np.ndarray:
        """Where pixels of the pinhole frame land in the distorted one."""
        if self.kind == "none":
            return xy
        c = np.array([width / 2, height / 2])
        d = xy - c
        r = np.linalg.norm(d, axis=1)
        if self.kind == "fisheye":
            f_out = self._fisheye_focal(width, focal)
            r_out = f_out * np.arctan(r / focal)
        else:
            norm = math.hypot(width, height) / 2
            rn = r / norm
            # Invert r_in = r_out (1 + k r_out^2) / (1 + k) by Newton's method.
            ro = rn.copy()
            for _ in range(20):
                g = ro * (1 + self.k * ro**2) / (1 + self.k) - rn
                ro -= g / ((1 + 3 * self.k * ro**2) / (1 + self.k))
            r_out = ro * norm
        scale = np.where(r > 1e-9, r_out / np.maximum(r, 1e-9), 1.0)
        return c + d * scale[:, None]

    @staticmethod
    def _fisheye_focal(width: int, focal: float) -> float:
        # The frame's left and right edges stay where they are.
        return (width / 2) / math.atan((width / 2) / focal)

    def warp(self, image: np.ndarray, focal: float) -> np.ndarray:
        """The distorted frame (outside a fisheye's circle: black)."""
        if self.kind == "none":
            return image
        h, w = image.shape[:2]
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        dx, dy = x + 0.5 - w / 2, y + 0.5 - h / 2
        r_out = np.hypot(dx, dy)
        if self.kind == "fisheye":
            f_out = self._fisheye_focal(w, focal)
            theta = np.minimum(r_out / f_out, math.radians(89))
            r_in = focal * np.tan(theta)
        else:
            norm = math.hypot(w, h) / 2
            rn = r_out / norm
            r_in = rn * (1 + self.k * rn**2) / (1 + self.k) * norm
        scale = np.where(r_out > 1e-6, r_in / np.maximum(r_out, 1e-6), 1.0)
        map_x = (w / 2 + dx * scale - 0.5).astype(np.float32)
        map_y = (h / 2 + dy * scale - 0.5).astype(np.float32)
        out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        if self.kind == "fisheye":
            out[r_out > self.circle * math.hypot(w, h) / 2] = 0
        return out


@dataclass
class Light:
    kind: str  # area, point, sun
    direction: np.ndarray  # from the scene towards the light (unit)
    distance: float  # mm (area, point)
    irradiance: float  # on the table, before the frame's exposure
    color: np.ndarray
    radius: float = 0.0  # area light's sphere


@dataclass
class Plan:
    """Everything random about one frame, drawn before rendering (numpy only)."""

    layout: Layout
    meshes: list[DieMesh]
    looks: list[Look]
    camera: Camera
    lens: Lens
    lights: list[Light]
    ambient: np.ndarray
    table: np.ndarray  # texture
    table_kind: str
    table_period: float  # mm the texture spans
    floor: np.ndarray | None  # the tray's floor texture
    wall_color: np.ndarray
    aperture: float  # thin lens radius, mm (0: pinhole)
    focus: float  # distance in focus, mm
    exposure: float  # the frame's median brightness, linear
    motion: tuple[float, float]  # blur length px, angle
    noise: float
    jpeg: int
    seed: int


def _light_color(rng: np.random.Generator) -> np.ndarray:
    # From warm tungsten to cool daylight, now and then a coloured lamp.
    t = rng.uniform(-1, 1)
    c = np.array([1 + 0.35 * max(t, 0), 1.0, 1 + 0.35 * max(-t, 0)]) * np.array([1, 1, 1 - 0.45 * max(t, 0)])
    if rng.random() < 0.15:
        c = c * (0.4 + rng.random(3))
    return c / c.max()


def plan(rng: np.random.Generator, width: int, height: int, photo_folders: list[Path] = ()) -> Plan:
    """A random scene to render at ``width`` x ``height`` (table tiles cut from ``photo_folders``)."""
    die_px = float(np.exp(rng.uniform(math.log(20), math.log(150))))
    die_mm = float(rng.uniform(12, 22))
    # The dice spread over the part of the frame that holds them at this size.
    room = min(width, height) / 2 * 0.8 / die_px
    radius = max(0.0, (room - 0.7) * die_mm) * rng.uniform(0.6, 1.0)
    fits = max(1, int((radius / die_mm + 0.6) ** 2 * 1.5))
    count = int(rng.integers(1, min(8, fits) + 1))
    layout = sample_layout(
        rng, count, radius, size_range=(max(12.0, die_mm * 0.85), min(22.0, die_mm * 1.15))
    )
    meshes = [build(d.shape) for d in layout.dice]
    looks = [draw_look(rng, m.vertices) for m in meshes]
    centre = np.mean([d.position for d in layout.dice], axis=0) if layout.dice else np.zeros(3)
    camera = sample_camera(rng, width, height, die_px, die_mm, centre)
    points = np.concatenate([d.to_world(m.vertices[::50]) for d, m in zip(layout.dice, meshes, strict=True)])
    camera = fit_camera(camera, points, margin=3.0)

    lens = Lens()
    roll = rng.random()
    if roll < 0.12:
        lens = Lens("fisheye", circle=float(rng.uniform(0.85, 1.05)))
    elif roll < 0.4:
        lens = Lens("barrel", k=float(rng.uniform(0.03, 0.25)))
    if lens.kind == "fisheye":
        warped = lens.forward(camera.project(points), width, height, camera.focal)
        r = np.hypot(warped[:, 0] - width / 2, warped[:, 1] - height / 2)
        if r.max() > 0.95 * lens.circle * math.hypot(width, height) / 2:
            # Dice past a fisheye's circle would be lost: such a frame gets a milder lens.
            lens = Lens("barrel", k=float(rng.uniform(0.03, 0.25)))

    lights = []
    for _ in range(int(rng.choice([1, 2, 3], p=(0.45, 0.35, 0.2)))):
        kind = str(rng.choice(["area", "point", "sun"], p=(0.5, 0.25, 0.25)))
        elev = math.radians(rng.uniform(25, 90))
        az = rng.uniform(0, 2 * math.pi)
        direction = np.array([math.cos(elev) * math.cos(az), math.cos(elev) * math.sin(az), math.sin(elev)])
        distance = float(rng.uniform(250, 1500))
        lights.append(
            Light(
                kind,
                direction,
                distance,
                float(rng.uniform(0.2, 1.0)),
                _light_color(rng),
                radius=float(distance * rng.uniform(0.02, 0.3)),
            )
        )
    ambient = _light_color(rng) * float(rng.uniform(0.03, 0.35))

    table_kind = str(rng.choice(textures.KINDS, p=(0.15, 0.15, 0.2, 0.15, 0.15, 0.2)))
    table = textures.draw(rng, table_kind, TEXTURE_PX, photo_folders)
    floor = None
    if layout.tray is not None:
        floor = textures.draw(rng, str(rng.choice(["felt", "cloth"])), TEXTURE_PX, photo_folders)
    slant_dist = float(np.linalg.norm(camera.origin - camera.target))
    aperture = 0.0
    if rng.random() < 0.3:  # a shallow focus, a little in front of or behind the dice
        aperture = float(slant_dist * rng.uniform(0.003, 0.025))
    dim = rng.random() < 0.2
    return Plan(
        layout=layout,
        meshes=meshes,
        looks=looks,
        camera=camera,
        lens=lens,
        lights=lights,
        ambient=ambient,
        table=table,
        table_kind=table_kind,
        table_period=float(rng.uniform(60, 400)),
        floor=floor,
        wall_color=textures.colour(rng),
        aperture=aperture,
        exposure=float(rng.uniform(0.03, 0.08) if dim else rng.uniform(0.1, 0.35)),
        motion=(float(rng.uniform(1.5, 7)) if rng.random() < 0.15 else 0.0, float(rng.uniform(0, math.pi))),
        noise=float(rng.uniform(0.01, 0.04) * (2.5 if dim else 1.0)),
        jpeg=int(rng.integers(40, 96)),
        seed=int(rng.integers(0, 2**31 - 1)),
        focus=float(slant_dist * rng.uniform(0.85, 1.15)),
    )


def _linear(tex: np.ndarray) -> np.ndarray:
    return np.where(tex <= 0.04045, tex / 12.92, ((tex + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _mesh(mi, name: str, vertices: np.ndarray, normals: np.ndarray, faces: np.ndarray, colors=None):
    mesh = mi.Mesh(name, len(vertices), len(faces), has_vertex_normals=True)
    params = mi.traverse(mesh)
    params["vertex_positions"] = vertices.astype(np.float32).ravel()
    params["vertex_normals"] = normals.astype(np.float32).ravel()
    params["faces"] = faces.astype(np.uint32).ravel()
    if colors is not None:
        mesh.add_attribute("vertex_color", 3, colors.astype(np.float32).ravel())
    params.update()
    return mesh


def scene_dict(p: Plan, spp: int) -> dict:
    """The Mitsuba scene of plan ``p``."""
    import mitsuba as mi

    T = mi.ScalarTransform4f
    cam = p.camera
    sensor = {
        "type": "thinlens" if p.aperture > 0 else "perspective",
        "fov": cam.fov_x,
        "fov_axis": "x",
        "to_world": T().look_at(origin=cam.origin.tolist(), target=cam.target.tolist(), up=cam.up.tolist()),
        "film": {
            "type": "hdrfilm",
            "width": cam.width,
            "height": cam.height,
            "rfilter": {"type": "gaussian"},
        },
        "sampler": {"type": "independent", "sample_count": spp, "seed": p.seed},
    }
    if p.aperture > 0:
        sensor["aperture_radius"] = p.aperture
        sensor["focus_distance"] = p.focus
    translucent = any(look.body == "translucent" for look in p.looks)
    scene: dict = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 8 if translucent else 5},
        "sensor": sensor,
        "ambient": {"type": "constant", "radiance": {"type": "rgb", "value": (p.ambient / math.pi).tolist()}},
    }
    reach = float(np.linalg.norm(cam.origin - cam.target)) * 3 + 500
    centre = cam.target.copy()
    tray = p.layout.tray
    base = -tray.thickness if tray is not None else 0.0

    def textured(tex: np.ndarray, span: float, period: float, rough: float) -> dict:
        return {
            "type": "principled",
            "base_color": {
                "type": "bitmap",
                "bitmap": mi.Bitmap(_linear(tex)),
                "raw": True,
                "wrap_mode": "mirror",
                "to_uv": T().scale([span / period, span / period, 1]),
            },
            "roughness": rough,
            "specular": 0.3,
        }

    scene["table"] = {
        "type": "rectangle",
        "to_world": T().translate([float(centre[0]), float(centre[1]), base]).scale([reach, reach, 1]),
        "bsdf": textured(p.table, 2 * reach, p.table_period, 0.7),
    }
    if tray is not None:
        scene["tray_floor"] = {
            "type": "rectangle",
            "to_world": T().scale([tray.half_x, tray.half_y, 1]),
            "bsdf": textured(p.floor, 2 * max(tray.half_x, tray.half_y), 120.0, 0.95),
        }
        wall_bsdf = {"type": "principled", "base_color": _rgb_dict(p.wall_color), "roughness": 0.5}
        t = 4.0
        h = (tray.wall + tray.thickness) / 2
        zc = tray.wall - h
        for k, (cx, cy, sx, sy) in enumerate(
            [
                (tray.half_x + t, 0, t, tray.half_y + 2 * t),
                (-tray.half_x - t, 0, t, tray.half_y + 2 * t),
                (0, tray.half_y + t, tray.half_x, t),
                (0, -tray.half_y - t, tray.half_x, t),
            ]
        ):
            scene[f"wall{k}"] = {
                "type": "cube",
                "to_world": T().translate([cx, cy, zc]).scale([sx, sy, h]),
                "bsdf": wall_bsdf,
            }
    for k, (die, mesh, look) in enumerate(zip(p.layout.dice, p.meshes, p.looks, strict=True)):
        verts = die.to_world(mesh.vertices)
        norms = mesh.normals @ die.rotation.T
        body = _mesh(mi, f"die{k}-body", verts, norms, mesh.body_faces, look.vertex_colors)
        body.set_bsdf(mi.load_dict(look.body_bsdf))
        scene[f"die{k}-body"] = body
        if len(mesh.pip_faces):
            pips = _mesh(mi, f"die{k}-pips", verts, norms, mesh.pip_faces, look.vertex_colors)
            pips.set_bsdf(mi.load_dict(look.pip_bsdf))
            scene[f"die{k}-pips"] = pips
    for k, light in enumerate(p.lights):
        c = (light.color * light.irradiance).tolist()
        if light.kind == "sun":
            scene[f"light{k}"] = {
                "type": "directional",
                "direction": (-light.direction).tolist(),
                "irradiance": {"type": "rgb", "value": c},
            }
            continue
        pos = (centre + light.direction * light.distance).tolist()
        if light.kind == "point":
            power = (light.color * light.irradiance * light.distance**2).tolist()
            scene[f"light{k}"] = {
                "type": "point",
                "position": pos,
                "intensity": {"type": "rgb", "value": power},
            }
        else:
            radiance = (
                light.color * light.irradiance * light.distance**2 / (math.pi * light.radius**2)
            ).tolist()
            scene[f"light{k}"] = {
                "type": "sphere",
                "center": pos,
                "radius": light.radius,
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": radiance}},
            }
    return scene


def _rgb_dict(c: np.ndarray) -> dict:
    return {"type": "rgb", "value": _linear(np.asarray(c, np.float32)).tolist()}


def _visible(mi, scene, camera: Camera, target: np.ndarray, names: tuple[str, ...]) -> bool:
    """Whether the ray from the camera to ``target`` first meets one of the shapes ``names``."""
    d = target - camera.origin
    dist = float(np.linalg.norm(d))
    ray = mi.Ray3f(mi.ScalarPoint3f(*camera.origin), mi.ScalarVector3f(*(d / dist)))
    si = scene.ray_intersect(ray)
    return bool(si.is_valid()) and si.shape.id() in names


def labels(p: Plan, scene=None) -> list[dict]:
    """Each die's value and box in the frame, as the datasets give them. With the loaded
    ``scene``, a die no ray from the camera reaches is left out, and one whose top face is
    mostly hidden is labelled 0."""
    cam = p.camera
    out = []
    for k, (die, mesh) in enumerate(zip(p.layout.dice, p.meshes, strict=True)):
        value = die.value
        if scene is not None:
            import mitsuba as mi

            names = (f"die{k}-body", f"die{k}-pips")
            up = die.rotation.T @ np.array([0.0, 0.0, 1.0])
            face = int(np.argmax(NORMALS @ up))
            top = mesh.pip_centres[face]
            n = NORMALS[face]
            spots = [n * 0.5 + 0.3 * (a - n * 0.5) for a in top] + [n * 0.5]
            seen = [_visible(mi, scene, cam, die.to_world(s + 0.01 * n), names) for s in spots]
            # Points all over its surface, just outside it: a die none of them is seen from is
            # not in the picture.
            pick = np.linspace(0, len(mesh.vertices) - 1, 48).astype(int)
            outside = die.to_world(mesh.vertices[pick] + 0.01 * mesh.normals[pick])
            if not any(seen) and not any(_visible(mi, scene, cam, q, names) for q in outside):
                continue
            if np.mean(seen) < 0.6:
                value = 0
        xy = cam.project(die.to_world(mesh.vertices[::3]))
        xy = p.lens.forward(xy, cam.width, cam.height, cam.focal)
        x0, y0 = np.clip(xy.min(axis=0), 0, [cam.width, cam.height])
        x1, y1 = np.clip(xy.max(axis=0), 0, [cam.width, cam.height])
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        out.append({"value": int(value), "box": [round(float(v), 1) for v in (x0, y0, x1, y1)]})
    return out


def develop(hdr: np.ndarray, p: Plan, rng: np.random.Generator) -> np.ndarray:
    """A camera's picture of the rendered light: exposure, motion blur, lens, noise, sRGB (uint8 BGR)."""
    img = np.nan_to_num(hdr[:, :, :3].astype(np.float32), nan=0.0, posinf=0.0)
    # Fireflies (a rare light path through a translucent die carrying a huge weight) are
    # the path tracer's, not the camera's: such a pixel takes its neighbours' median.
    median = cv2.medianBlur(img, 5)
    luma_weights = np.array([0.2126, 0.7152, 0.0722], np.float32)
    spark = (img @ luma_weights) > 4 * (median @ luma_weights) + 0.02 * float(
        np.median(median @ luma_weights)
    )
    img[spark] = median[spark]
    luma = img @ luma_weights
    img *= p.exposure / max(float(np.median(luma)), 1e-6)
    img *= rng.uniform(0.92, 1.08, 3).astype(np.float32)  # the camera's white balance is never quite right
    length, angle = p.motion
    if length > 0:
        size = int(math.ceil(length)) | 1
        kernel = np.zeros((size, size), np.float32)
        c = size // 2
        dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    img = p.lens.warp(img, p.camera.focal)
    shot = np.sqrt(np.clip(img, 0, None) * p.noise * 0.05)
    img = img + rng.normal(0, 1, img.shape).astype(np.float32) * (shot + p.noise * 0.1)
    img = np.clip(img, 0, 1)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * img ** (1 / 2.4) - 0.055)
    return (srgb[:, :, ::-1] * 255 + 0.5).astype(np.uint8)


def render_frame(
    rng: np.random.Generator, width: int, height: int, spp: int, photo_folders: list[Path] = ()
) -> tuple[np.ndarray, list[dict], Plan]:
    """One rendered frame (uint8 BGR, before JPEG), its labels and its plan."""
    import mitsuba as mi

    if mi.variant() is None:
        mi.set_variant(VARIANT)
    p = plan(rng, width, height, photo_folders)
    scene = mi.load_dict(scene_dict(p, spp))
    hdr = np.array(mi.render(scene, spp=spp))
    return develop(hdr, p, rng), labels(p, scene), p


def write_folder(
    out: Path, count: int, seed: int, width: int, height: int, spp: int, photo_folders: list[Path] = ()
) -> dict:
    """Render ``count`` frames into ``out/train`` (JPEGs, labels.json, README.md); returns the labels."""
    folder = out / "train"
    folder.mkdir(parents=True, exist_ok=True)
    all_labels: dict = {}
    t0 = time.time()
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        image, dice, p = render_frame(rng, width, height, spp, photo_folders)
        name = f"render-{seed}-{i:05d}.jpg"
        cv2.imwrite(str(folder / name), image, [cv2.IMWRITE_JPEG_QUALITY, p.jpeg])
        all_labels[name] = {"width": width, "height": height, "dice": dice}
        took = time.time() - t0
        print(
            f"{name}: {len(dice)} dice, {p.table_kind}, {p.lens.kind} ({took / (i + 1):.1f} s a frame)",
            flush=True,
        )
    (folder / "labels.json").write_text(json.dumps(all_labels, indent=1) + "\n")
    (out / "README.md").write_text(README.format(count=count, seed=seed, width=width, height=height, spp=spp))
    return all_labels


README = """# Rendered dice scenes (vision.training.render)

{count} frames ({width}x{height}, {spp} samples a pixel) rendered with Mitsuba 3 by

    python -m vision.training.render --count {count} --seed {seed} --out <this folder>

The same command makes the same frames again; they are not kept in the repository. `train/`
holds the JPEGs and `labels.json` in the format of the photo datasets:

    {{"render-{seed}-00000.jpg": {{"width": {width}, "height": {height},
                           "dice": [{{"value": 6, "box": [x0, y0, x1, y1]}}, ...]}}}}

A box holds the whole die as the camera sees it (its outline, not only its top face).
**Value 0** marks a die that shows no top face: cocked (leaning on a wall or another die,
its most upward face turned more than 20 degrees from straight up), under another die, or
with its top face mostly hidden from the camera (by a tray's wall, another die). No reading of
such a die is right; the training scripts take 0 as "no readable face". A die no ray from the
camera reaches is not labelled.
"""


def contact_sheet(
    frames: list[tuple[np.ndarray, list[dict]]], photos: list[tuple[np.ndarray, list[dict]]]
) -> np.ndarray:
    """Rendered frames (top rows) beside real train photos (bottom row), labels drawn on both."""
    cell_w, cell_h = 240, 180

    def cell(image: np.ndarray, dice: list[dict], caption: str) -> np.ndarray:
        h, w = image.shape[:2]
        s = min(cell_w / w, cell_h / h)
        small = cv2.resize(image, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        for d in dice:
            x0, y0, x1, y1 = (int(round(v * s)) for v in d["box"])
            colour = (0, 200, 255) if d["value"] else (255, 0, 255)
            cv2.rectangle(small, (x0, y0), (x1, y1), colour, 1)
            cv2.putText(small, str(d["value"]), (x0, max(8, y0 - 2)), cv2.FONT_HERSHEY_PLAIN, 0.8, colour, 1)
        out = np.full((cell_h + 16, cell_w, 3), 255, np.uint8)
        oy, ox = (cell_h - small.shape[0]) // 2, (cell_w - small.shape[1]) // 2
        out[oy : oy + small.shape[0], ox : ox + small.shape[1]] = small
        cv2.putText(out, caption, (4, cell_h + 12), cv2.FONT_HERSHEY_PLAIN, 0.9, (40, 40, 40), 1)
        return out

    cells = [cell(im, d, "rendered") for im, d in frames] + [cell(im, d, cap) for im, d, cap in photos]
    cols = 4
    while len(cells) % cols:
        cells.append(np.full_like(cells[0], 255))
    rows = [np.hstack(cells[r : r + cols]) for r in range(0, len(cells), cols)]
    return np.vstack(rows)


def save_sheet(path: Path, sheet: np.ndarray) -> None:
    """The sheet as a PNG, its colours cut to 5 bits a channel: the noise of the frames would
    otherwise make it several times larger, for no difference one sees."""
    from PIL import Image, ImageOps

    ImageOps.posterize(Image.fromarray(sheet[:, :, ::-1]), 5).save(path, optimize=True)


def sample_photos(folders: list[Path], n: int, rng: np.random.Generator) -> list:
    """``n`` photos of the split ``folders`` (one after another) with their labels and a caption."""
    from vision.datasets import load_photos

    out = []
    for k in range(n):
        folder = folders[k % len(folders)]
        photos = load_photos(folder)
        photo = photos[int(rng.integers(0, len(photos)))]
        img = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        dice = [{"value": v, "box": list(b)} for v, b in photo.dice]
        out.append((img, dice, f"photo: {folder.parent.name}"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, required=True, help="frames to render")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True, help="the folder to write (its train/ split)")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--spp", type=int, default=32, help="samples a pixel")
    ap.add_argument("--threads", type=int, default=1, help="render threads (default one)")
    ap.add_argument(
        "--datasets", type=Path, help="the datasets folder whose train photos give tiles of table (optional)"
    )
    ap.add_argument("--sheet", type=Path, help="also write a PNG of up to 8 frames beside 4 train photos")
    args = ap.parse_args(argv)
    if args.count < 1 or args.width < 32 or args.height < 32 or args.spp < 1:
        ap.error("--count and --spp must be at least 1, --width and --height at least 32")
    if args.datasets is not None and not args.datasets.is_dir():
        ap.error(f"--datasets {args.datasets}: no such folder")
    if args.sheet is not None and not (args.datasets and textures.train_folders(args.datasets, args.out)):
        ap.error("--sheet needs --datasets holding labelled train photos (the real photos it shows)")
    if (args.out / "train" / "labels.json").is_file() and not sources.rendered_here(args.out):
        ap.error(f"--out {args.out}: holds frames this command did not render; choose another folder")
    try:
        import drjit as dr
        import mitsuba as mi
    except ImportError:
        ap.error(
            "needs Mitsuba 3, in the train extra: pip install -e '.[train]' (or the lock's mitsuba and drjit)"
        )

    mi.set_variant(VARIANT)
    dr.set_thread_count(args.threads)
    folders = textures.train_folders(args.datasets, leave_out=args.out) if args.datasets else []
    labelled = write_folder(args.out, args.count, args.seed, args.width, args.height, args.spp, folders)
    if args.sheet is not None:
        folder = args.out / "train"
        frames = [(cv2.imread(str(folder / name)), lab["dice"]) for name, lab in list(labelled.items())[:8]]
        photos = sample_photos(folders, 4, np.random.default_rng(args.seed))
        args.sheet.parent.mkdir(parents=True, exist_ok=True)
        save_sheet(args.sheet, contact_sheet(frames, photos))
        print(f"wrote {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
