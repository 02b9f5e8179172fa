"""Refusing dice whose top face cannot be read with confidence.

A die cocked against the tray wall or another die, a die half hidden under a
hand or an object, and a blurred die (still rolling, or out of focus) can each
be read with a confident but unfounded value. ``grade`` looks at every
confident reading once more, with five cheap checks on the frame itself, and
lowers the confidence of a die that fails one below 0.5, so that the table
asks for a re-roll instead of guessing:

* sharpness: the die's edges, along their blurriest direction, must not be
  spread over more than a few pixels;
* a square top face: the face, segmented by its own colour (grown from the
  reading's centre, and from around its pips), must not be foreshortened like
  the top of a leaning die;
* nothing lying over the die: the die's body must not run into a large piece of
  foreground that no die accounts for (a hand, a phone, a dice cup), smaller
  when it runs on out of the frame;
* a whole die in the box: a face of one flat colour must not run on beyond
  the reading's box, as it does when the reader saw only part of a die (the
  gap between two fingers over it, a cocked die's top merged with its side);
* a die's body: the middle of the face is one colour with a few pips that
  stand out from it, and that colour fills a block about as wide as a die
  around the centre; the holes of printed letters and the cells of a play
  mat, read as pips, fail this.

Every threshold below was set on the byler-d6 TRAIN photos (never on test) and
on the rendered scenes of ``vision.synth``; the comment of each gives the
figures that set it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision import SURE, pixels
from vision import body as die_body

if TYPE_CHECKING:
    from vision.die import Die

# Confidence given to a die that fails a check: below the 0.5 a die needs to
# be counted, so the table asks for a re-roll.
REFUSED = 0.3

# All sizes below are in die sides, taken as the side of the reading's box:
# the readers' boxes are what every reading has.

# --- sharpness -------------------------------------------------------------------
# Edge width = grey range of the face / the strongest grey step per pixel,
# measured along 0, 45, 90 and 135 degrees and taken in the worst direction, so
# that a streak in any direction counts. On the 1355 confident train readings
# of real dice it was 1.2-5.6 px (99th percentile 4.8); on rendered dice
# streaked by 0.3-0.6 of their side or defocused by 0.25-0.45 it was 6.7 px and
# more in 95% of readings, on sharp rendered dice 2.2-5.2 px.
BLUR_WINDOW = 0.45  # half side of the measured window
# The window's side is the side the reader measured, within BOX_TO_SIDE-1 box
# sides: a blurred die's box takes in its blur (up to 1.5 of the die's side),
# and the sharp table around it then set the edge (blurred renders of held-out
# seeds 2000-6000: 5.7-6.0 px in the box's window, 6.5-15.6 at the die's side;
# all three left by the box's window are refused so, and one sharp die on the
# printed tray no longer is). On the 1476 confident train readings the edge in
# this window is 1.1-6.2 px (99th percentile 5.0): none is refused.
BLUR_EDGE_PX = 6.3
EDGE_RANK = 0.8  # the same as the 99th percentile up to dice about 100 px across
# A large die (250 px) with a 7 px edge is still sharp, so the edge must also
# be wide for the die (train: 0.03-0.26 of the side; blurred renders: 0.04-0.42).
BLUR_EDGE_SIDE = 0.06

# --- square top face ---------------------------------------------------------------
# The top face is the region of the face's colour (the median colour around the
# reading's centre) connected to that centre; the minimum-area rectangle of its
# convex hull must be square. Colours are grey (0-255) and two colour-opponent
# axes, on the scale of 8-bit Lab. The tolerance follows the face's own spread
# (2.5 x its median distance from the median colour, within 6-15): with a cap
# of 20 the side faces of real green dice, lit almost like their tops, joined
# the top and made it look foreshortened.
FACE_TOLERANCE = (6.0, 15.0)
FACE_SPREAD = 2.5
# A leaning die's top face is foreshortened by cos(tilt): clean readings of
# rendered dice cocked 30-50 degrees gave aspects 0.47-0.834. On train 1 of
# 1288 right readings (a green die, see above) and 1 of 67 wrong ones had a
# clean face under 0.85.
FACE_ASPECT = 0.85
# Only a clean segmentation is trusted: the region fills its convex hull and
# the hull fills its rectangle (cocked renders: 95% above 0.945), and it is
# about a die's size (not a merged neighbour, not a fragment of a marbled face).
FACE_FILL = 0.93
FACE_SOLID = 0.95
FACE_LONG = (0.6, 1.3)  # a cocked die's top may be larger than its reading's box
# The face is looked at with about this many pixels per die side (larger dice
# are shrunk by an integer factor: cheaper, and with 32 two more cocked renders
# of 70 came out unclean).
FACE_PX = 48.0

# The face is also grown from the rings around the reading's pips, at PIP_RING
# pip radii from each (clear of the pips, which are PIP_CLEAR radii apart at the
# least): the centre of a reading that spans a cocked die's top and side faces
# falls on their common edge or beside the die. (PIP_SHARE x the side is the
# radius of a pip when the reader gave none.) With the same tests of a clean,
# foreshortened face, this refused 5 of the 8 cocked renders of held-out
# seeds 2000-8000 (245) the other checks left, and no reading of train photos,
# rendered sharp dice or the bench. It is only looked for when the face grown
# from the centre is not a square about the box's size, ON_FACE_ASPECT square
# or more (as it is for most flat rendered dice: the centre is on the top
# face): grown for every die it would add a quarter to grade's cost. (A
# cocked die's top face grown from a centre on its edge measured 0.859 once,
# its pips' face 0.68.)
ON_FACE_ASPECT = 0.9
PIP_RING = 1.6
PIP_CLEAR = 1.3
PIP_SHARE = 0.085
_RING_ANGLES = np.linspace(0.0, 2.0 * math.pi, 12, endpoint=False)
_RING_COS, _RING_SIN = np.cos(_RING_ANGLES)[None], np.sin(_RING_ANGLES)[None]

# --- a whole die in the box ---------------------------------------------------------
# A reading's box holds the die it read, so the top face's region (above) lies
# inside it: its rectangle's long side is at most the box's side (flat rendered
# dice: at most 0.96 of 2082 readings). When it reaches further, the reading
# saw only part of a die whose face runs on beyond its box (the gap between
# two fingers over a die, or the top of a cocked die merged with its side
# face, also read as part of a die). Only a face of one flat colour is
# trusted: on the train photos the face's tolerance was 8.62 or more (up to
# 15) for every right reading whose face region reached beyond 0.97 of its box;
# on the troubled renders read confidently, 14 of 21 readings left by the other
# checks have a face region beyond WHOLE_REACH with a tolerance under
# WHOLE_TOLERANCE (mostly 6-7).
WHOLE_REACH = 0.98
WHOLE_TOLERANCE = 8.4

# --- nothing over the die --------------------------------------------------------------
# Foreground, on a copy shrunk by an integer factor to at least WORK_PX pixels
# per die side: a colour
# FG_CHROMA (~Lab units) from the table's (the frame's median colour: a hand
# over a die is too large for a local median), a coloured pixel FG_LIGHTER
# lighter than the table (a hand on a wooden table has the wood's hue), or one
# darker than FG_DARKER of the table's lightness (a phone, a dice cup; cast
# shadows are lighter than that). The shaded inner walls of the train trays
# differ from their floor by lightness and a slight blue tint (up to ~12):
# neither counts.
WORK_PX = 16.0
FG_CHROMA = 20.0
FG_LIGHTER = 18.0
FG_COLOURED = 25.0
FG_DARKER = 0.55
WALL_RUN = 5.0  # straight runs this long (die sides) are walls or table edges; vision.faces: 3.5
# The foreground joined to a die, outside its own box and outside the boxes of
# the other readings at least EXPLAINS sure, counted where it is at least
# THICK wide (fingers, die rims and thin wall shading are not), within
# COVER_REACH of the die's centre. On train it was at most 1.12 die areas for
# right readings (99th percentile 0.58) and 0.64 for wrong ones; on half-hidden
# rendered dice read confidently it was above 1.3 for 19 of 24.
COVER = 1.3
# A piece that runs out of the frame (a hand reaching in from the side) is larger
# than what shows of it, so it counts from COVER_OUT die areas: none of the
# readings of train photos has such a piece joined to it; of the right readings
# of rendered dice, one on a printed board has a 0.47 die areas one (its
# letters), and half-hidden rendered dice still read confidently had 0.54 and
# 0.98 (a hand and a dark object at the frame's edge).
COVER_OUT = 0.5
COVER_REACH = 2.5
THICK = 0.7
EXPLAINS = 0.3
# (Joined by strokes of the printed tray's letters, 4 sharp dice of the held-out
# seeds 2000-4000 beside a hand or object were refused with the die under it;
# opening the foreground by 3 work pixels, 3/16 of a side, before joining
# spared them and refused no hidden die fewer.)
OWN_INNER = 0.15  # what touches the die's box shrunk by this share on each side touches the die

# --- a die's body ----------------------------------------------------------------------
# Looked at around the reading's centre, with the side the reader measured or
# BOX_TO_SIDE x the box's side if larger (a box is up to 1.4 sides for a turned
# die; 0.75 is the median ratio on train). Colours are distances from the
# median colour of a disc of BODY_DISC sides' radius, inside the face however
# the die is turned. Figures: 1386 confident right readings of the train
# photos, 564 right readings of dice rendered on every table kind at 25-250 px,
# and 393 confident readings of empty rendered tables (78 on printed trays, 177
# on printed boards, 98 on play mats, 40 on stained tables), all as refused by
# the other checks first.
# * A face of 1-3 pips is mostly its own colour: within BODY_CORE sides of the
#   centre (outside BODY_ONE_PIP for a 1) the 75th percentile distance from the
#   median colour over the 97th (at least 2 x BODY_CONTRAST: a face without
#   pips there is only noise) was at most 0.732 on right train readings and
#   0.652 on rendered ones; above BODY_MIXED on 34 of 78 phantom readings of
#   printed trays and 50 of 177 of printed boards, where the disc holds letters
#   and the tray in like shares. (With more pips they fill too much of the disc
#   to tell.)
# * Pips stand out from the face: the face's tolerance, half the disc's 97th
#   percentile distance (or 3 x its median, for a noisy face), must reach
#   BODY_CONTRAST (right train readings: 21.2 and more, rendered: 50); not so
#   on 15 of 40 phantom readings of stained tables.
# * The face's colour (within that tolerance), its outline filled, must hold a
#   disc of BODY_INSCRIBED sides' radius near the centre: at least 0.319 on
#   right train readings, under 0.29 on 89 of 98 phantom readings of play mats
#   (a grid line or a cell's corner) and 63 of 177 of printed boards (a stroke).
# * A 1's pip is a blob of its own (see BODY_ONE_ARMS): this refused 41 of the
#   42 phantom readings the tests above left on the empty play mats of
#   tests/test_vision_empty.py (crossings of the mat's lines read as 1s), and no
#   right reading of train photos or renders.
BODY_DISC = 0.45
BODY_CORE = 0.35
BODY_MIXED = 0.75
BODY_MIXED_PIPS = 3  # the largest value the first test applies to
BODY_ONE_PIP = 0.2  # a 1's core is a ring outside this radius (its pip: 0.11-0.13 sides)
BODY_ONE_SPOT = 0.1  # a 1's pip is the blob most seen within this of the centre
BODY_ONE_ARMS = 3  # right train 1s: at most 2 (2 of 238); crossings of a mat grid: 3-4
BODY_CONTRAST = 19.0
BODY_INSCRIBED = 0.29
BOX_TO_SIDE = 0.75
BODY_PX = 24.0  # pixels per die side the body is looked at with (larger dice are shrunk)


@dataclass
class FaceCheck:
    """What the checks measured on one reading."""

    edge_px: float = 0.0  # edge width in the blurriest direction (px)
    edge_side: float = 0.0  # the same, in die sides
    face_aspect: float = 1.0  # short / long side of the top face's rectangle
    face_clean: bool = False  # the top face's segmentation is trustworthy
    face_reach: float = 0.0  # the top face region's longest extent, in sides of the reading's box
    face_tolerance: float = FACE_TOLERANCE[1]  # the colour tolerance that region was grown with
    cover: float = 0.0  # unexplained foreground joined to the die, in die areas
    mixed: float = 0.0  # the face's core: 75th over 97th percentile distance from its median colour
    contrast: float = 0.0  # the pips' contrast on the face (the tolerance of the face's colour)
    inscribed: float = 1.0  # the face's widest disc near the centre, radius in die sides
    reason: str = ""  # "blurred", "cocked", "hidden", "not whole", "no body", or "" when readable


def edge_width(image: np.ndarray, cx: float, cy: float, side: float) -> float:
    """Edge width (px) around (cx, cy) in the blurriest of four directions."""
    crop, x0, y0 = pixels.crop(image, cx, cy, BLUR_WINDOW * side + 1)
    if crop.shape[0] < 4 or crop.shape[1] < 4:
        return 0.0
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    n = grey.size
    lo, hi = int(0.02 * (n - 1)), int(0.98 * (n - 1))
    ranked = np.partition(grey.ravel(), (lo, hi))
    spread = float(ranked[hi]) - float(ranked[lo])
    if spread <= 1.0:
        return 0.0  # a flat patch: nothing to judge
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    d = np.float32(math.sqrt(0.5))
    # |steps| along 0, 90, 45 and 135 degrees, written into one buffer
    steps = np.empty((4, n), np.float32)
    gx, gy = gx.reshape(-1), gy.reshape(-1)
    np.abs(gx, out=steps[0])
    np.abs(gy, out=steps[1])
    np.add(gx, gy, out=steps[2])
    np.subtract(gx, gy, out=steps[3])
    diagonal = steps[2:]
    np.multiply(diagonal, d, out=diagonal)
    np.abs(diagonal, out=diagonal)
    # The step at the 99th percentile of the window; on a large die the edges
    # (outline, pips' rims) are fewer than 1% of the window's pixels, so the rank
    # is capped at EDGE_RANK x side, about their length. (Uncapped, a sharp die
    # 180 px across measured 12 px.)
    k = n - max(3, min(n // 100, int(EDGE_RANK * side)))
    steps.partition(k, axis=1)
    weakest = float(steps[:, k].min()) / 8.0  # Sobel sums 8 per pixel
    return spread / max(weakest, 1e-3)


def _face_window(
    image: np.ndarray, cx: float, cy: float, side: float
) -> tuple[np.ndarray, float, float, int] | None:
    """(colours, x0, y0, shrink) of the window the top face is looked for in, or None when too small.

    The window spans 0.9 ``side`` around (cx, cy), shrunk by ``shrink`` to about
    FACE_PX pixels per die side; a frame point (x, y) is at ((x - x0) / shrink,
    (y - y0) / shrink) in it.
    """
    crop, x0, y0 = pixels.crop(image, cx, cy, 0.9 * side)
    if crop.shape[0] < 6 or crop.shape[1] < 6:
        return None
    # the shape needs no more than about FACE_PX pixels per die side (an integer
    # shrink factor keeps the resize on OpenCV's fast path)
    shrink = max(1, int(side / FACE_PX))
    crop = pixels.shrink_by(crop, shrink) if shrink > 1 else cv2.GaussianBlur(crop, (3, 3), 0)
    return cv2.transform(crop.astype(np.float32), pixels.FACE_OPPONENT), x0, y0, shrink


def _face_region(col: np.ndarray, seeds: np.ndarray) -> tuple[tuple[np.ndarray, int], float]:
    """((labels, count), tolerance): the pieces of ``col`` within tolerance of the seeds' median colour."""
    face = pixels.median(seeds)
    spread = float(pixels.median(_norms(seeds - face)))
    tol = min(max(FACE_SPREAD * spread, FACE_TOLERANCE[0]), FACE_TOLERANCE[1])
    diff = cv2.subtract(col, (float(face[0]), float(face[1]), float(face[2]), 0.0))
    dist2 = cv2.transform(cv2.multiply(diff, diff), pixels.SUM3)
    n, labels = cv2.connectedComponents(cv2.compare(dist2, tol * tol, cv2.CMP_LT), connectivity=4)
    return (labels, n), tol


