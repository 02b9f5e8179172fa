"""Looking again at dice that neither reader read surely.

``recover`` runs after ``vision.fusion.fuse``. A place where the readers saw a
die but could not read it (an unsure reading) is read once more by
``read_face``, a reader made for one die: it knows where the die is and about
how large, so it needs no pip detector, only a contrast. It samples the face
on the 3x3 grid of pip places and a ring of empty places around it, in each
channel where pips may stand out from the die's own body (lighter, darker,
redder), over a search of the grid's turn, centre and size, and keeps the
layout whose pip places stand out most from its empty places, measured
against their spread. Dark marbled dice with small red pips that run
together, the hardest dice for both readers, are read this way: their merged
pips still light up the right places of the grid. A reading is made sure only
when it is clear, is not a 1 in disguise, has a body unlike the table and
passes ``vision.quality``'s checks.

Sure 1s are looked at again too. A sure 1 on a dark, greyish body whose red
stands out around the face as much as at its middle is no 1: on dark marbled
dice with small red pips a lone blob (a swirl, or pips run together) reads as
a 1 while the red pips of a 4, 5 or 6 lie around it. Such a reading is
refused (``doubtful_one``), unless its grid shows a 1 clearly. A sure 1 that
one reader alone found takes the grid's value when the grid reads another
value clearly. And a die that the pip-first reader read as a 1 and the
body-first reader as more, fused to the larger value, is made a 1 when its
grid shows a 1 far more clearly than anything else (``ones_read_as_more``).

Two more kinds of evidence are asked for. A sure reading whose own found pips
give a grid whose site colours show another value, which the grid searched
in the die's own contrast shows too, takes that value (``grids_agree``). And
the die bodies the body-first reader found but could not read are read here
in their own colours; only clear readings count (``read_bodies``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision import SURE, pipcount, pixels, quality, verify
from vision.die import Die

# Places around the pip grid that lie on the face of a die (whose half side is
# about 2.5 grid steps) and hold no pip: a grid read off the table around a
# die, or off a larger grid's pips, has something there.
_RING = (
    (-1.6, 0.0),
    (1.6, 0.0),
    (0.0, -1.6),
    (0.0, 1.6),
    (-1.35, -1.35),
    (1.35, -1.35),
    (-1.35, 1.35),
    (1.35, 1.35),
)
# Per layout (the body-first reader's, 2, 3 and 6 in both turns), its value
# and the places it fills: pips on the grid, none on the ring.
_VALUES = pipcount.PATTERN_VALUES.tolist()
_ON = np.zeros((len(_VALUES), 9 + len(_RING)), bool)
_ON[:, :9] = pipcount.PATTERNS

MIN_SIDE = 6.0  # px: smaller dice have no readable pips
WORK_SIDE = 40.0  # a die is read at this side (px): enough for its pips, cheap
TURNS = np.deg2rad(np.arange(0.0, 90.0, 6.0))
SHIFTS = tuple(np.arange(-0.2, 0.21, 0.05))  # grid centre offsets tried, in box sides
STEPS = tuple(np.arange(0.12, 0.22, 0.03))  # grid step, in box sides
# Added to the spread of the places (8-bit levels): a flat face, whose empty
# places agree to a level, must still show pips of some contrast.
NOISE = 4.0
BLUR = 0.05  # smoothing of the channels, in die sides: a sample averages over a pip

_ON_F = _ON.astype(np.float32)
_N_ON = _ON_F.sum(1)
_N_OFF = _ON.shape[1] - _N_ON
_SUMS = np.ascontiguousarray(np.vstack([_ON_F, np.ones((1, _ON.shape[1]), np.float32)]).T)


def _offsets() -> np.ndarray:
    """Sample places of every grid tried, (turn, shift, shift, step) x place x (x, y), in work pixels."""
    grid = np.vstack([pipcount.GRID_UNIT, np.float32(_RING)])
    out = []
    for t in TURNS:
        u = np.array([math.cos(t), math.sin(t)], np.float32)
        v = np.array([-math.sin(t), math.cos(t)], np.float32)
        rot = grid[:, :1] * u + grid[:, 1:] * v
        for sx in SHIFTS:
            for sy in SHIFTS:
                for step in STEPS:
                    out.append(rot * (step * WORK_SIDE) + (sx * WORK_SIDE, sy * WORK_SIDE))
    return np.array(out, np.float32)


_OFFSETS = _offsets()
_REACH = int(np.ceil(np.abs(_OFFSETS).max())) + 1  # half side of the work window
_INDEX = (np.rint(_OFFSETS[..., 1]).astype(np.intp) + _REACH) * (2 * _REACH + 1) + (
    np.rint(_OFFSETS[..., 0]).astype(np.intp) + _REACH
)


@dataclass
class FaceRead:
    """The best reading of one face: value, and how clearly it stood out."""

    value: int
    separation: float  # (mean of pip places - mean of empty places) / (their spread + NOISE)
    margin: float  # separation over that of the best reading of another value (not 1)
    contrast: float  # mean of pip places - mean of empty places (8-bit levels)
    channel: int
    body: tuple[float, float, float] = (0.0, 0.0, 0.0)  # BGR of the empty places
    one: float = 0.0  # the separation of the best reading as a 1


def _channels(window: np.ndarray) -> list[np.ndarray]:
    """Signed channels in which pips may stand out: lighter, darker, redder."""
    f = window.astype(np.float32)
    b, g, r = cv2.split(f)
    grey = 0.114 * b + 0.587 * g + 0.299 * r
    red = r - 0.5 * (g + b)
    return [grey, -grey, red]


def read_face(image: np.ndarray, cx: float, cy: float, side: float) -> FaceRead | None:
    """Read the die of box side ``side`` (px) centred near (cx, cy) of ``image`` (BGR)."""
    if side < MIN_SIDE:
        return None
    # the die, scaled to WORK_SIDE and centred in a fixed window, so that every
    # grid's places are fixed indices into it
    k = WORK_SIDE / side
    c = _REACH + 0.5
    warp = np.float32([[k, 0, c - k * cx], [0, k, c - k * cy]])
    size = 2 * _REACH + 1
    win = cv2.warpAffine(image, warp, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sigma = BLUR * WORK_SIDE
    chans = [cv2.GaussianBlur(ch, (0, 0), sigma) for ch in _channels(win)]
    best: FaceRead | None = None
    per_value: dict[int, float] = {}
    for ci, ch in enumerate(chans):
        # every grid's places at once: (grids, places), and per layout the
        # sums over its pip places (grids, layouts)
        vals = ch.ravel()[_INDEX]
        # (einsum, not @: BLAS threads made the product slower than the work)
        s1 = np.einsum("hk,kl->hl", vals, _SUMS)  # (last column: over all places)
        s2 = np.einsum("hk,kl->hl", vals * vals, _SUMS)
        s1_on, s2_on = s1[:, :-1], s2[:, :-1]
        s1_off, s2_off = s1[:, -1:] - s1_on, s2[:, -1:] - s2_on
        m_on = s1_on / _N_ON
        m_off = s1_off / _N_OFF
        var = (s2_on - _N_ON * m_on**2 + s2_off - _N_OFF * m_off**2) / _ON.shape[1]
        sep = (m_on - m_off) / (np.sqrt(np.maximum(var, 0)) + NOISE)
        top = sep.argmax(0)
        for li, value in enumerate(_VALUES):
            hi = int(top[li])
            sc = float(sep[hi, li])
            if sc > per_value.get(value, -np.inf):
                per_value[value] = sc
            if value == 1:
                continue
            if best is None or sc > best.separation:
                best = FaceRead(value, sc, 0.0, float(m_on[hi, li] - m_off[hi, li]), ci)
                at = (hi, li)
    if best is None:
        return None
    hi, li = at
    flat = win.reshape(-1, 3)[_INDEX[hi][~_ON[li]]]
    best.body = tuple(float(x) for x in np.median(flat, axis=0))
    best.one = per_value[1]
    others = [s for v, s in per_value.items() if v not in (1, best.value)]
    best.margin = best.separation - max(others) if others else best.separation
    return best


RECOVERED = 0.6  # confidence of a die read here: sure, but below the readers' agreeing dice
# A clear reading: read at the labelled boxes of the 1487 train dice, the
# readings this clear (and not 1s, below) were right for 667 of 689 (96.8%);
# the unsure train readings made sure by them were all right. A reading that
# agrees with the readers' own unsure value needs no margin.
MIN_SEPARATION = 2.5
MIN_MARGIN = 0.6
# The grid never reads a die as a 1 (a lone blob, merged pips or a speck, fits
# the middle place of many grids), but a die that reads far better as a 1 than
# as anything else is left alone: on train, 1s read so by 0.6-17 (90% above
# 3.3), other values by -3.3 to 8 (90% below 1.9), the dice made sure by -1 to
# 0.6; rendered 1s by 14-25.
ONE_OVER = 1.5
APART = 0.6  # an unsure reading this close (in box sides) to a sure die is that die
# The body of a die read here differs from the table's colour by at least this
# (grey/opponent units, 0-255): on train the dice made sure differed by 92-142;
# grids read off a speckled or printed table, the phantoms of rendered
# scenes, by 0-5.
BODY_FROM_TABLE = 40.0
TABLE_SAMPLES = 4000  # pixels sampled for the table's colour
# A reading's box can hold only its pips (a 20 px box on a 32 px die on train):
# when the frame's dice are this much larger, the die is read at their size
# too, and the clearer reading kept (one more die made sure on train).
SMALL_BOX = 1.2


# A sure 1 is doubted (see ``doubtful_one``) on a face of median grey below
# ONE_DARK and median redness above ONE_BODY_RED (grey and reddish bodies, not
# blue or purple ones, whose white pips on a reddish tint show red around the
# middle too), when the redness of its ring (90th percentile, 0.2-0.38 die
# sides out) over the face's median is at least ONE_RING times that of its
# middle (mean within 0.1 sides), and either the middle (ONE_RED_MIDDLE) or
# the ring (ONE_RED_RING) is red. On the 254 sure 1s of train these held for
# 7 of the 12 read wrong (truth 3-6) and none of the 242 right; the right red
# pipped 1s on grey bodies had a ring at most 0.51 of their middle, the wrong
# ones 0.69-1.45 (or no red middle at all, ring 26-42).
ONE_DARK = 80.0
ONE_BODY_RED = -10.0
ONE_RING = 0.6
ONE_RED_MIDDLE = 15.0
ONE_RED_RING = 25.0
# ... unless the pip grid (``read_face``) reads it as a 1 by this much over
# any other value: rendered marbled 1s with reddish swirls read so by 2.1-4.4;
# of the 7 wrong 1s of train doubted, 6 by -0.2 to 1.7 (the seventh, by 3.8,
# is left as it was).
ONE_GRID = 2.0
ONE_FACE = 0.4  # face disc radius, in die sides
ONE_MIDDLE = 0.1
ONE_RING_IN, ONE_RING_OUT = 0.2, 0.38
ONE_PX = 24  # pixels a die side is measured at, at most
_GREY_RED = np.float32([[0.114, 0.587, 0.299], [-0.5, -0.5, 1.0]])  # BGR -> (grey, redness)


def red_layout(image: np.ndarray, cx: float, cy: float, side: float) -> tuple[float, float, float, float]:
    """(middle, ring, grey, body red) of the face of side ``side`` centred at (cx, cy) of ``image`` (BGR).

    Redness is R - (G + B) / 2; middle and ring are over the face's median
    redness (see ONE_RING), grey and body red the face's medians. A face
    lighter than ONE_DARK comes back with its grey alone (ring and middle 0).
    """
    crop, x0, y0 = pixels.crop(image, cx, cy, ONE_FACE * side + 1)
    # (the measures are means and ranks over the face, which ONE_PX pixels a side keep)
    shrink = max(1, int(side / ONE_PX))
    crop = pixels.shrink_by(crop, shrink)
    if crop.shape[0] < 4 or crop.shape[1] < 4:
        return 0.0, 0.0, 255.0, 0.0
    chans = cv2.transform(crop.astype(np.float32), _GREY_RED)
    # (a shrunk pixel's centre lies (shrink - 1) / 2 pixels into its block)
    half = 0.5 * (shrink - 1)
    px, py, s = (cx - x0 - half) / shrink, (cy - y0 - half) / shrink, side / shrink
    d2 = np.add.outer((np.arange(crop.shape[0]) - py) ** 2, (np.arange(crop.shape[1]) - px) ** 2) / (s * s)
    face = d2 < ONE_FACE**2
    middle = d2 < ONE_MIDDLE**2
    ring = (d2 > ONE_RING_IN**2) & (d2 < ONE_RING_OUT**2)
    if not (face.any() and middle.any() and ring.any()):
        return 0.0, 0.0, 255.0, 0.0
    grey = float(pixels.median(chans[..., 0][face]))
    if grey >= ONE_DARK:
        return 0.0, 0.0, grey, 0.0
    red = chans[..., 1]
    body = float(pixels.median(red[face]))
    at = red[ring]
    k = int(0.9 * (len(at) - 1))
    return float(red[middle].mean()) - body, float(np.partition(at, k)[k]) - body, grey, body


def doubtful_one(image: np.ndarray, die: Die) -> bool:
    """Whether ``die``, read as a 1, looks like the red pips of more dots on a dark marbled body."""
    side = max(pixels.box_side(die.box), die.side)
    if side < MIN_SIDE:
        return False
    middle, ring, grey, body = red_layout(image, *die.center, side)
    if not (
        grey < ONE_DARK
        and body > ONE_BODY_RED
        and ring >= ONE_RING * max(middle, 0.0)
        and (middle >= ONE_RED_MIDDLE or ring >= ONE_RED_RING)
    ):
        return False
    f = read_face(image, *die.center, pixels.box_side(die.box))
    return f is None or f.one < f.separation + ONE_GRID


# A die the pip-first reader read as a 1 and the body-first reader as more,
# fused to the larger value, is made a 1 when its grid's separation as a 1 is
# at least ONE_CLEAR_OVER times that of its best other reading and at least
# ONE_CLEAR. On train, of the 70 sure dice where the readers disagreed about
# a 1, the two 1s read as 2 stood out by 3.4 and 5.5 times (separations 10
# and 15); the right readings by at most 2.7 (a 2), the wrong ones of other
# values by at most 1.9. (The other way round, none came near; on rendered
# frames the body-first reader's stray 1s beside the pip-first reader's right
# 3s and 5s would cost a grid reading each.)
ONE_CLEAR_OVER = 3.0
ONE_CLEAR = 8.0


def ones_read_as_more(
    image: np.ndarray, dice: list[Die], pip_dice: list[Die], body_dice: list[Die]
) -> list[Die]:
    """``dice`` (fused from ``pip_dice`` and ``body_dice``), the pip-first reader's clear 1s made 1s."""
    from vision import fusion

    out = list(dice)
    for i, j in fusion.pair(pip_dice, body_dice):
        p, b = pip_dice[i], body_dice[j]
        if p.value != 1 or b.value == 1:
            continue
        mid = [(u + w) / 2.0 for u, w in zip(p.box, b.box, strict=True)]
        k = next((k for k, d in enumerate(out) if np.allclose(d.box, mid)), None)
        if k is None or out[k].value == 1 or out[k].confidence < SURE:
            continue
        d = out[k]
        f = read_face(image, *d.center, pixels.box_side(d.box))
        if f is not None and f.one >= max(ONE_CLEAR, ONE_CLEAR_OVER * f.separation):
            out[k] = Die(1, list(d.box), RECOVERED, side=d.side)
    return out


