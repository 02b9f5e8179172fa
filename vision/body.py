"""Does a reading have a die's body behind it?

A die's top face is a body of one colour, about a die across, with its pips
inside (of a third colour, not the table's), and it ends in four straight
edges; the holes and bowls of printed letters (a P, an A, an 8), read as
pips, sit in a stroke about as wide as the hole, with the table just beyond
it and showing through the hole, and crumbs on a table have no edges
around them. ``vision.fusion`` asks this of the dice that only the pip-first
reader found (the body-first reader, ``vision.faces``, saw no die body
there): ``outline`` of all of them, ``one_body`` of its 1s. ``vision.quality``
drops every sure reading whose pips are the colour of the table around it
(``pip_table_distances`` under TABLE_SAME): ink and paper, not a die.

``one_body`` measures, around a 1's pip, how much of the face is one colour
(``share``) and how far that colour reaches from the pip all round
(``reach``). On rendered empty tables most confident phantoms were such 1s
(46 of the 92 of tests/test_vision_empty.py; the holes of bold letters on
printed boards and trays), while the right ones of byler-d6/train and of
rendered dice had a face of one colour 3.4 or more pip radii wide on every
side.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision import pixels

if TYPE_CHECKING:
    from vision.die import Die

PIP_PX = 5.0  # pixels per pip radius the face is looked at with (larger dice are shrunk)
FACE_REACH = 0.42  # the face looked at, in die sides from the centre (a die's inscribed disc: 0.5)
PIP_CLEAR = 1.8  # ... leaving out this many pip radii around the pip
PIP_CORE = 0.6  # the pip's colour: within this many pip radii of its centre
RING = (1.6, 2.4)  # the face next to the pip, in pip radii: the stroke around a letter's hole
RAYS = 32
TOLERANCE = 10.0  # least colour distance (~Lab) within which a pixel is the face's colour


def one_body(image: np.ndarray, die: Die) -> tuple[float, float]:
    """(share, reach) of the face around the pip of ``die``, a 1, in ``image`` (BGR).

    ``share`` is the part of the face (within FACE_REACH sides of the centre,
    away from the pip) within half the pip's contrast of the face's median
    colour. ``reach`` is how far, in pip radii, the colour next to the pip
    runs out from the pip's centre in the direction where it runs least.
    """
    side = max(die.side, 0.75 * pixels.box_side(die.box))
    cx, cy = die.pips[0] if len(die.pips) == 1 else die.center
    r = die.pip_radius or 0.12 * side
    crop, x0, y0 = pixels.crop(image, cx, cy, max(12.0 * r, 0.9 * side) + 2.0)
    shrink = max(1, int(r / PIP_PX))
    crop = pixels.shrink_by(crop, shrink)
    if min(crop.shape[:2]) < 4:
        return 1.0, math.inf
    col = cv2.transform(crop.astype(np.float32), pixels.FACE_OPPONENT)
    h, w = col.shape[:2]
    # (a shrunk pixel's centre lies (shrink - 1) / 2 pixels into its block)
    px, py = (cx - x0 - 0.5 * (shrink - 1)) / shrink, (cy - y0 - 0.5 * (shrink - 1)) / shrink
    r, s = r / shrink, side / shrink
    dist = np.hypot(*np.meshgrid(np.arange(w) - px, np.arange(h) - py))
    pip, face_px = col[dist < PIP_CORE * r], col[(dist < FACE_REACH * s) & (dist > PIP_CLEAR * r)]
    ring = col[(dist > RING[0] * r) & (dist < RING[1] * r)]
    if len(pip) == 0 or len(face_px) < 4 or len(ring) < 4:
        return 1.0, math.inf
    pip_colour = pixels.median(pip)
    face = pixels.median(face_px)
    contrast = float(np.linalg.norm(pip_colour - face))
    share = float((np.linalg.norm(face_px - face, axis=1) < 0.5 * max(contrast, 1.0)).mean())
    # the colour next to the pip, and how far it runs out along each ray
    near = pixels.median(ring)
    tol = max(0.5 * float(np.linalg.norm(pip_colour - near)), TOLERANCE)
    diff = cv2.subtract(col, (float(near[0]), float(near[1]), float(near[2]), 0.0))
    same = cv2.transform(cv2.multiply(diff, diff), pixels.SUM3) < tol * tol
    steps = np.arange(0.0, float(max(h, w)), 0.5)
    angles = np.linspace(0.0, 2.0 * math.pi, RAYS, endpoint=False)
    xs = np.rint(px + np.cos(angles)[:, None] * steps).astype(np.intp)
    ys = np.rint(py + np.sin(angles)[:, None] * steps).astype(np.intp)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    on = np.zeros(xs.shape, bool)
    on[inside] = same[ys[inside], xs[inside]]
    # along each ray: out of the pip into the face's colour, then out of it
    # (or out of the window: the face runs on as far as can be seen)
    entered = np.maximum.accumulate(on, axis=1)
    left = entered & ~on | ~inside
    first_out = np.where(left.any(axis=1), left.argmax(axis=1), steps.size - 1)
    return share, float(steps[first_out].min()) / r


# A lone 1 (see the module's notes) needs a face of one colour: on train and
# on rendered dice the right ones had a share of 0.93 or more and a reach of
# 3.4 pip radii or more; of the confident phantom 1s of rendered printed
# boards, trays and stained tables (seeds 0-20, three frame sizes) 303 of 388
# fell below one of these.
ONE_SHARE = 0.85
ONE_REACH = 3.0


def lone_one_has_body(image: np.ndarray, die: Die) -> bool:
    """Whether ``die``, a 1 only the pip-first reader found, has a die's face around its pip."""
    share, reach = one_body(image, die)
    return bool(share >= ONE_SHARE and reach >= ONE_REACH)


