"""What dice lie on, drawn in numpy: cloth, felt, wood, paper, printed boards, and tiles of the
datasets' train photos where no die lies (read when a scene is made, never stored).

Every texture is float32 RGB in [0, 1], sRGB-encoded as a photo is; the renderer linearises it.
"""

from __future__ import annotations

import colorsys
import math
from pathlib import Path

import cv2
import numpy as np

from vision.datasets import load_photos
from vision.training.sources import labelled

KINDS = ("cloth", "felt", "wood", "paper", "board", "photo")


def noise(rng: np.random.Generator, size: int, scale: float, octaves: int = 4) -> np.ndarray:
    """Smooth value noise in [0, 1], its coarsest detail ``scale`` pixels across; tiles seamlessly."""
    out = np.zeros((size, size), np.float32)
    amp, total = 1.0, 0.0
    for k in range(octaves):
        cells = max(2, int(size / scale * 2**k))
        grid = rng.random((cells, cells)).astype(np.float32)
        grid = np.pad(grid, ((0, 1), (0, 1)), mode="wrap")
        up = cv2.resize(grid, (size + size // cells, size + size // cells), interpolation=cv2.INTER_CUBIC)
        out += amp * up[:size, :size]
        total += amp
        amp *= 0.5
    out /= total
    return (out - out.min()) / max(float(out.max() - out.min()), 1e-6)


def colour(rng: np.random.Generator, sat=(0.2, 0.9), val=(0.15, 0.9), hue: float | None = None) -> np.ndarray:
    h = rng.random() if hue is None else hue
    return np.array(colorsys.hsv_to_rgb(h, rng.uniform(*sat), rng.uniform(*val)), np.float32)


def cloth(rng: np.random.Generator, size: int) -> np.ndarray:
    base = colour(rng)
    period = rng.uniform(3, 9)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    warp = 0.5 + 0.5 * np.sin(2 * math.pi * x / period) * np.sign(np.sin(math.pi * y / period))
    weft = 0.5 + 0.5 * np.sin(2 * math.pi * y / period) * np.sign(np.sin(math.pi * x / period))
    weave = 0.75 + 0.25 * (warp + weft) / 2
    shade = 0.8 + 0.4 * noise(rng, size, size / 3, 3)
    tex = base * (weave * shade)[..., None]
    if rng.random() < 0.3:  # a check or stripe pattern in a second colour
        second = colour(rng)
        band = rng.uniform(12, 60)
        mask = ((x // band + (y // band if rng.random() < 0.6 else 0)) % 2).astype(np.float32)[..., None]
        tex = tex * (1 - mask) + second * (weave * shade)[..., None] * mask
    return tex


def felt(rng: np.random.Generator, size: int) -> np.ndarray:
    base = colour(rng, sat=(0.3, 0.9), val=(0.1, 0.7))
    fibres = noise(rng, size, 4, 2) * 0.5 + noise(rng, size, size / 4, 3) * 0.5
    grain = rng.normal(0, 0.05, (size, size)).astype(np.float32)
    return base * (0.75 + 0.35 * fibres + grain)[..., None]


def wood(rng: np.random.Generator, size: int) -> np.ndarray:
    light = colour(rng, sat=(0.3, 0.7), val=(0.45, 0.9), hue=rng.uniform(0.05, 0.11))
    dark = light * rng.uniform(0.45, 0.8)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    wobble = noise(rng, size, size / 2, 3) * rng.uniform(10, 40)
    rings = 0.5 + 0.5 * np.sin(2 * math.pi * (y + wobble) / rng.uniform(8, 30))
    streak = noise(rng, size, 6, 2)
    t = np.clip(rings * 0.7 + streak * 0.3, 0, 1)[..., None]
    tex = light * (1 - t) + dark * t
    if rng.random() < 0.5:  # planks
        width = rng.uniform(size / 5, size / 2)
        seam = (np.abs((y % width) - width / 2) > width / 2 - 1.2).astype(np.float32)[..., None]
        tex = tex * (1 - 0.6 * seam)
    return tex


def paper(rng: np.random.Generator, size: int) -> np.ndarray:
    tint = 1 - colour(rng, sat=(0.0, 0.12), val=(0.0, 0.15))
    tex = np.ones((size, size, 3), np.float32) * tint * (0.93 + 0.07 * noise(rng, size, 40, 3))[..., None]
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    kind = rng.random()
    ink = colour(rng, sat=(0.3, 0.8), val=(0.3, 0.7))
    step = rng.uniform(10, 30)
    if kind < 0.35:  # squared
        lines = ((x % step) < 1.2) | ((y % step) < 1.2)
    elif kind < 0.6:  # ruled
        lines = (y % step) < 1.2
    else:
        lines = np.zeros((size, size), bool)
    tex[lines] = tex[lines] * 0.4 + ink * 0.6
    return tex


def board(rng: np.random.Generator, size: int) -> np.ndarray:
    """A printed game board or mat: fields, tracks, circles and lettering in a few colours."""
    # Drawn in 8 bits: OpenCV writes text only there.
    tex = np.empty((size, size, 3), np.uint8)
    tex[:] = (colour(rng, val=(0.3, 0.95)) * 255).astype(np.uint8)
    palette = [colour(rng) for _ in range(4)]
    for _ in range(int(rng.integers(6, 25))):
        c = tuple(float(v) * 255 for v in palette[int(rng.integers(0, 4))])
        kind = rng.random()
        p = tuple(int(v) for v in rng.integers(0, size, 2))
        if kind < 0.35:
            q = tuple(int(v) for v in rng.integers(0, size, 2))
            cv2.rectangle(tex, p, q, c, -1 if rng.random() < 0.6 else int(rng.integers(1, 5)))
        elif kind < 0.6:
            cv2.circle(tex, p, int(rng.integers(6, size // 5)), c, -1 if rng.random() < 0.5 else 2)
        elif kind < 0.8:
            q = tuple(int(v) for v in rng.integers(0, size, 2))
            cv2.line(tex, p, q, c, int(rng.integers(1, 6)))
        else:
            word = "".join(chr(int(v)) for v in rng.integers(65, 91, int(rng.integers(2, 9))))
            cv2.putText(tex, word, p, cv2.FONT_HERSHEY_SIMPLEX, float(rng.uniform(0.5, 2.0)), c, 2)
    tex = tex.astype(np.float32) / 255.0
    return tex * (0.95 + 0.05 * noise(rng, size, 50, 2))[..., None]


def train_folders(datasets: Path, leave_out: Path | None = None) -> list[Path]:
    """The train splits of the datasets in ``datasets`` (a rendered folder ``leave_out`` left out)."""
    skip = leave_out.resolve() if leave_out is not None else None
    return [p / "train" for p in labelled(datasets) if p.resolve() != skip]


def photo_tile(rng: np.random.Generator, size: int, folders: list[Path]) -> np.ndarray | None:
    """A square cut from a random photo of the split ``folders`` that holds no labelled die, or None."""
    if not folders:
        return None
    for _ in range(20):
        photos = load_photos(folders[int(rng.integers(0, len(folders)))])
        if not photos:
            continue
        photo = photos[int(rng.integers(0, len(photos)))]
        img = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        h, w = img.shape[:2]
        for _ in range(30):
            side = int(rng.integers(64, max(65, min(h, w) // 2)))
            x, y = int(rng.integers(0, w - side + 1)), int(rng.integers(0, h - side + 1))
            # Clear of every labelled die, with a margin of half its size.
            clear = True
            for _, (x0, y0, x1, y1) in photo.dice:
                grow = 0.5 * max(x1 - x0, y1 - y0)
                if x < x1 + grow and x + side > x0 - grow and y < y1 + grow and y + side > y0 - grow:
                    clear = False
                    break
            tile = img[y : y + side, x : x + side]
            # Not the black outside a fisheye lens's circle.
            if clear and (tile.max(axis=2) < 12).mean() < 0.02:
                tile = cv2.resize(tile, (size, size), interpolation=cv2.INTER_CUBIC)
                return tile[:, :, ::-1].astype(np.float32) / 255.0
    return None


def draw(rng: np.random.Generator, kind: str, size: int = 512, folders: list[Path] = ()) -> np.ndarray:
    """A texture of ``kind`` (one of KINDS); a photo tile (from the split ``folders``) falls back
    to felt when there is none."""
    if kind == "photo":
        tile = photo_tile(rng, size, list(folders))
        if tile is not None:
            return tile
        kind = "felt"
    tex = {"cloth": cloth, "felt": felt, "wood": wood, "paper": paper, "board": board}[kind](rng, size)
    return np.clip(tex, 0, 1).astype(np.float32)