# A sure 1 that one reader alone found is read on the grid, and takes the
# grid's value when that reading is clear (MIN_SEPARATION, MIN_MARGIN) and
# beats the grid's reading as a 1 by ONE_UNDER. On train that changed a 3
# (separation 5.8 against 4.6 as a 1) and a 2 (6.3 against 5.1) read as 1s,
# both right; of the 242 right sure 1s, none came nearer than -0.3 (and then
# with a separation of 1.7).
ONE_UNDER = 0.5


# A sure die read below verify.CHECK_BELOW whose found pips differ in number
# from its value (the readers disagreed, and the vote went against the pips
# it carries) is changed to another value when two witnesses that share
# nothing but the photo show that value: the colours at the nine sites of the
# grid through its found pips (``vision.verify``; the value fits cleanly, by
# more than verify.CLEAN) and the grid searched in the die's own contrast
# (``read_face``; a clear reading, MIN_SEPARATION and MIN_MARGIN, not a 1).
# Either alone has overruled right readings (see ``vision.verify``, which
# leaves two or three found pips to the vote). Together, over all 1473 sure
# train dice (62 of them checked), they changed one, a red 3 read as a 2, to
# the right value, and the same for any separation from 2 to 3, margin from
# 0.3 to 1, clean fit from 0.2 to 0.4, with or without the count and
# CHECK_BELOW limits, which only spare the cost (most dice are not checked).
def grids_agree(image: np.ndarray, dice: list[Die]) -> list[Die]:
    """``dice`` with the sure readings that both pip grids contradict changed to the value both show."""
    out = list(dice)
    for i, d in enumerate(dice):
        if not SURE <= d.confidence < verify.CHECK_BELOW or len(d.pips) == d.value:
            continue
        found = verify.site_evidence(image, d)
        if found is None or found[1] >= verify.FIT_ERROR:
            continue
        fit = verify.fits(found[0])
        value = verify.best_value(fit)
        if value == d.value or fit[value] <= verify.CLEAN:
            continue
        f = read_face(image, *d.center, pixels.box_side(d.box))
        if (
            f is not None
            and f.value == value
            and f.separation >= MIN_SEPARATION
            and f.margin >= MIN_MARGIN
            and f.one <= f.separation + ONE_OVER
        ):
            out[i] = Die(value, list(d.box), RECOVERED, d.pips, d.pip_radius, d.side)
    return out