# --- a die's outline ---------------------------------------------------------------
# A die's face ends in four straight edges, whether its body stands out from
# the table by its colour or only by its shading (a white die on a white tray).
# ``outline`` looks for them: for each turn of a square (OUTLINE_TURNS) and
# each of its four sides, the colour step across the side at OUTLINE_REACH die
# sides from the centre (the one that steps most), taken along the side's
# middle OUTLINE_ALONG as its OUTLINE_RANK share (so that the edge must run
# along most of it); the weakest of the four sides at the best turn is the
# outline's strength (~Lab units per pixel, at OUTLINE_PX pixels a die side).
OUTLINE_PX = 24.0
OUTLINE_TURNS = np.radians(np.arange(0.0, 90.0, 7.5))
OUTLINE_REACH = np.array([0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75])
OUTLINE_ALONG = np.linspace(-0.7, 0.7, 9)
OUTLINE_RANK = 25
_RANK_AT = (len(OUTLINE_ALONG) - 1) * OUTLINE_RANK // 100  # (9 points: the 25th percentile is the third)
# Dice only the pip-first reader found: on train the right ones had an outline
# of 3.1 or more (rendered ones 6.8), while the crumbs of a rendered stained
# table read as 2s had at most 2.3, and most of the letters read as 1s that
# ``one_body`` let through (94 of 117 on printed boards, seeds 0-20) under 2.5.
OUTLINE_MIN = 2.5

_NORMALS = np.stack(
    [
        np.cos(OUTLINE_TURNS[:, None] + np.arange(4) * (math.pi / 2)),
        np.sin(OUTLINE_TURNS[:, None] + np.arange(4) * (math.pi / 2)),
    ],
    -1,
)  # (turn, side, xy)
_ALONG = np.stack([-_NORMALS[..., 1], _NORMALS[..., 0]], -1)
# sample points in die sides from the centre: (turn, side, reach, along, xy)
_POINTS = _NORMALS[:, :, None, None, :] * OUTLINE_REACH[None, None, :, None, None] + _ALONG[
    :, :, None, None, :
] * (OUTLINE_ALONG[None, None, None, :, None] * OUTLINE_REACH[None, None, :, None, None])
_POINT_NORMALS = (
    np.broadcast_to(_NORMALS[:, :, None, None, :], _POINTS.shape).reshape(-1, 2).astype(np.float32)
)
_POINTS = _POINTS.reshape(1, -1, 2).astype(np.float32)
_SHAPE = (len(OUTLINE_TURNS), 4, len(OUTLINE_REACH), len(OUTLINE_ALONG))


