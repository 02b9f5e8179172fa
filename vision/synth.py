"""Rendered dice scenes: known dice on plain or textured backgrounds.

Used by the benchmark (realistic frames without shipping photos) and by the
tests (every value is known, so every reading can be checked).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# Pip centres in units of half the face, for each value.
PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}

# (body BGR, pip BGR) pairs of common dice.
DICE_COLOURS = [
    ((235, 235, 235), (20, 20, 20)),  # white, black pips
    ((200, 230, 240), (30, 30, 30)),  # ivory
    ((40, 40, 200), (245, 245, 245)),  # red, white pips
    ((60, 150, 40), (240, 240, 240)),  # green
    ((150, 60, 30), (240, 240, 240)),  # blue
    ((30, 30, 30), (235, 235, 235)),  # black, white pips
    ((40, 210, 230), (20, 20, 20)),  # yellow, black pips
]


@dataclass
class PlacedDie:
    value: int
    center: tuple[float, float]
    size: float
    angle: float

    @property
    def box(self) -> list[float]:
        a = math.radians(self.angle)
        half = self.size / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
        cx, cy = self.center
        return [cx - half, cy - half, cx + half, cy + half]


def background(width: int, height: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A table surface: plain, wood grain, woven cloth, speckled or a printed tray."""
    if kind == "plain":
        img = np.full((height, width, 3), (200, 205, 210), np.uint8)
        ramp = np.linspace(-25, 25, width, dtype=np.float32)[None, :, None]
        return np.clip(img + ramp, 0, 255).astype(np.uint8)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "wood":
        warp = 6 * np.sin(xx / 37.0) + 3 * np.sin(xx / 11.0 + yy / 90.0)
        rings = np.sin((yy + warp) / 2.3) * 0.5 + np.sin((yy + warp * 1.7) / 7.1) * 0.5
        noise = rng.normal(0, 1, (height, width)).astype(np.float32)
        noise = cv2.GaussianBlur(noise, (0, 0), 1.2) * 2
        t = (rings * 18 + noise * 6)[..., None]
        base = np.array((60, 110, 160), np.float32)
        return np.clip(base + t, 0, 255).astype(np.uint8)
    if kind == "cloth":
        weave = np.sin(xx * 1.3) * np.sin(yy * 1.3) * 18 + np.sin(xx * 0.45 + yy * 0.45) * 6
        noise = rng.normal(0, 5, (height, width)).astype(np.float32)
        t = (weave + noise)[..., None]
        base = np.array((40, 110, 40), np.float32)
        return np.clip(base + t, 0, 255).astype(np.uint8)
    if kind == "speckle":
        img = np.full((height, width, 3), 185, np.float32)
        n = width * height // 400
        xs = rng.integers(0, width, n)
        ys = rng.integers(0, height, n)
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            r = int(rng.integers(1, 4))
            shade = float(rng.choice([60.0, 250.0]))
            cv2.circle(img, (x, y), r, (shade, shade, shade), -1, cv2.LINE_AA)
        img += rng.normal(0, 4, img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8)
    if kind == "tray":
        img = np.full((height, width, 3), (120, 70, 60), np.uint8)
        for _ in range(40):
            x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
            col = tuple(int(c) for c in rng.integers(40, 230, 3))
            if rng.random() < 0.5:
                end = (x + int(rng.integers(-80, 80)), y + int(rng.integers(-80, 80)))
                cv2.line(img, (x, y), end, col, 2)
            else:
                cv2.putText(img, "SPACE", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, col, 2, cv2.LINE_AA)
        return img
    raise ValueError(f"unknown background {kind!r}")


def draw_die(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float = 0.0,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
) -> PlacedDie:
    """Draw a die seen from above, with a soft shadow, rounded corners and shading."""
    cx, cy = center
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)

    def to_img(u: float, v: float) -> tuple[float, float]:
        return cx + u * ca - v * sa, cy + u * sa + v * ca

    half = size / 2
    corner = size * 0.12
    # Rounded square outline.
    outline = []
    for qx, qy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ox, oy = qx * (half - corner), qy * (half - corner)
        for k in range(7):
            t = math.radians(start + k * 15)
            outline.append(to_img(ox + corner * math.cos(t), oy + corner * math.sin(t)))
    shift = 16  # fixed-point bits for sub-pixel drawing
    pts = (np.array(outline) * (1 << shift)).astype(np.int32)
    shadow = (np.array(outline) + size * 0.06) * (1 << shift)
    overlay = img.copy()
    cv2.fillPoly(overlay, [shadow.astype(np.int32)], (0, 0, 0), cv2.LINE_AA, shift)
    cv2.addWeighted(overlay, 0.35, img, 0.65, 0, dst=img)
    cv2.fillPoly(img, [pts], body, cv2.LINE_AA, shift)
    edge = tuple(int(c * 0.75) for c in body)
    cv2.polylines(img, [pts], True, edge, max(1, int(size / 40)), cv2.LINE_AA, shift)
    step = size * 0.23
    radius = size * (0.085 if value != 1 else 0.13)
    for u, v in PIP_LAYOUT[value]:
        px, py = to_img(u * step, v * step)
        cv2.circle(
            img,
            (int(px * (1 << shift)), int(py * (1 << shift))),
            int(radius * (1 << shift)),
            pip,
            -1,
            cv2.LINE_AA,
            shift,
        )
    return PlacedDie(value, (cx, cy), size, angle)


def scene(
    width: int,
    height: int,
    values: list[int],
    size: float,
    rng: np.random.Generator,
    kind: str = "plain",
    colours: list[tuple[tuple[int, int, int], tuple[int, int, int]]] | None = None,
) -> tuple[np.ndarray, list[PlacedDie]]:
    """A frame with the given dice scattered without overlap; returns the frame and the dice."""
    img = background(width, height, kind, rng)
    placed: list[PlacedDie] = []
    colours = colours or DICE_COLOURS
    for value in values:
        for _ in range(200):
            cx = float(rng.uniform(size, width - size))
            cy = float(rng.uniform(size, height - size))
            if all(math.hypot(cx - d.center[0], cy - d.center[1]) > size * 1.6 for d in placed):
                break
        else:
            raise ValueError("no room for every die at this size")
        body, pip = colours[int(rng.integers(0, len(colours)))]
        placed.append(draw_die(img, value, (cx, cy), size, float(rng.uniform(0, 90)), body, pip))
    img = np.clip(img.astype(np.float32) + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)
    return img, placed