def _table(image: np.ndarray) -> np.ndarray:
    """The table's colour on the grey/opponent axes: the median of a sparse sample of the frame."""
    step = max(1, int(math.sqrt(image.shape[0] * image.shape[1] / TABLE_SAMPLES)))
    sample = image[::step, ::step].reshape(-1, 3).astype(np.float32)
    return pixels.OPPONENT @ pixels.median(sample)


def _unlike_table(colour: np.ndarray, table: np.ndarray) -> bool:
    """Whether a body's BGR ``colour`` differs from the table's colour ``table`` (opponent axes)."""
    return float(np.linalg.norm(pixels.OPPONENT @ np.float32(colour) - table)) >= BODY_FROM_TABLE


def _passes(image: np.ndarray, dice: list[Die], which: list[int]) -> bool:
    """Whether the dice ``which`` of ``dice`` pass the checks of ``vision.quality.grade``."""
    now_sure = [i for i, d in enumerate(dice) if d.confidence >= SURE]
    side = float(pixels.median([quality.die_side(dice[i]) for i in now_sure]))
    cover = quality.covers(image, dice, side, which)
    return not any(quality.check(image, dice[i], quality.die_side(dice[i]), cover[i]).reason for i in which)


# A body handed over is read only when the middle of it (this half side, in
# its sides) differs from the table's colour by BODY_FROM_TABLE: of the 7
# bodies of the printed trays of ``tablepi bench dice`` at 640x480, 6
# differed by 1-34 and were not read (0.2 instead of 1.2 ms a frame).
BODY_MIDDLE = 0.3


