"""A quick first reading of clean frames: dice lying apart on a plain table.

``read`` answers only when the whole frame is plain to see, and returns None
otherwise, so that the full reader (``vision.read_dice``) takes the frame.
On a copy shrunk to about 320 px across, the table's colour is estimated
locally (the median over coarse cells) and whatever differs from it, shadows
apart, is foreground. Every outer outline there must be a die: square, of
one size with the others, clear of the frame's edge and of every other
outline; nothing else may stand out as much as a pip (a die whose body looks
like the table shows only its pips). Each die's face is then cut out of the
full frame, turned square; it must end where its outline does, and its pips
must be strong, round, alike, sharp and on one of the six layouts. Any doubt
about any die sends the frame on. (The photos of byler-d6/train, dice seen a
little from the side and often touching, are all sent on.)

On one thread it costs about 3-5 ms on a 640x480 frame it reads and under
2 ms on one it sends on; the full reader takes a median of 65-120 ms a
view, and reads two to six views (``vision.views``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import pixels
from vision.die import Die
from vision.pipfit import PIP_GRID

WORK_WIDTH = 320  # the shrunk copy is about this wide (a whole-number factor)
CELLS = 16  # the table's colour is averaged over cells a sixteenth of the width ...
CELL_MEDIAN = 5  # ... and taken as the median of the 5 x 5 cells around
# Foreground: the largest channel's difference from the table, at least
# FG_STEP and FG_TEXTURE times the table's own upper-quartile difference. On
# rendered tables that quartile is 2 (plain), 10-13 (cloth, wood); a step of
# 18 missed the ivory dice on the light end of the plain table (bench frames
# accepted 31 -> 35 of 60 at 12), and 12 is still 10 times the noise there.
FG_STEP = 12.0
FG_TEXTURE = 3.2
# A shadow darkens the table alike in every channel (a share of 0.3-0.95)
# and is no die; a die's darker body differs in hue or is darker still.
SHADOW = (0.3, 0.95)
SHADOW_HUE = 0.1
SHADOW_REACH = 1.25  # a die's shadow lies within its box grown by this
MAX_OUTLINES = 60  # more outlines than this: a crowded or printed table
MIN_AREA = 30  # outlines smaller than this (shrunk px) are no dice; they are spots
# A die's outline (its convex hull: a light die on a light table is patchy):
# on 1290 rendered dice the hull's longer side over its shorter was at most
# 1.02 for half, the hull filled 0.95 of its turned rectangle for half, and
# the outline filled 0.96 of its hull for half. A cocked die shows two faces
# (1.37-1.41 long), two touching dice a rectangle or an L.
SQUARE = 1.15
FILL = 0.9
SOLID = 0.6
LIKE_SIZE = 0.15  # every die's side within this share of the median side (99% of rendered frames: 0.13)
DIE_SIDE = (20.0, 0.25)  # the least side (px), the largest (share of the frame's shorter side)
# Spots outside the dice: any this share of a pip's area (a pip of 0.085
# sides' radius) stands out. A die of the table's own colour 0.6-1 times the
# others' size showed spots of 0.23-1.8 times their measured pips; the
# speckled table's specks were 0.95-2.1 times, so that table is left to the
# full reader.
SPOT = 0.25
PIP = 0.085  # a pip's radius in die sides (rendered dice; real ones 0.07-0.1)

FACE_PX = 48  # a face is cut out at this many pixels a side
INNER = 0.1  # ... and its pips are looked for inside this margin (the edge, the corners)
# The pips must differ from the face's colour by at least this (largest
# channel); rendered dice differ by 198-222, so the margin is wide.
PIP_CONTRAST = 120.0
PIP_MIN_PX = 3  # smaller pieces of a face's pattern are noise
PIP_LIKE = 1.5  # largest pip area over the smallest (rendered: 1.12 at the 99th percentile)
PIP_ROUND = (1.4, 0.6)  # a pip's box: longest over shortest side, and the share it fills
PIP_SIZE = (0.05, 0.2)  # a pip's radius in face sides (rendered: 0.082-0.151)
# A sharp pip changes from face to pip within a pixel or two: the pixels
# between a quarter and three quarters of the contrast, over the pips'
# outline, were 0.6-1.1 image px on 403 rendered sharp dice and 4.3-9.3 on
# every blurred die (0.25-0.45 die sides of blur) whose pips were found.
EDGE_PX = 2.0
CENTRE = 0.15  # the pips' centre from the face's, in half sides (rendered: at most 0.10)
STEP = (0.3, 0.7)  # the layout's grid step in half sides (rendered: 0.42-0.50)
FIT = 0.2  # a pip's largest offset from its layout spot, in grid steps (rendered: at most 0.15)
CONFIDENCE = 0.95
CROP = 1.5  # the face is cut out with the table around it, this many sides across
BAND_IN = (0.4, 0.46)  # half-way bands, in sides from the centre: just inside the face ...
BAND_OUT = (0.58, 0.7)  # ... and just outside it and its shadow
FACE_IN = 0.8  # share of the inner band nearer the face's colour than the table's, at least
FACE_OUT = 0.15  # ... and of the outer band, at most
_CROP = round(FACE_PX * CROP)
_RING = np.abs(np.arange(_CROP) + 0.5 - _CROP / 2) / FACE_PX
_RING = np.maximum(_RING[None, :], _RING[:, None])  # each crop pixel's distance from the centre, in sides
_BAND_IN = (_RING >= BAND_IN[0]) & (_RING < BAND_IN[1])
_BAND_OUT = (_RING >= BAND_OUT[0]) & (_RING < BAND_OUT[1])

# Pip spots on the 3x3 grid, by value; a turn by 90 degrees is tried too.
_LAYOUTS = {n: [sorted(g), sorted((-v, u) for u, v in g)] for n, g in PIP_GRID.items()}


def read(image: np.ndarray) -> list[Die] | None:
    """The dice of a clean frame, or None when the frame needs the full reader."""
    return explain(image)[0]


def explain(image: np.ndarray) -> tuple[list[Die] | None, str]:
    """``read``'s answer and, when that is None, why the frame was sent on."""
    img = pixels.as_bgr(image, "read_dice")
    h, w = img.shape[:2]
    f = max(1, round(w / WORK_WIDTH))
    work = pixels.shrink_by(img, f)
    every, raw, table = _foreground(work)
    mask = cv2.medianBlur(raw, 3)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, pixels.K3)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, pixels.K3)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(contours) > MAX_OUTLINES:
        return None, "crowded"
    bodies = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < MIN_AREA:
            continue
        why = _not_a_body(c, area, work.shape)
        if why:
            return None, why
        bodies.append((cv2.minAreaRect(cv2.convexHull(c)), cv2.boundingRect(c)))
    if not bodies:
        return None, "no die"
    sides = [0.5 * (r[1][0] + r[1][1]) for r, _ in bodies]
    side = float(pixels.median(sides))
    if any(abs(s - side) > LIKE_SIZE * side for s in sides):
        return None, "dice of unlike sizes"
    if not DIE_SIDE[0] <= side * f <= DIE_SIDE[1] * min(h, w):
        return None, "dice too small or too large"
    # (a pip's rim, half pip and half table, is as dark as a shadow: shadows
    # are not left out here, but the dice's own are covered by their grown boxes)
    for ((cx, cy), (rw, rh), angle), _ in bodies:
        box = cv2.boxPoints(((cx, cy), (rw * SHADOW_REACH + 2, rh * SHADOW_REACH + 2), angle))
        cv2.fillConvexPoly(every, np.round(box).astype(np.int32), 0)
    count, _, stats, _ = cv2.connectedComponentsWithStats(every, connectivity=8)
    if count > 1 and stats[1:, cv2.CC_STAT_AREA].max() >= SPOT * math.pi * (PIP * side) ** 2:
        return None, "a spot outside the dice"
    dice = []
    for rect, (_, _, bw, bh) in bodies:
        x, y = min(int(rect[0][0]), table.shape[1] - 1), min(int(rect[0][1]), table.shape[0] - 1)
        die, why = _face(img, rect, f, table[y, x], (bw * f, bh * f))
        if die is None:
            return None, why
        dice.append(die)
    return dice, ""