def _face_shape(region: np.ndarray, side: float) -> tuple[float, bool, float]:
    """(aspect, clean, reach) of a face region (0/1, uint8) on a die of ``side`` pixels."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    long_side, short_side = max(rw, rh), min(rw, rh)
    reach = long_side / side
    if short_side <= 0:
        return 1.0, False, reach
    if short_side / long_side >= FACE_ASPECT:
        return short_side / long_side, True, reach  # square: how clean matters not (and is not judged)
    if region[0].any() or region[-1].any() or region[:, 0].any() or region[:, -1].any():
        return short_side / long_side, False, reach  # runs out of the window: not one face
    hull_area = cv2.contourArea(hull)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, [outline], -1, 1, -1)
    clean = (
        hull_area / (rw * rh) > FACE_FILL
        and float(np.count_nonzero(filled)) / max(hull_area, 1.0) > FACE_SOLID
        and FACE_LONG[0] * side < long_side < FACE_LONG[1] * side
    )
    return short_side / long_side, clean, reach


def _grown(labels: np.ndarray, n: int, seeds: np.ndarray) -> np.ndarray | None:
    """The region of ``labels`` most ``seeds`` (labels taken at the seed points) fall in, as 0/1."""
    counts = np.bincount(seeds.ravel(), minlength=n)
    counts[0] = 0
    if n <= 1 or counts.max() == 0:
        return None
    return (labels == int(counts.argmax())).astype(np.uint8)


def top_face(image: np.ndarray, cx: float, cy: float, side: float) -> tuple[float, bool, float, float]:
    """(aspect, clean, reach, tolerance) of the top face region grown from (cx, cy).

    clean is judged for non-square faces only; reach is the long side of the
    region's rectangle in ``side``s, tolerance the colour distance it was grown with.
    """
    return _centre_face(_face_window(image, cx, cy, side), cx, cy, side)


def _centre_face(
    window: tuple[np.ndarray, float, float, int] | None, cx: float, cy: float, side: float
) -> tuple[float, bool, float, float]:
    if window is None:
        return 1.0, False, 0.0, FACE_TOLERANCE[1]
    col, x0, y0, shrink = window
    px, py, side = (cx - x0) / shrink, (cy - y0) / shrink, side / shrink
    q = max(1, int(0.2 * side))
    core = col[max(0, int(py) - q) : int(py) + q + 1, max(0, int(px) - q) : int(px) + q + 1].reshape(-1, 3)
    (labels, n), tol = _face_region(col, core[:: max(1, len(core) // 200)])
    q = max(1, int(0.3 * side))
    region = _grown(
        labels, n, labels[max(0, int(py) - q) : int(py) + q + 1, max(0, int(px) - q) : int(px) + q + 1]
    )
    if region is None:
        return 1.0, False, 0.0, tol
    return (*_face_shape(region, side), tol)


def pip_face(
    image: np.ndarray, die: Die, side: float, window: tuple[np.ndarray, float, float, int] | None = None
) -> tuple[float, bool]:
    """(aspect, clean) of the face the reading's pips lie on, grown from the rings around them.

    The box's centre may fall off the face (on a cocked die's edge, or beside
    it); the pips are on it. See PIP_RING. ``window`` is ``_face_window``'s
    around the die's centre, if taken already.
    """
    if not die.pips:
        return 1.0, False
    window = window or _face_window(image, die.center[0], die.center[1], side)
    if window is None:
        return 1.0, False
    col, x0, y0, shrink = window
    h, w = col.shape[:2]
    r = (die.pip_radius or PIP_SHARE * (die.side or BOX_TO_SIDE * side)) / shrink
    pips = (np.array(die.pips, np.float64) - (x0, y0)) / shrink
    ring = max(PIP_RING * r, r + 1.5)
    xs = (pips[:, :1] + ring * _RING_COS).ravel()
    ys = (pips[:, 1:] + ring * _RING_SIN).ravel()
    # (ring points on a neighbouring pip are not the face)
    clear = np.all(np.hypot(xs[:, None] - pips[:, 0], ys[:, None] - pips[:, 1]) > PIP_CLEAR * r, axis=1)
    clear &= (xs >= 0) & (xs <= w - 1) & (ys >= 0) & (ys <= h - 1)
    if np.count_nonzero(clear) < 4:
        return 1.0, False
    ix, iy = np.round(xs[clear]).astype(int), np.round(ys[clear]).astype(int)
    (labels, n), _ = _face_region(col, col[iy, ix])
    region = _grown(labels, n, labels[iy, ix])
    if region is None:
        return 1.0, False
    # (a die's size is the side the reader measured, within BOX_TO_SIDE-1 box
    # sides, as for the edge: a reading across two faces has a box too large)
    aspect, clean, _ = _face_shape(region, min(side, max(die.side, BOX_TO_SIDE * side)) / shrink)
    return aspect, clean


def _norms(d: np.ndarray) -> np.ndarray:
    """``np.sqrt((d ** 2).sum(-1))`` of n colour differences (n, 3), the same
    floats (numpy sums a row of three left to right) at a fifth of the cost."""
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    return np.sqrt(x * x + y * y + z * z)


def _rank(values: np.ndarray, shares: tuple[float, ...]) -> list[float]:
    """The values at these shares (0-1) of the ranked ``values`` (nearest rank: cheaper than percentile)."""
    n = len(values) - 1
    ks = [round(share * n) for share in shares]
    ranked = np.partition(values, ks)
    return [float(ranked[k]) for k in ks]


def body(image: np.ndarray, cx: float, cy: float, side: float, value: int = 0) -> tuple[float, float, float]:
    """(mixed, contrast, inscribed) of the body of a die showing ``value`` around (cx, cy); see BODY_MIXED."""
    crop, x0, y0 = pixels.crop(image, cx, cy, 0.5 * side + 1)
    if crop.shape[0] < 6 or crop.shape[1] < 6:
        return 0.0, 255.0, 1.0
    shrink = max(1, int(side / BODY_PX))
    crop = pixels.shrink_by(crop, shrink)
    px, py, s = (cx - x0) / shrink, (cy - y0) / shrink, side / shrink
    col = cv2.transform(crop.astype(np.float32), pixels.FACE_OPPONENT)
    h, w = col.shape[:2]
    r2 = ((np.arange(w) - px) ** 2)[None, :] + ((np.arange(h) - py) ** 2)[:, None]
    disc = r2 < (BODY_DISC * s) ** 2
    # (the disc's pixels by their flat indices: taking them costs half of a mask)
    at = np.flatnonzero(disc)
    inside = col.reshape(-1, 3).take(at, 0)
    if len(inside) < 4:
        return 0.0, 255.0, 1.0
    face = pixels.median(inside)
    diff = cv2.subtract(col, (float(face[0]), float(face[1]), float(face[2]), 0.0))
    dist = cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), pixels.SUM3))
    median, far = _rank(dist.reshape(-1).take(at), (0.5, 0.97))
    far = max(far, 1.0)
    tol = max(0.5 * far, 3.0 * median, 12.0)
    mixed = 0.0
    centre = col[:0]
    if value <= BODY_MIXED_PIPS:
        core_disc = r2 < (BODY_CORE * s) ** 2
        if value == 1:  # the one pip is large, and a side measured short would let it fill the disc
            core_disc &= r2 >= (BODY_ONE_PIP * s) ** 2
        centre = col.reshape(-1, 3).take(np.flatnonzero(core_disc), 0)
    if len(centre) >= 4:
        c75, c97 = _rank(_norms(centre - pixels.median(centre)), (0.75, 0.97))
        # (a face without pips in it is only noise, whose percentiles are alike)
        mixed = c75 / max(c97, 2.0 * BODY_CONTRAST)
    if value == 1 and mixed <= BODY_MIXED:
        # A 1's pip is a blob of its own: what stands out from the face (by half
        # the contrast) at the centre must not run out to the disc's edge in
        # several arms, as where lines of a grid cross or strokes of a letter meet.
        n, labels = cv2.connectedComponents(cv2.compare(dist, 0.5 * far, cv2.CMP_GT), connectivity=8)
        q = max(1, int(BODY_ONE_SPOT * s))
        ix, iy = int(px), int(py)
        spot = labels[max(0, iy - q) : iy + q + 1, max(0, ix - q) : ix + q + 1]
        spot = spot[spot > 0]
        if len(spot):
            rim = (labels == int(np.bincount(spot).argmax())) & (r2 >= (BODY_DISC * s) ** 2)
            if cv2.connectedComponents(rim.astype(np.uint8), connectivity=8)[0] - 1 >= BODY_ONE_ARMS:
                mixed = 1.0
    if mixed > BODY_MIXED or tol < BODY_CONTRAST:
        return mixed, tol, 1.0  # refused already: the face's extent needs no measuring
    near = cv2.compare(dist, tol, cv2.CMP_LE)
    n, labels = cv2.connectedComponents(near, connectivity=4)
    core = labels[disc & (near > 0)]
    if n <= 1 or len(core) == 0:
        return mixed, tol, 0.0
    region = (labels == int(np.bincount(core).argmax())).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(filled[1:-1, 1:-1], [max(contours, key=cv2.contourArea)], -1, 1, -1)
    reach = cv2.distanceTransform(filled, cv2.DIST_L2, 3)[1:-1, 1:-1]
    q = max(1, int(0.12 * s))
    ix, iy = int(px), int(py)
    inscribed = float(reach[max(0, iy - q) : iy + q + 1, max(0, ix - q) : ix + q + 1].max()) / s
    return mixed, tol, inscribed


def check(image: np.ndarray, die: Die, side: float | None = None, cover: float = 0.0) -> FaceCheck:
    """Judge one reading of ``image`` (BGR).

    ``side`` defaults to ``die_side``; ``cover`` comes from ``covers``. The
    result's ``reason`` names the first check that failed, if any.
    """
    side = float(side or die_side(die))
    cx, cy = die.center
    out = FaceCheck(cover=cover)
    if side < 4:
        return out
    out.edge_px = edge_width(image, cx, cy, min(side, max(die.side, BOX_TO_SIDE * side)))  # see BLUR_WINDOW
    out.edge_side = out.edge_px / side
    window = _face_window(image, cx, cy, side)
    out.face_aspect, out.face_clean, out.face_reach, out.face_tolerance = _centre_face(window, cx, cy, side)
    if out.edge_px > BLUR_EDGE_PX and out.edge_side > BLUR_EDGE_SIDE:
        out.reason = "blurred"
    elif out.face_clean and out.face_aspect < FACE_ASPECT:
        out.reason = "cocked"
    elif cover > COVER:
        out.reason = "hidden"
    elif out.face_tolerance < WHOLE_TOLERANCE and out.face_reach > WHOLE_REACH:
        out.reason = "not whole"
    elif not _on_face(out) and (pip := pip_face(image, die, side, window))[1] and pip[0] < FACE_ASPECT:
        out.face_aspect, out.face_clean = pip
        out.reason = "cocked"
    else:
        face_side = max(die.side, BOX_TO_SIDE * side)
        out.mixed, out.contrast, out.inscribed = body(image, cx, cy, face_side, die.value)
        mixed = out.mixed > BODY_MIXED and die.value <= BODY_MIXED_PIPS
        if mixed or out.contrast < BODY_CONTRAST or out.inscribed < BODY_INSCRIBED:
            out.reason = "no body"
    return out


def _on_face(out: FaceCheck) -> bool:
    """Whether the face grown from the box's centre is a square about a die's size (see PIP_RING)."""
    return out.face_aspect >= ON_FACE_ASPECT and FACE_LONG[0] < out.face_reach <= WHOLE_REACH


def die_side(die: Die) -> float:
    """The die's side in pixels, as the checks take it: its box's."""
    return pixels.box_side(die.box)


def grade(image: np.ndarray, dice: list[Die]) -> list[Die]:
    """``dice`` with the confidence of every unreadable confident die lowered to ``REFUSED``.

    A confident reading whose pips are the colour of the table around it
    (``vision.body.pip_table_distances``: a printed letter's holes, a mat's cells)
    is no die at all and is dropped, so that it asks for no re-roll.
    """
    sure = [i for i, d in enumerate(dice) if d.confidence >= SURE]
    if not sure:
        return dice
    img = pixels.as_bgr(image, "grade")
    side = float(pixels.median([die_side(dice[i]) for i in sure]))
    cover = covers(img, dice, side, sure)
    out: list[Die | None] = list(dice)
    to_table = die_body.pip_table_distances(img, [dice[i] for i in sure])
    for i, apart in zip(sure, to_table, strict=True):
        d = dice[i]
        if apart < die_body.TABLE_SAME:
            out[i] = None  # ink and paper (a printed letter, a mat's pattern): no die at all
        elif check(img, d, die_side(d), cover[i]).reason:
            out[i] = replace(d, confidence=min(d.confidence, REFUSED))
    return [d for d in out if d is not None]


# Grey lightness (0-100) and two colour-opponent axes (red-green, yellow-blue),
# roughly in Lab units: one cv2.transform instead of a uint8 Lab conversion.
_OPP = pixels.OPPONENT * np.float32([[100 / 255], [300 / 255], [300 / 255]])


def foreground(work: np.ndarray, side: float) -> np.ndarray:
    """Pixels of ``work`` (BGR) that differ from the table, as 0/1; ``side`` is a die's side there.

    The table is the frame's median colour: a hand or an object over a die is
    a large part of the frame and would pass as table in a local median. Long
    straight bands (tray walls, table edges) are not objects over a die.
    """
    opp = cv2.transform(work.astype(np.float32), _OPP)
    table = pixels.median(opp.reshape(-1, 3)[:: max(1, opp.shape[0] * opp.shape[1] // 600)])
    light, c1, c2 = cv2.split(opp)
    chroma = cv2.magnitude(c1 - float(table[1]), c2 - float(table[2]))
    coloured = cv2.magnitude(c1, c2) > FG_COLOURED
    fg = ((light - float(table[0]) > FG_LIGHTER) & coloured) | (chroma > FG_CHROMA)
    fg |= light < FG_DARKER * float(table[0])
    fg = fg.astype(np.uint8)
    run = int(WALL_RUN * side)
    if run < min(fg.shape):
        # (beyond the frame is no foreground: an erosion's border would count it
        # as such, and an object half a run long reaching in from the frame's
        # edge would pass for a wall)
        h, w = fg.shape
        m = run // 2 + 1  # as far as a run's kernel reaches out of the frame
        framed = cv2.copyMakeBorder(fg, m, m, m, m, cv2.BORDER_CONSTANT, value=0)
        runs = [pixels.open_runs(framed, np.ones(shape, np.uint8)) for shape in ((1, run), (run, 1))]
        runs = [r[m : m + h, m : m + w] for r in runs if r is not None]
        if runs:
            walls = runs[0] if len(runs) == 1 else runs[0] | runs[1]
            fg &= 1 - cv2.dilate(walls, np.ones((3, 3), np.uint8))
    return fg


def covers(image: np.ndarray, dice: list[Die], side: float, which: list[int] | None = None) -> list[float]:
    """Per die (or per die of ``which``; 0 for the others): foreground joined to it that no
    other die explains, in die areas; ``side`` is the frame's die side."""
    h, w = image.shape[:2]
    n = max(1, int(side / WORK_PX))
    # (linear, not area, interpolation: 0.06 against 0.4 ms a frame, and the
    # foreground is only looked at in pieces at least THICK wide)
    work = cv2.resize(image, (max(1, w // n), max(1, h // n))) if n > 1 else image
    k = 1.0 / n
    fg = foreground(work, side * k)
    s = side * k
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(round(THICK * s)) | 1),) * 2)
    thick_all = cv2.morphologyEx(fg, cv2.MORPH_OPEN, kernel)
    out = [0.0] * len(dice)
    for i in range(len(dice)) if which is None else which:
        d = dice[i]
        cx, cy = d.center[0] * k, d.center[1] * k
        win, x0, y0 = pixels.crop(fg, cx, cy, COVER_REACH * s)
        win = win.copy()
        thick = pixels.crop(thick_all, cx, cy, COVER_REACH * s)[0].copy()
        for j, o in enumerate(dice):
            if j == i or o.confidence < EXPLAINS:
                continue
            bx0, by0, bx1, by1 = (v * k for v in o.box)
            g = 0.1 * (bx1 - bx0)
            cut = (
                slice(max(0, int(by0 - g - y0)), max(0, int(by1 + g - y0) + 1)),
                slice(max(0, int(bx0 - g - x0)), max(0, int(bx1 + g - x0) + 1)),
            )
            win[cut] = 0
            thick[cut] = 0
        # Pieces are joined through thin bridges (a finger over the die, the die's
        # rim), but only the thick part of the foreground outside the die's own
        # box is counted: a die on its own has none. Lines one or two work
        # pixels wide (the strokes of a printed tray's letters and lines) join
        # nothing.
        bx0, by0, bx1, by1 = (v * k for v in d.box)
        own = (
            slice(max(0, int(by0 - y0)), max(0, int(by1 - y0) + 1)),
            slice(max(0, int(bx0 - x0)), max(0, int(bx1 - x0) + 1)),
        )
        thick[own] = 0
        if not thick.any():
            continue  # nothing to count, whatever joins the die
        square = np.ones((3, 3), np.uint8)
        bridges = cv2.dilate(cv2.morphologyEx(win, cv2.MORPH_OPEN, square), square)
        n, labels = cv2.connectedComponents(bridges, connectivity=8)
        m = OWN_INNER * (bx1 - bx0)
        inner = labels[
            max(0, int(by0 + m - y0)) : max(0, int(by1 - m - y0) + 1),
            max(0, int(bx0 + m - x0)) : max(0, int(bx1 - m - x0) + 1),
        ]
        touching = np.unique(inner)
        touching = touching[touching > 0]
        if len(touching):
            joins = np.zeros(n, bool)
            joins[touching] = True
            pieces = joins[labels]
            out[i] = float(np.count_nonzero(pieces & (thick > 0))) / s**2
            if _runs_out(pieces, x0, y0, fg.shape):
                out[i] *= COVER / COVER_OUT
    return out


def _runs_out(pieces: np.ndarray, x0: int, y0: int, frame: tuple[int, ...]) -> bool:
    """Whether ``pieces`` (a window of the frame at (x0, y0)) reach the frame's edge."""
    h, w = pieces.shape
    return bool(
        (x0 == 0 and pieces[:, 0].any())
        or (y0 == 0 and pieces[0].any())
        or (x0 + w >= frame[1] and pieces[:, -1].any())
        or (y0 + h >= frame[0] and pieces[-1].any())
    )