def read_bodies(image: np.ndarray, dice: list[Die], bodies: list[Die]) -> list[Die]:
    """``dice`` and the dice ``read_face`` reads clearly on ``bodies``, the die bodies no reader could read.

    A body is read at its box's side and, unless that reading is clear, at
    its own side (a turned die's box is up to 1.4 times its side); the
    clearer reading is kept. It counts only where no die of ``dice`` lies,
    under the checks of ``recover``'s unsure readings: a clear reading, not
    a 1, a body unlike the table, and ``vision.quality``'s checks. On train
    one die was found so (a 3 whose outline the body-first reader found but
    whose pips it could not fit); no body away from a die read clearly (the
    clearest: separation 2.1, margin 0.6).
    """
    found: list[Die] = []
    table: np.ndarray | None = None
    for b in bodies:
        (cx, cy), side = b.center, pixels.box_side(b.box)
        if any(
            math.hypot(cx - o.center[0], cy - o.center[1]) < APART * max(side, pixels.box_side(o.box))
            for o in dice + found
        ):
            continue
        if table is None:
            table = _table(image)
        # (a body like the table is no die: the face is not read, which
        # spares the cost of the prints of a tray)
        middle, _, _ = pixels.crop(image, cx, cy, BODY_MIDDLE * max(b.side, 1.0))
        if not _unlike_table(pixels.median(middle.reshape(-1, 3).astype(np.float32)), table):
            continue
        f = read_face(image, cx, cy, side)
        if b.side and (f is None or f.separation < MIN_SEPARATION or f.margin < MIN_MARGIN):
            g = read_face(image, cx, cy, b.side)
            if g is not None and (f is None or g.separation > f.separation):
                f = g
        if f is None or f.separation < MIN_SEPARATION or f.margin < MIN_MARGIN:
            continue
        if f.one > f.separation + ONE_OVER or not _unlike_table(f.body, table):
            continue
        found.append(Die(f.value, list(b.box), RECOVERED, side=b.side))
    out = list(dice) + found
    return list(dice) + [out[i] for i in range(len(dice), len(out)) if _passes(image, out, [i])]