def _foreground(work: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixels of ``work`` that differ from the table, as 0/1 (all of them, and those that are no
    shadow), and the table's colour under every pixel."""
    table = _table(work)
    dist = _largest(cv2.absdiff(work, table))
    sample = dist[::2, ::2].ravel()
    texture = float(np.partition(sample, sample.size * 3 // 4)[sample.size * 3 // 4])
    step = max(FG_STEP, FG_TEXTURE * texture)
    ratio = cv2.split(cv2.divide(work, cv2.max(table, 1), dtype=cv2.CV_32F))
    high = cv2.max(cv2.max(ratio[0], ratio[1]), ratio[2])
    low = cv2.min(cv2.min(ratio[0], ratio[1]), ratio[2])
    shade = (high < SHADOW[1]) & (low > SHADOW[0]) & (high - low < SHADOW_HUE)
    every = (dist > step).astype(np.uint8)
    return every, every & ~shade, table


def _table(work: np.ndarray) -> np.ndarray:
    """The table's colour under every pixel: cell means, their local median, smoothly enlarged."""
    h, w = work.shape[:2]
    cell = max(1, w // CELLS)
    grid = cv2.resize(work, (max(1, w // cell), max(1, h // cell)), interpolation=cv2.INTER_AREA)
    if min(grid.shape[:2]) >= CELL_MEDIAN:
        grid = cv2.medianBlur(grid, CELL_MEDIAN)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR)


def _largest(diff: np.ndarray) -> np.ndarray:
    """The largest channel of a BGR image (numpy's max over a last axis of 3 is slow)."""
    b, g, r = cv2.split(diff)
    return cv2.max(cv2.max(b, g), r)


def _not_a_body(contour: np.ndarray, area: float, shape: tuple[int, ...]) -> str:
    """Why an outline is no lone, flat, whole die ("" when it is one)."""
    x, y, bw, bh = cv2.boundingRect(contour)
    if x <= 1 or y <= 1 or x + bw >= shape[1] - 1 or y + bh >= shape[0] - 1:
        return "at the frame's edge"
    hull = cv2.convexHull(contour)
    rw, rh = cv2.minAreaRect(hull)[1]
    hull_area = cv2.contourArea(hull)
    if min(rw, rh) <= 0 or max(rw, rh) / min(rw, rh) > SQUARE:
        return "not square"
    if hull_area / (rw * rh) < FILL or area / hull_area < SOLID:
        return "not a filled square"
    return ""


def _face(
    img: np.ndarray, rect: tuple, f: int, table: np.ndarray, extent: tuple[float, float] | None = None
) -> tuple[Die | None, str]:
    """The die in ``rect`` (a turned rectangle on the copy shrunk by ``f``; ``table`` the
    table's colour around it; ``extent`` its outline's upright width and height in the
    image), read surely, or why not."""
    (cx, cy), (rw, rh), angle = rect
    cx, cy = (cx + 0.5) * f - 0.5, (cy + 0.5) * f - 0.5
    side = 0.5 * (rw + rh) * f
    n = FACE_PX
    k = n / side  # face pixels per image pixel
    a = math.radians(angle)
    ca, sa = math.cos(a) * k, math.sin(a) * k
    # image -> face: turned by -angle about the die's centre, scaled, centred
    c = (_CROP - 1) / 2  # the crop's centre, in pixel indices
    m = np.float32([[ca, sa, c - ca * cx - sa * cy], [-sa, ca, c + sa * cx - ca * cy]])
    crop = cv2.warpAffine(img, m, (_CROP, _CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lo, hi = (_CROP - n) // 2 + int(n * INNER), (_CROP + n) // 2 - int(n * INNER)
    inner = crop[lo:hi, lo:hi]
    # (every other pixel: the median of a quarter of them is the same colour)
    colour = np.round(pixels.median(inner[::2, ::2].reshape(-1, 3).astype(np.float32))).astype(np.uint8)
    # The face must end where the outline does: face-coloured just inside
    # it, table-coloured just outside (an outline round part of a die, or
    # round more than a die, reads pips wrongly).
    table = np.asarray(table, np.uint8)
    if np.abs(colour.astype(int) - table).max() < FG_STEP:
        return None, "a face like the table"
    to_face = _largest(cv2.absdiff(crop, np.full_like(crop, colour)))
    near_face = to_face < _largest(cv2.absdiff(crop, np.full_like(crop, table)))
    inside, outside = near_face[_BAND_IN].mean(), near_face[_BAND_OUT].mean()
    if inside < FACE_IN or outside > FACE_OUT:
        return None, "not the whole face"
    d = to_face[lo:hi, lo:hi]
    top = float(d.max())
    if top < PIP_CONTRAST:
        return None, "faint pips"
    count, _, stats, cents = cv2.connectedComponentsWithStats(
        (d > 0.5 * top).astype(np.uint8), connectivity=8
    )
    keep = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= PIP_MIN_PX]
    if not 1 <= len(keep) <= 6:
        return None, "not 1-6 pips"
    stats, cents = stats[keep], cents[keep]
    x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    x1, y1 = x0 + stats[:, cv2.CC_STAT_WIDTH], y0 + stats[:, cv2.CC_STAT_HEIGHT]
    if min(x0.min(), y0.min()) == 0 or max(x1.max(), y1.max()) == hi - lo:
        return None, "a pip cut by the face's margin"  # (the outline was smaller than the die)
    areas = stats[:, cv2.CC_STAT_AREA].astype(float)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    if areas.max() > PIP_LIKE * areas.min():
        return None, "unlike pips"
    if (np.maximum(bw, bh) > PIP_ROUND[0] * np.minimum(bw, bh)).any() or (
        areas < PIP_ROUND[1] * bw * bh
    ).any():
        return None, "pips not round"
    radius = math.sqrt(areas.mean() / math.pi)
    if not PIP_SIZE[0] <= radius / n <= PIP_SIZE[1]:
        return None, "pips too small or too large"
    outline = float(np.sum(2 * np.sqrt(np.pi * areas)))
    mid = np.count_nonzero((d > 0.25 * top) & (d < 0.75 * top))
    if mid / outline / k > EDGE_PX:
        return None, "blurred"
    pts = cents + lo
    value = _layout((pts - c) / (n / 2))
    if value == 0:
        return None, "no layout"
    inv = cv2.invertAffineTransform(m)
    where = pts @ inv[:, :2].T + inv[:, 2]
    mx, my = where.mean(axis=0)  # the pips' centre is the face's (every layout is symmetric)
    # The box: the turned square's, or the outline's upright one where that
    # is larger (a patchy outline's turn may be some degrees off). On 155
    # accepted rendered frames the boxes were 0.91-1.09 of the drawn die's
    # (from the square alone 0.88, from the outline alone 0.82 at the least).
    half = side / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
    hx, hy = (max(half, extent[0] / 2), max(half, extent[1] / 2)) if extent else (half, half)
    box = [float(mx - hx), float(my - hy), float(mx + hx), float(my + hy)]
    pips = [(float(x), float(y)) for x, y in where]
    return Die(value, box, CONFIDENCE, pips, pip_radius=radius / k, side=side), ""


def _layout(uv: np.ndarray) -> int:
    """The value whose layout the pips (in half face sides from its centre) fit, or 0."""
    centre = uv.mean(axis=0)
    if math.hypot(*centre) > CENTRE:
        return 0
    if len(uv) == 1:
        return 1
    q = np.abs(uv - centre)
    off = q[q > STEP[0] / 2]
    step = float(pixels.median(off)) if off.size else 0.0
    if not STEP[0] <= step <= STEP[1]:
        return 0
    cells = np.round((uv - centre) / step)
    if np.abs((uv - centre) / step - cells).max() > FIT:
        return 0
    got = sorted(map(tuple, cells.astype(int).tolist()))
    return len(uv) if got in _LAYOUTS[len(uv)] else 0
