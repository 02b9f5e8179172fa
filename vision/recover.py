"""Looking again for dice that neither reader read.

``recover`` runs after ``vision.fusion.fuse``. A place where the readers saw a
die but could not read it (an unsure reading), and a die-sized patch of
foreground that no reading explains, are read once more by ``read_face``, a
reader made for one die: it knows where the die is and how large, so it needs
no pip detector, only a contrast. It samples the face on the 3x3 grid of pip
places, in the channel where this die's pips stand out from its own body
(lighter, darker or redder), over a small search of the grid's turn, centre
and size, and takes the layout whose pip places all differ from all its empty
places. Dark marbled dice with small red pips that run together, the hardest
dice for both readers, are read this way: their merged pips still light up the
right places of the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision import pixels

if TYPE_CHECKING:
    from vision.reader import Die

# 3x3 grid places, index = 3 * (row + 1) + (col + 1); row/col in -1..1.
_LAYOUTS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (1, (4,)),
    (2, (0, 8)),
    (2, (2, 6)),
    (3, (0, 4, 8)),
    (3, (2, 4, 6)),
    (4, (0, 2, 6, 8)),
    (5, (0, 2, 4, 6, 8)),
    (6, (0, 3, 6, 2, 5, 8)),
    (6, (0, 1, 2, 6, 7, 8)),
)
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
_ON = np.zeros((len(_LAYOUTS), 9 + len(_RING)), bool)
for _k, (_v, _cells) in enumerate(_LAYOUTS):
    _ON[_k, list(_cells)] = True

MIN_SIDE = 6.0  # px: smaller dice have no readable pips
WORK_SIDE = 40.0  # a die is read at this side (px): enough for its pips, cheap
TURNS = np.deg2rad(np.arange(0.0, 90.0, 6.0))
SHIFTS = tuple(np.arange(-0.2, 0.21, 0.05))  # grid centre offsets tried, in box sides
STEPS = tuple(np.arange(0.12, 0.22, 0.03))  # grid step, in box sides
NOISE = 4.0
ON_REACH = 0.04  # how far from a pip place its pip may lie, in die sides
OFF_REACH = 0.1  # how far around an empty place there must be no pip
_K_ON = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(ON_REACH * WORK_SIDE) + 1,) * 2)
_K_OFF = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(OFF_REACH * WORK_SIDE) + 1,) * 2)
BLUR = 0.05  # smoothing of the channels, in die sides: a sample averages over a pip


_ON_F = _ON.astype(np.float32)
_N_ON = _ON_F.sum(1)
_OFF_F = 1.0 - _ON_F
_N_OFF = _OFF_F.sum(1)


def _offsets() -> np.ndarray:
    """Sample places of every grid tried, (turn, shift, shift, step) x place x (x, y), in work pixels."""
    grid = np.array([(c, r) for r in (-1, 0, 1) for c in (-1, 0, 1)] + list(_RING), np.float32)
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
    separation: float  # weakest pip place minus strongest empty place
    margin: float  # separation over the best reading of another value
    contrast: float  # mean pip place minus mean empty place
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
        # A pip place need only hold a pip near it; an empty place must have
        # none anywhere near: else a grid whose places fall between the pips
        # of a larger face reads it as a 1.
        v_on = v_off = ch.ravel()[_INDEX]  # (H, places)
        # (einsum, not @: a BLAS call spins threads for a product this small)
        s1_on = np.einsum("hk,lk->hl", v_on, _ON_F)  # (H, L)
        s2_on = np.einsum("hk,lk->hl", v_on * v_on, _ON_F)
        s1_off = np.einsum("hk,lk->hl", v_off, _OFF_F)
        s2_off = np.einsum("hk,lk->hl", v_off * v_off, _OFF_F)
        m_on = s1_on / _N_ON
        m_off = s1_off / _N_OFF
        var = (s2_on - _N_ON * m_on**2 + s2_off - _N_OFF * m_off**2) / _ON.shape[1]
        sep = (m_on - m_off) / (np.sqrt(np.maximum(var, 0)) + NOISE)
        for li, (value, _) in enumerate(_LAYOUTS):
            hi = int(np.argmax(sep[:, li]))
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


SURE = 0.5  # readings below this are unsure (vision.fusion's, vision.quality's)
RECOVERED = 0.6  # confidence of a die read here: sure, but below the readers' agreeing dice
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
TABLE_SAMPLES = 4000
# A reading's box can hold only its pips (a 20 px box on a 32 px die on train):
# when the frame's dice are this much larger, the die is read at their size
# too, and the clearer reading kept (one more die made sure on train).
SMALL_BOX = 1.2  # pixels sampled for the table's colour


def _table(image: np.ndarray) -> np.ndarray:
    """The table's colour on the grey/opponent axes: the median of a sparse sample of the frame."""
    step = max(1, int(math.sqrt(image.shape[0] * image.shape[1] / TABLE_SAMPLES)))
    sample = image[::step, ::step].reshape(-1, 3).astype(np.float32)
    return pixels.OPPONENT @ pixels.median(sample)


def recover(image: np.ndarray, dice: list[Die]) -> list[Die]:
    """``dice`` with the unsure readings that ``read_face`` reads clearly made sure.

    A reading made sure must still pass ``vision.quality``'s checks (a die
    read here is no less likely to be cocked, hidden or blurred), and its
    body must not look like the table.
    """
    from vision import quality
    from vision.reader import Die

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
        if float(np.linalg.norm(pixels.OPPONENT @ np.float32(f.body) - table)) < BODY_FROM_TABLE:
            continue
        out[i] = Die(f.value, list(d.box), RECOVERED, side=d.side)
        made.append(i)
    if made:
        # judged as vision.quality.grade will judge them, among the frame's sure dice
        now_sure = [i for i, d in enumerate(out) if d.confidence >= SURE]
        side = float(pixels.median([quality.die_side(out[i]) for i in now_sure]))
        cover = quality.covers(image, out, side, made)
        for i in made:
            if quality.check(image, out[i], quality.die_side(out[i]), cover[i]).reason:
                out[i] = dice[i]
    return out