def recover(
    image: np.ndarray,
    dice: list[Die],
    pip_dice: list[Die] | None = None,
    body_dice: list[Die] | None = None,
    unread: list[Die] | None = None,
) -> list[Die]:
    """``dice`` with the unsure readings that ``read_face`` reads clearly made sure.

    Given the two readers' readings that ``dice`` were fused from, a
    pip-first 1 fused to more is made a 1 first where the grid shows it
    (``ones_read_as_more``). Then a sure reading that both pip grids
    contradict takes the value both show (``grids_agree``).

    A reading made sure must still pass ``vision.quality``'s checks (a die
    read here is no less likely to be cocked, hidden or blurred), and its
    body must not look like the table.

    Last, sure 1s: one that one reader alone found takes the grid's clear
    reading of another value (ONE_UNDER), and one that looks like the red
    pips of more dots on a dark marbled body is refused (``doubtful_one``).

    Given the die bodies the body-first reader found but could not read
    (``unread``, see ``vision.faces.FaceScan``), those the grid reads clearly
    are added (``read_bodies``).
    """
    image = pixels.as_bgr(image, "recover")  # (a grey or BGRA frame too)
    if pip_dice and body_dice:
        dice = ones_read_as_more(image, dice, pip_dice, body_dice)
    dice = grids_agree(image, dice)
    sure = [d for d in dice if d.confidence >= SURE]
    typical = float(pixels.median([pixels.box_side(d.box) for d in sure])) if sure else 0.0
    out = list(dice)
    table: np.ndarray | None = None
    made: list[int] = []
    for i, d in enumerate(dice):
        if d.confidence >= SURE:
            continue
        (cx, cy), side = d.center, pixels.box_side(d.box)
        if any(
            math.hypot(cx - o.center[0], cy - o.center[1]) < APART * max(side, pixels.box_side(o.box))
            for o in sure
        ):
            continue
        f = read_face(image, cx, cy, side)
        if typical > side * SMALL_BOX:
            # a box around the pips alone: read at the frame's die size too
            g = read_face(image, cx, cy, typical)
            if g is not None and (f is None or g.separation > f.separation):
                f = g
        if f is None or f.separation < MIN_SEPARATION:
            continue
        if f.value != d.value and f.margin < MIN_MARGIN:
            continue
        if f.one > f.separation + ONE_OVER:
            continue  # a 1: its single pip fits some grid of a larger value too
        if table is None:
            table = _table(image)
        if not _unlike_table(f.body, table):
            continue
        out[i] = Die(f.value, list(d.box), RECOVERED, side=d.side)
        made.append(i)
    for i in made:
        if not _passes(image, out, [i]):
            out[i] = dice[i]
    # (a die one reader alone found keeps that reading's box)
    lone = {tuple(r.box) for r in (pip_dice or []) + (body_dice or [])}
    for i, d in enumerate(out):
        if d.value != 1 or d.confidence < SURE:
            continue
        if tuple(d.box) in lone:
            f = read_face(image, *d.center, pixels.box_side(d.box))
            if (
                f is not None
                and f.separation >= max(MIN_SEPARATION, f.one + ONE_UNDER)
                and f.margin >= MIN_MARGIN
            ):
                out[i] = Die(f.value, list(d.box), RECOVERED, side=d.side)
                continue
        if doubtful_one(image, d):
            out[i] = replace(d, confidence=quality.REFUSED)
    if unread:
        out = read_bodies(image, out, unread)
    return out