def outline(image: np.ndarray, die: Die) -> float:
    """Strength of the weakest side of the square outline around ``die`` in ``image`` (BGR)."""
    side = max(die.side, 0.75 * pixels.box_side(die.box))
    cx, cy = die.center
    if len(die.pips) == die.value > 1:  # every layout is symmetric about the face's centre
        cx, cy = (float(v) for v in np.mean(np.asarray(die.pips, dtype=np.float64), axis=0))
    crop, x0, y0 = pixels.crop(image, cx, cy, 0.9 * side + 3.0)
    shrink = max(1, int(side / OUTLINE_PX))
    crop = pixels.shrink_by(crop, shrink)
    if min(crop.shape[:2]) < 4:
        return math.inf
    col = cv2.transform(cv2.GaussianBlur(crop, (3, 3), 0).astype(np.float32), pixels.FACE_OPPONENT)
    gx = cv2.Sobel(col, cv2.CV_32F, 1, 0, ksize=3) / 8.0  # (the Sobel sums 8 a pixel's step)
    gy = cv2.Sobel(col, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    px, py = (cx - x0 - 0.5 * (shrink - 1)) / shrink, (cy - y0 - 0.5 * (shrink - 1)) / shrink
    at = _POINTS * np.float32(side / shrink) + np.float32([px, py])
    sx = cv2.remap(gx, at[..., 0], at[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
    sy = cv2.remap(gy, at[..., 0], at[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
    across = sx * _POINT_NORMALS[:, :1] + sy * _POINT_NORMALS[:, 1:]  # (point, channel)
    across *= across
    step2 = (across[:, 0] + across[:, 1] + across[:, 2]).reshape(_SHAPE)  # squared: ranks alike
    sides = np.partition(step2, _RANK_AT, axis=-1)[..., _RANK_AT].max(-1)  # (turn, side)
    return math.sqrt(float(sides.min(-1).max()))


# Any sure die needs some outline (see vision.fusion.OUTLINE_BELOW): on train
# right dice the body-first reader found, read below 0.9, had 1.63 or more
# (the two under 2.3 on 20191208; on 20191209 3.6 or more), rendered ones 3.1;
# letters and shapes of rendered printed boards it read as dice, 0.5 and more.
SOME_OUTLINE = 1.2
# A 1, the least evidence of a die (one blob), needs a clearer outline: right
# 1s the body-first reader found had 2.32 or more on train (20191209: 2.71),
# rendered ones 6.06; the holes of printed letters both readers read as 1s,
# 0.2-3.8 (under 2 for 19 of 72 on seeds 0-20).
ONE_OUTLINE = 2.0


def has_outline(image: np.ndarray, die: Die) -> bool:
    """Whether ``die`` shows at least some outline of a die all round (a 1 a clearer one)."""
    return outline(image, die) >= (ONE_OUTLINE if die.value == 1 else SOME_OUTLINE)


def lone_pip_die_has_outline(image: np.ndarray, die: Die) -> bool:
    """Whether ``die``, which only the pip-first reader found, shows a die's outline all round."""
    return outline(image, die) >= OUTLINE_MIN


# --- pips of the table's own colour ------------------------------------------------
# A die has three colours: its face, its pips and the table beyond it. A
# printed letter or a play mat's pattern has two, ink and paper: read as a
# die, its "pips" (the holes of a P, an 8, an A; the cells of a mat) are the
# paper the "face" (the ink) lies on, the very colour found beyond that face.
# ``pip_table_distances`` compares the median colour at the pips' middles
# with the median colour of the ring around the face (TABLE_REACH die sides
# from the centre) that is off the face's colour. On rendered printed boards
# the two were one paper, within the sensor's noise: under TABLE_SAME (~Lab
# units) for 86 of the 160 confident phantoms of printed boards of seeds 3-20,
# 13 of the 16 of play mats and 7 of the 15 of printed trays (most of the
# others have no pips in their reading, or a hole over another print). The
# right dice of byler-d6/train (1438, white pips of dark dice on the white
# tray among them) were 4.14 or more apart (20191208: 4.14, 20191209: 4.99),
# the right rendered dice (1696 on every table kind, 24-90 px) 10.1 or more:
# a margin of 2 to the nearest right die. (With other sample points the
# nearest right die came out at 3.35; taking the table's colour by quarters
# of the ring caught 96 phantoms but put right train dice at 1.5.)
TABLE_REACH = (0.75, 1.05)
TABLE_SAME = 2.0
TABLE_SHARE = 0.05  # least share of that ring off the face's colour (else no table shows: inf)
PIP_SIZE = (0.12, 0.08)  # pip radius in die sides, of a 1 and of the others, when the reading gives none
FACE_CLEAR = 1.6  # the face's colour is taken this many pip radii or more from every pip
# Points the colours are taken at: a pip's middle (in pip radii from its
# centre), the face (in die sides from the centre; 0.43 keeps inside the face
# however the die is turned) and the ring around it (in die sides).
_CORE = np.float64(
    [(0, 0), (0.4, 0), (-0.4, 0), (0, 0.4), (0, -0.4), (0.3, 0.3), (-0.3, 0.3), (0.3, -0.3), (-0.3, -0.3)]
)
_TURNS = np.linspace(0.0, 2.0 * math.pi, 24, endpoint=False)
_FACE = np.concatenate(
    [[(0.0, 0.0)]]
    + [
        np.stack([rad * np.cos(_TURNS + k * 0.13), rad * np.sin(_TURNS + k * 0.13)], -1)
        for k, rad in enumerate((0.2, 0.32, 0.43))
    ]
)
_FACE_OPPONENT_T = np.ascontiguousarray(pixels.FACE_OPPONENT.T)
_TURNS_RING = np.linspace(0.0, 2.0 * math.pi, 48, endpoint=False)
_RING = np.concatenate(
    [
        np.stack([rad * np.cos(_TURNS_RING + k * 0.04), rad * np.sin(_TURNS_RING + k * 0.04)], -1)
        for k, rad in enumerate(np.linspace(TABLE_REACH[0] + 0.05, TABLE_REACH[1] - 0.05, 2))
    ]
)
_AROUND = np.concatenate([_FACE, _RING])


def _medians(values: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the median colour of ``values`` (rows, n, 3) where ``keep`` (rows, n), and how many were kept.

    (Rows of different lengths at once: the values left out sort last.)
    """
    ranked = np.sort(np.where(keep[..., None], values, np.float32(np.inf)), axis=1)
    n = keep.sum(axis=1)
    rows = np.arange(len(n))
    lo, hi = ranked[rows, np.maximum(n - 1, 0) // 2], ranked[rows, np.minimum(n // 2, values.shape[1] - 1)]
    return (lo + hi) / 2, n


def pip_table_distances(image: np.ndarray, dice: list[Die]) -> list[float]:
    """Colour distance (~Lab) between the pips of each of ``dice`` and the table around its face.

    ``inf`` for a die where it cannot be told: the reading gives no pips, or
    no table shows around the face (a white die on a white tray). All dice
    are measured at once (a point off the frame takes its edge's colour): a
    die at a time, the numpy calls cost more than the work.
    """
    out = [math.inf] * len(dice)
    which = [i for i, d in enumerate(dice) if d.pips]
    if not which:
        return out
    pips, count, looks = [], [], []
    for i in which:
        die = dice[i]
        m = min(len(die.pips), 6)
        pips.append([die.pips[min(j, m - 1)] for j in range(6)])  # (a repeated pip changes no distance)
        count.append(m)
        side = max(die.side, 0.75 * pixels.box_side(die.box))
        # (the body-first reader gives its pips' centres but not their size)
        r = die.pip_radius or (PIP_SIZE[0] if die.value == 1 else PIP_SIZE[1]) * side
        if m == die.value:  # every layout is symmetric about the face's centre
            cx, cy = sum(p[0] for p in die.pips) / m, sum(p[1] for p in die.pips) / m
        else:
            cx, cy = die.center
        looks.append((side, r, cx, cy))
    n = len(which)
    pip_at = np.asarray(pips, dtype=np.float64)  # (die, pip, xy)
    side, r, cx, cy = np.asarray(looks, dtype=np.float64).T
    core = pip_at[:, :, None, :] + _CORE * r[:, None, None, None]  # (die, pip, point, xy)
    around = _AROUND * side[:, None, None]  # (die, point, xy)
    around[..., 0] += cx[:, None]
    around[..., 1] += cy[:, None]
    n_core = 6 * len(_CORE)
    h, w = image.shape[:2]
    xy = np.rint(np.concatenate([core.reshape(n, n_core, 2), around], axis=1)).astype(np.intp)
    np.clip(xy, 0, (w - 1, h - 1), out=xy)
    col = (
        np.take(image.reshape(-1, 3), xy[..., 1] * w + xy[..., 0], axis=0).astype(np.float32)
        @ _FACE_OPPONENT_T
    )
    dx = around[:, : len(_FACE), None, 0] - pip_at[:, None, :, 0]
    dy = around[:, : len(_FACE), None, 1] - pip_at[:, None, :, 1]
    gap = (dx * dx + dy * dy).min(axis=2)
    pip_kept = np.repeat(np.arange(6)[None, :] < np.asarray(count)[:, None], len(_CORE), axis=1)
    pip, _ = _medians(col[:, :n_core], pip_kept)
    face, n_face = _medians(col[:, n_core : n_core + len(_FACE)], gap >= (FACE_CLEAR * r[:, None]) ** 2)
    d = pip - face
    ring = col[:, n_core + len(_FACE) :]
    e = ring - face[:, None, :]
    table, n_table = _medians(ring, (e * e).sum(axis=2) > 0.25 * (d * d).sum(axis=1)[:, None])
    d = table - pip
    apart = np.sqrt((d * d).sum(axis=1))
    seen = (n_face >= 4) & (n_table >= max(4.0, TABLE_SHARE * len(_RING)))
    for k, i in enumerate(which):
        if seen[k]:
            out[i] = float(apart[k])
    return out
