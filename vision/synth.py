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

# Pip grid step of a drawn die, in die sides.
PIP_STEP = 0.23

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

    @property
    def pips(self) -> list[tuple[float, float]]:
        """The centres of the pips ``draw_die`` draws, in image pixels."""
        a = math.radians(self.angle)
        ca, sa = math.cos(a), math.sin(a)
        step = self.size * PIP_STEP
        cx, cy = self.center
        return [
            (cx + u * step * ca - v * step * sa, cy + u * step * sa + v * step * ca)
            for u, v in PIP_LAYOUT[self.value]
        ]


def _sensor_noise(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The camera's faint noise over a finished frame."""
    return np.clip(img.astype(np.float32) + rng.normal(0, 2.5, img.shape), 0, 255).astype(np.uint8)


def _free_spot(
    width: int, height: int, size: float, placed: list[PlacedDie], spacing: float, rng: np.random.Generator
) -> tuple[float, float]:
    """A die's centre at least ``spacing`` die sides from every die in ``placed``."""
    for _ in range(200):
        cx = float(rng.uniform(size, width - size))
        cy = float(rng.uniform(size, height - size))
        if all(math.hypot(cx - d.center[0], cy - d.center[1]) > size * spacing for d in placed):
            return cx, cy
    raise ValueError("no room for every die at this size")


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
    if kind == "print":
        return _printed(width, height, rng)
    if kind == "mat":
        return _play_mat(width, height, rng)
    if kind == "stains":
        return _stained(width, height, rng)
    raise ValueError(f"unknown background {kind!r}")


# Empty surfaces a real table may show besides the ones above: none of them may
# read as dice. (No regular dot patterns: a grid of dots is a die face.)
EMPTY_KINDS = ["plain", "wood", "cloth", "speckle", "tray", "print", "mat", "stains"]

_FONTS = [
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
]
_WORDS = ["SPACE", "BEAM ME UP", "ROLL", "GAME OVER", "808", "DICE", "Qq@&%", "BONUS 6", "PLAYER 1"]


def _colour(rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(c) for c in rng.integers(20, 236, 3))  # type: ignore[return-value]


def _printed(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A printed board or box lid: words in several fonts and sizes, and simple logos."""
    img = np.full((height, width, 3), _colour(rng), np.uint8)
    for _ in range(width * height // 12000):
        x, y = int(rng.integers(-40, width)), int(rng.integers(0, height + 20))
        col = _colour(rng)
        pick = rng.random()
        if pick < 0.6:
            font = _FONTS[int(rng.integers(0, len(_FONTS)))]
            scale = float(rng.uniform(0.5, 3.0))
            thick = int(rng.integers(1, max(2, int(scale * 3))))
            word = _WORDS[int(rng.integers(0, len(_WORDS)))]
            cv2.putText(img, word, (x, y), font, scale, col, thick, cv2.LINE_AA)
        elif pick < 0.75:  # a ring or a target
            r = int(rng.integers(8, 60))
            cv2.circle(img, (x, y), r, col, int(rng.integers(2, max(3, r // 2))), cv2.LINE_AA)
        elif pick < 0.9:  # a star or a polygon
            n = int(rng.integers(3, 7))
            r = float(rng.uniform(10, 70))
            t0 = float(rng.uniform(0, 2 * math.pi))
            star = bool(rng.random() < 0.5)
            pts = [
                (
                    x + r * (0.45 if star and k % 2 else 1.0) * math.cos(t0 + k * math.pi / n),
                    y + r * (0.45 if star and k % 2 else 1.0) * math.sin(t0 + k * math.pi / n),
                )
                for k in range(2 * n)
            ]
            cv2.fillPoly(img, [np.array(pts, np.int32)], col, cv2.LINE_AA)
        else:  # a stripe
            end = (x + int(rng.integers(-200, 200)), y + int(rng.integers(-200, 200)))
            cv2.line(img, (x, y), end, col, int(rng.integers(2, 12)), cv2.LINE_AA)
    img = _sensor_noise(img, rng)
    return img


def _play_mat(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A play mat: a square grid of thin lines, or a checkerboard, slightly turned."""
    a, b = _colour(rng), _colour(rng)
    cell = float(rng.uniform(20, 90))
    turn = math.radians(float(rng.uniform(-20, 20)))
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    u = (xx * math.cos(turn) + yy * math.sin(turn)) / cell
    v = (-xx * math.sin(turn) + yy * math.cos(turn)) / cell
    if rng.random() < 0.5:
        on = (np.floor(u) + np.floor(v)) % 2 == 0
    else:
        line = float(rng.uniform(1.0, 4.0)) / cell
        on = (u - np.floor(u) < line) | (v - np.floor(v) < line)
    img = np.where(on[..., None], np.float32(a), np.float32(b))
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    img += rng.normal(0, 2.5, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def _stained(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A table with stains (rings of cups, spills) and crumbs scattered at random."""
    img = background(width, height, "wood" if rng.random() < 0.5 else "plain", rng).astype(np.float32)
    area = width * height
    for _ in range(area // 40000):  # stains: soft blotches and cup rings, darker or tinted
        x, y = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        r = float(rng.uniform(15, 80))
        mask = np.zeros((height, width), np.float32)
        if rng.random() < 0.5:
            axes = (int(r), int(r * rng.uniform(0.5, 1.0)))
            cv2.ellipse(
                mask, (int(x), int(y)), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA
            )
        else:
            cv2.circle(mask, (int(x), int(y)), int(r), 1.0, int(rng.integers(2, 6)), cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(1, 5)))[..., None]
        tint = np.float32(rng.uniform(0.45, 0.9, 3))
        img = img * (1 - mask) + img * tint * mask
    for _ in range(area // 3000):  # crumbs: small irregular bits, light or dark
        x, y = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        r = float(rng.uniform(1.0, 4.0))
        pts = [
            (
                x + r * float(rng.uniform(0.5, 1.4)) * math.cos(t),
                y + r * float(rng.uniform(0.5, 1.4)) * math.sin(t),
            )
            for t in np.linspace(0, 2 * math.pi, 6, endpoint=False)
        ]
        shade = float(rng.uniform(30, 90)) if rng.random() < 0.5 else float(rng.uniform(190, 250))
        cv2.fillPoly(img, [np.array(pts, np.int32)], (shade, shade * 0.95, shade * 0.85), cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


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

    outline = [to_img(u, v) for u, v in _rounded_square(size)]
    shift = 16  # fixed-point bits for sub-pixel drawing
    pts = (np.array(outline) * (1 << shift)).astype(np.int32)
    shadow = (np.array(outline) + size * 0.06) * (1 << shift)
    overlay = img.copy()
    cv2.fillPoly(overlay, [shadow.astype(np.int32)], (0, 0, 0), cv2.LINE_AA, shift)
    cv2.addWeighted(overlay, 0.35, img, 0.65, 0, dst=img)
    cv2.fillPoly(img, [pts], body, cv2.LINE_AA, shift)
    edge = tuple(int(c * 0.75) for c in body)
    cv2.polylines(img, [pts], True, edge, max(1, int(size / 40)), cv2.LINE_AA, shift)
    placed = PlacedDie(value, (cx, cy), size, angle)
    radius = size * (0.085 if value != 1 else 0.13)
    for px, py in placed.pips:
        cv2.circle(
            img,
            (int(px * (1 << shift)), int(py * (1 << shift))),
            int(radius * (1 << shift)),
            pip,
            -1,
            cv2.LINE_AA,
            shift,
        )
    return placed


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
    for value in values:
        placed.append(_scatter_die(img, value, size, placed, 1.6, colours or DICE_COLOURS, rng))
    img = _sensor_noise(img, rng)
    return img, placed


def touching_scene(
    width: int,
    height: int,
    values: list[int],
    size: float,
    rng: np.random.Generator,
    kind: str = "plain",
    colours: list[tuple[tuple[int, int, int], tuple[int, int, int]]] | None = None,
) -> tuple[np.ndarray, list[PlacedDie]]:
    """A frame whose dice lie in one group, each touching another edge to edge, as
    dice thrown together often land: in a row, an L or a block."""
    img = background(width, height, kind, rng)
    body, pip = (colours or DICE_COLOURS)[int(rng.integers(0, len(colours or DICE_COLOURS)))]
    angle = float(rng.uniform(0, 90))
    a = math.radians(angle)
    axes = [(math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))]
    cells = [(0, 0)]
    while len(cells) < len(values):
        cu, cv = cells[int(rng.integers(0, len(cells)))]
        du, dv = [(1, 0), (-1, 0), (0, 1), (0, -1)][int(rng.integers(0, 4))]
        if (cu + du, cv + dv) not in cells:
            cells.append((cu + du, cv + dv))
    us, vs = [c[0] for c in cells], [c[1] for c in cells]
    reach = size * (max(max(us) - min(us), max(vs) - min(vs)) / 2 + 1.5)
    if 2 * reach >= min(width, height):
        raise ValueError("no room for the group at this size")
    cx, cy = float(rng.uniform(reach, width - reach)), float(rng.uniform(reach, height - reach))
    mu, mv = (max(us) + min(us)) / 2, (max(vs) + min(vs)) / 2
    placed = []
    for value, (u, v) in zip(values, cells, strict=True):
        # A hair apart, each die turned a little on its own: real dice never line up exactly.
        step = size * 1.03
        x = cx + (u - mu) * step * axes[0][0] + (v - mv) * step * axes[1][0]
        y = cy + (u - mu) * step * axes[0][1] + (v - mv) * step * axes[1][1]
        placed.append(draw_die(img, value, (x, y), size, angle + float(rng.uniform(-4, 4)), body, pip))
    return _sensor_noise(img, rng), placed


def _scatter_die(
    img: np.ndarray,
    value: int,
    size: float,
    placed: list[PlacedDie],
    spacing: float,
    colours: list[tuple[tuple[int, int, int], tuple[int, int, int]]],
    rng: np.random.Generator,
) -> PlacedDie:
    """Draws one flat die of a random colour and turn at a free spot (see _free_spot)."""
    cx, cy = _free_spot(img.shape[1], img.shape[0], size, placed, spacing, rng)
    body, pip = colours[int(rng.integers(0, len(colours)))]
    return draw_die(img, value, (cx, cy), size, float(rng.uniform(0, 90)), body, pip)


# --- dice the reader should refuse ------------------------------------------------
#
# A die whose top face cannot be read with confidence must come out unsure, so
# the table asks for a re-roll. These renders give the three usual causes on
# the same tables: a die cocked against the tray wall or another die, a die
# half hidden by a hand or an object, and a blurred die (rolling, or out of
# focus).

SKIN = (120, 160, 215)  # BGR of a hand in warm indoor light
DARK_OBJECT = (38, 36, 40)  # a phone, a dice cup
WALL = (70, 65, 60)  # the inner wall of a tray


@dataclass
class TroubleDie(PlacedDie):
    """A die drawn so that its top face is hard or impossible to read.

    ``trouble`` is "cocked", "hidden" or "blurred"; ``amount`` is the tilt in
    degrees, the hidden share of the face, or the blur's length as a share of
    the die's side.
    """

    trouble: str = ""
    amount: float = 0.0


def _rounded_square(size: float, samples: int = 7) -> np.ndarray:
    """Outline of a die's face (rounded corners), in face units centred on 0, as (n, 2)."""
    half, corner = size / 2, size * 0.12
    pts = []
    for qx, qy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ox, oy = qx * (half - corner), qy * (half - corner)
        for k in range(samples):
            t = math.radians(start + k * 90 / (samples - 1))
            pts.append((ox + corner * math.cos(t), oy + corner * math.sin(t)))
    return np.array(pts, np.float64)


def _face_texture(
    value: int, side: int, body: tuple[int, int, int], pip: tuple[int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """A face drawn flat on a ``side`` x ``side`` texture (as ``draw_die`` draws it), and its alpha."""
    tex = np.zeros((side, side, 3), np.uint8)
    alpha = np.zeros((side, side), np.uint8)
    c = (side - 1) / 2.0
    shift = 8
    pts = ((_rounded_square(side - 1) + c) * (1 << shift)).astype(np.int32)
    cv2.fillPoly(tex, [pts], body, cv2.LINE_AA, shift)
    cv2.fillPoly(alpha, [pts], 255, cv2.LINE_AA, shift)
    edge = tuple(int(v * 0.75) for v in body)
    cv2.polylines(tex, [pts], True, edge, max(1, side // 40), cv2.LINE_AA, shift)
    radius = side * (0.085 if value != 1 else 0.13)
    for px, py in PlacedDie(value, (c, c), side, 0.0).pips:
        centre = (int(px * (1 << shift)), int(py * (1 << shift)))
        cv2.circle(tex, centre, int(radius * (1 << shift)), pip, -1, cv2.LINE_AA, shift)
    return tex, alpha


def _paste_face(img: np.ndarray, tex: np.ndarray, alpha: np.ndarray, quad: np.ndarray, shade: float) -> None:
    """Map a face texture onto the quadrilateral ``quad`` (corners in texture order) of ``img``."""
    side = tex.shape[0] - 1
    src = np.array([(0, 0), (side, 0), (side, side), (0, side)], np.float32)
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 3
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_AREA).astype(np.float32) * shade
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + warped * a, 0, 255).astype(np.uint8)


def _shadow(img: np.ndarray, outline: np.ndarray, offset: float) -> None:
    shift = 16
    shadow = ((outline + offset) * (1 << shift)).astype(np.int32)
    x0, y0 = np.maximum(0, np.floor(outline.min(axis=0)).astype(int) - 2)
    x1, y1 = np.ceil(outline.max(axis=0) + offset).astype(int) + 3
    roi = img[y0:y1, x0:x1]
    overlay = roi.copy()
    cv2.fillPoly(overlay, [shadow - np.array([x0, y0]) * (1 << shift)], (0, 0, 0), cv2.LINE_AA, shift)
    cv2.addWeighted(overlay, 0.35, roi, 0.65, 0, dst=roi)


def _two_faces(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    tilt: float,
    body: tuple[int, int, int],
    pip: tuple[int, int, int],
    shades: tuple[float, float],
    distance: float,
) -> None:
    """Draw a die's face turned ``tilt`` degrees from the view about its u axis, and the side
    face below it (a real neighbour of ``value``, with its pips), shaded ``shades`` (top, side).

    The camera stands ``distance`` die sides away, giving a slight perspective;
    ``center`` is where the face's centre lands."""
    h = size / 2.0
    t, a = math.radians(tilt), math.radians(angle)
    ct, st, ca, sa = math.cos(t), math.sin(t), math.cos(a), math.sin(a)

    def project(p: np.ndarray) -> np.ndarray:
        # turn about the u axis, then about the view axis, then perspective
        x, y, z = p[:, 0], p[:, 1] * ct - p[:, 2] * st, p[:, 1] * st + p[:, 2] * ct
        u, v = x * ca - y * sa, x * sa + y * ca
        k = distance * size / (distance * size - z)
        return np.stack([u * k, v * k], axis=1)

    top = np.array([(-h, -h, h), (h, -h, h), (h, h, h), (-h, h, h)])
    # the side face below the top face's v = +h edge, read from above once turned
    side = np.array([(-h, h, h), (h, h, h), (h, h, -h), (-h, h, -h)])
    top_2d, side_2d = project(top), project(side)
    origin = np.array(center) - top_2d.mean(axis=0)
    top_2d, side_2d = top_2d + origin, side_2d + origin
    texture_side = max(24, int(round(size * 2)))
    side_value = next(v for v in (2, 3, 5, 4, 6, 1) if v not in (value, 7 - value))
    silhouette = np.concatenate([top_2d, side_2d[2:]])
    _shadow(img, silhouette, size * 0.06)
    _paste_face(img, *_face_texture(side_value, texture_side, body, pip), side_2d, shades[1])
    _paste_face(img, *_face_texture(value, texture_side, body, pip), top_2d, shades[0])


def draw_cocked_die(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    tilt: float,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
    distance: float = 10.0,
) -> TroubleDie:
    """Draw a die leaning ``tilt`` degrees (against a wall or another die), seen from above.

    The top face is foreshortened and the side face below it shows with its
    pips; the die leans towards -v (the wall's side)."""
    t = math.radians(tilt)
    # Lambert shading with light from above: the top face loses a little, the side a lot.
    shades = (0.75 + 0.25 * math.cos(t), 0.35 + 0.5 * math.sin(t))
    _two_faces(img, value, center, size, angle, tilt, body, pip, shades, distance)
    return TroubleDie(value, (float(center[0]), float(center[1])), size, angle, "cocked", tilt)


def draw_slanted_die(
    img: np.ndarray,
    value: int,
    center: tuple[float, float],
    size: float,
    angle: float,
    slant: float,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
    distance: float = 10.0,
) -> PlacedDie:
    """Draw a die lying flat, seen by a camera turned ``slant`` degrees from straight down
    (a phone held at an angle): its top face foreshortened, and the side facing the
    camera in view below it with its pips. ``value`` is the top face's; ``center`` its centre.
    """
    # Light from above: the top face in full, the upright side facing the camera half.
    _two_faces(img, value, center, size, angle, slant, body, pip, (1.0, 0.55), distance)
    return PlacedDie(value, (float(center[0]), float(center[1])), size, angle)


def _die_mask(shape: tuple[int, ...], die: PlacedDie) -> np.ndarray:
    a = math.radians(die.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    outline = _rounded_square(die.size) @ rot.T + die.center
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [(outline * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
    return mask


def _occluder_mask(
    shape: tuple[int, ...], tip: np.ndarray, direction: float, size: float, hand: bool
) -> np.ndarray:
    """A hand (palm and fingers) or a dark slab, its leading edge at ``tip``, lying along ``direction``."""
    mask = np.zeros(shape[:2], np.uint8)
    d = np.array([math.cos(direction), math.sin(direction)])  # from the tip into the object
    n = np.array([-d[1], d[0]])
    if hand:
        palm = tip + d * size * 1.9
        cv2.ellipse(
            mask,
            (tuple(int(v) for v in palm)),
            (int(size * 1.2), int(size * 0.95)),
            math.degrees(direction),
            0,
            360,
            255,
            -1,
            cv2.LINE_AA,
        )
        for k, reach in zip((-1.5, -0.5, 0.5, 1.5), (0.3, 0.0, 0.1, 0.45), strict=True):
            a = tip + n * k * size * 0.27 + d * size * reach
            b = palm + n * k * size * 0.3
            cv2.line(
                mask,
                tuple(int(v) for v in a),
                tuple(int(v) for v in b),
                255,
                max(2, int(size * 0.24)),
                cv2.LINE_AA,
            )
    else:
        corners = [
            tip - n * size * 0.9,
            tip + n * size * 0.9,
            tip + n * size * 0.9 + d * size * 3,
            tip - n * size * 0.9 + d * size * 3,
        ]
        cv2.fillPoly(mask, [np.array(corners).astype(np.int32)], 255, cv2.LINE_AA)
    return mask


def hide_die(
    img: np.ndarray, die: PlacedDie, share: float, rng: np.random.Generator, hand: bool = True
) -> TroubleDie:
    """Cover ``share`` of ``die``'s face with a hand (skin-coloured) or a dark object from one side."""
    direction = float(rng.uniform(0, 2 * math.pi))
    d = np.array([math.cos(direction), math.sin(direction)])
    die_mask = _die_mask(img.shape, die) > 0
    area = max(1, int(die_mask.sum()))
    lo, hi = -die.size, die.size  # the tip's place along d from the centre: more hides less
    for _ in range(14):
        mid = (lo + hi) / 2
        mask = _occluder_mask(img.shape, np.array(die.center) + d * mid, direction, die.size, hand)
        if (die_mask & (mask > 127)).sum() / area > share:
            lo = mid
        else:
            hi = mid
    mask = _occluder_mask(img.shape, np.array(die.center) + d * hi, direction, die.size, hand)
    hidden = float((die_mask & (mask > 127)).sum() / area)
    a = cv2.GaussianBlur(mask, (0, 0), 0.8).astype(np.float32)[..., None] / 255.0
    colour = np.array(SKIN if hand else DARK_OBJECT, np.float32)
    # shading across the object: a hand is rounded, a slab catches some light on one side
    yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]].astype(np.float32)
    ramp = ((xx - die.center[0]) * d[1] - (yy - die.center[1]) * d[0]) / (die.size * 2)
    paint = colour * (1.0 + 0.15 * np.clip(ramp, -1, 1))[..., None]
    img[:] = np.clip(img * (1 - a) + paint * a, 0, 255).astype(np.uint8)
    return TroubleDie(die.value, die.center, die.size, die.angle, "hidden", hidden)


def blur_die(
    img: np.ndarray, die: PlacedDie, amount: float, rng: np.random.Generator, motion: bool = True
) -> TroubleDie:
    """Blur ``die`` and the table just around it: a streak ``amount`` die sides long, or defocus.

    The streak is the die moving in a random direction during the exposure;
    defocus is a disc of diameter ``amount`` die sides.
    """
    reach = int(die.size * (0.9 + amount)) + 4
    cx, cy = int(die.center[0]), int(die.center[1])
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(0, cx - reach), max(0, cy - reach), min(w, cx + reach), min(h, cy + reach)
    length = max(3, int(round(die.size * amount)) | 1)
    kernel = np.zeros((length, length), np.float32)
    c = length // 2
    if motion:
        t = float(rng.uniform(0, math.pi))
        dx, dy = math.cos(t) * c, math.sin(t) * c
        cv2.line(
            kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1
        )
    else:
        cv2.circle(kernel, (c, c), c, 1.0, -1)
    kernel /= kernel.sum()
    roi = img[y0:y1, x0:x1]
    blurred = cv2.filter2D(roi, -1, kernel, borderType=cv2.BORDER_REFLECT).astype(np.float32)
    # blend in over the die and its streak, fading out on the table around it
    weight = cv2.dilate(_die_mask(img.shape, die)[y0:y1, x0:x1], np.ones((length, length), np.uint8))
    weight = cv2.GaussianBlur(weight, (0, 0), max(1.0, length / 4)).astype(np.float32)[..., None] / 255.0
    img[y0:y1, x0:x1] = np.clip(roi * (1 - weight) + blurred * weight, 0, 255).astype(np.uint8)
    return TroubleDie(die.value, die.center, die.size, die.angle, "blurred", amount)


def trouble_scene(
    width: int,
    height: int,
    values: list[int],
    size: float,
    rng: np.random.Generator,
    trouble: str,
    kind: str = "plain",
    colours: list[tuple[tuple[int, int, int], tuple[int, int, int]]] | None = None,
) -> tuple[np.ndarray, list[PlacedDie], TroubleDie]:
    """A frame of sharp, flat dice (``values``) and one die the reader should refuse.

    ``trouble`` is "cocked" (leaning 30-50 degrees against a wall at the top of
    the frame), "hidden" (30-70% of its face under a hand or a dark object) or
    "blurred" (a streak of 0.3-0.6 die sides, or defocus of 0.25-0.45). Returns
    the frame, the sharp dice and the trouble die.
    """
    colours = colours or DICE_COLOURS
    img = background(width, height, kind, rng)
    wall = int(size * 0.8) if trouble == "cocked" else 0
    if wall:
        img[:wall] = WALL
        img[wall - 2 : wall] = tuple(int(c * 1.6) for c in WALL)  # the wall's top edge catches the light
    value = int(rng.integers(1, 7))
    body, pip = colours[int(rng.integers(0, len(colours)))]
    before = img.copy()
    if trouble == "cocked":
        tilt = float(rng.uniform(30, 50))
        # leaning towards the wall, which is up the frame when the die is not turned
        cx, cy = float(rng.uniform(size, width - size)), wall + size * 0.5 * math.cos(math.radians(tilt)) + 1
        bad = draw_cocked_die(img, value, (cx, cy), size, float(rng.uniform(-12, 12)), tilt, body, pip)
    else:
        spot = (float(rng.uniform(size, width - size)), float(rng.uniform(size, height - size)))
        flat = draw_die(img, value, spot, size, float(rng.uniform(0, 90)), body, pip)
        if trouble == "hidden":
            bad = hide_die(img, flat, float(rng.uniform(0.3, 0.7)), rng, hand=bool(rng.random() < 0.5))
        elif trouble == "blurred":
            motion = bool(rng.random() < 0.5)
            amount = float(rng.uniform(0.3, 0.6) if motion else rng.uniform(0.25, 0.45))
            bad = blur_die(img, flat, amount, rng, motion)
        else:
            raise ValueError(f"unknown trouble {trouble!r}")
    # The sharp dice keep clear of everything the trouble die changed (a hand reaches far).
    taken = (np.abs(img.astype(np.int16) - before).max(axis=2) > 0).astype(np.uint8)
    taken = cv2.dilate(taken, np.ones((int(size * 0.6) | 1,) * 2, np.uint8))
    placed: list[PlacedDie] = []
    for v in values:
        for _ in range(300):
            cx = float(rng.uniform(size, width - size))
            cy = float(rng.uniform(max(size, wall + size), height - size))
            die = PlacedDie(v, (cx, cy), size, float(rng.uniform(0, 90)))
            if all(math.hypot(cx - d.center[0], cy - d.center[1]) > size * 1.6 for d in placed) and not (
                taken[_die_mask(img.shape, die) > 0].any()
            ):
                break
        else:
            raise ValueError("no room for every die at this size")
        b, p = colours[int(rng.integers(0, len(colours)))]
        placed.append(draw_die(img, v, die.center, size, die.angle, b, p))
    img = _sensor_noise(img, rng)
    return img, placed, bad


def rolling_scene(
    width: int,
    height: int,
    values: list[int],
    size: float,
    rng: np.random.Generator,
    kind: str = "plain",
) -> tuple[np.ndarray, list[TroubleDie]]:
    """A frame taken while the dice still roll: every die streaked 0.3-0.7 die sides."""
    img = background(width, height, kind, rng)
    dice: list[TroubleDie] = []
    for value in values:
        flat = _scatter_die(img, value, size, dice, 1.8, DICE_COLOURS, rng)
        dice.append(blur_die(img, flat, float(rng.uniform(0.3, 0.7)), rng, motion=True))
    img = _sensor_noise(img, rng)
    return img, dice
