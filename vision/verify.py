"""Check a die's reading against the pip grid of its top face.

A die's pips sit on a 3x3 grid of sites, and each value fills its own sites
(a 4 the corners, a 5 the corners and the middle, a 6 two opposite rows). A
reader that loses a pip or makes one up still finds the others where the grid
puts them, so the pips it found give the grid: its centre, its turn and its
spacing. The photo is then asked, at each of the nine sites, whether it looks
like those pips or like the face around them, in the colour direction that
tells the pips from the face (grey for white dice with black pips, red for
dark marbled dice with red pips). A reading whose sites contradict it while
another value's sites fit cleanly is changed to that value.

The pips may be another reading's: the pip-first reader's, when the vote in
``vision.fusion`` chose the body-first reader's value. Such a grid was often
that reading's own mistake (a 6's column of three taken for a 3's diagonal;
checks of every such die broke 10 right dice on byler-d6/train for 4 fixed),
so it only overrules the vote when it holds four to six pips (a square that
fixes the grid), fits their count cleanly and leaves the chosen value no fit
at all: on train that changed 4 dice, 3 of them to the right value.

The body-first reader's dice carry the pips of the layout it fitted to its
turned face crop (``vision.pipcount``), so its readings are checked the same
way. On byler-d6/train that changed 3 of them, all to the right value (die
accuracy 0.950 -> 0.952; both halves gained), and no right body-first
reading came near a change: none had another value fitting better than
-0.2, against 0.63-0.72 for the three fixed.

Where the two readers read a die differently, ``arbitrate`` asks both
readings' grids before the fused die is made: when both show one value, or
the body-first reading's own grid contradicts it outright while the
pip-first grid shows another value cleanly, that value overrules the vote.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import SURE, pipcount, pixels
from vision.die import Die

# Only sure dice are checked (an unsure one is asked for again anyway), and
# only below CHECK_BELOW: on train 8 of 1040 dice read at 0.9 or more were
# wrong and the check changed none of them, while skipping them cuts its cost
# by three quarters (most dice of a clear frame are read at 0.99 or more).
CHECK_BELOW = 0.9

# The nine sites in grid units (x, y), row by row, and the sites each layout
# of a value fills (2, 3 and 6 in both turns): the body-first reader's.
SITES = pipcount.GRID_UNIT.astype(np.float64)
_LAYOUT_SITES = pipcount.PATTERNS
_LAYOUT_VALUE = pipcount.PATTERN_VALUES

# The grid's turn is first taken from the pips' directions (see _fit_grid),
# then searched TURN_STEPS around it (radians), with SPACINGS in die sides.
# On right train readings the spacing (corner pips' distance / sqrt 2 / 2) was
# 0.16-0.25 of the die side (5th-95th percentile).
TURN_STEPS = np.radians(np.arange(-6.0, 7.0, 3.0))
SPACINGS = np.linspace(0.15, 0.28, 9)
# Four pips on a square fit the corners of the grid and, as well, the middles
# of the edges of a grid turned 45 degrees and 1.4 times wider; a pip on an
# edge middle costs this (in squared spacings) so that the corners win. Without
# it 102 of 216 right 4s on train were fitted as that diamond.
EDGE_COST = 0.12

# A site's evidence is where its colour (BGR, a disc's mean) lies between
# the face's (0) and the found pips' (1), along the line joining the two. A
# value fits cleanly when its weakest site is this much above its strongest
# empty site. On train, changing a reading whose pips agree with it in number
# to a value that fits by more than CLEAN fixed 3 dice and broke none (by more
# than 0.3 or 0.35: 3 fixed, 1 broken; halves 1 and 2 fixed). The grid must
# fit the found pips to within FIT_ERROR spacings (root mean square); on
# train no limit from 0.3 to 1 changed a reading, so it only guards against a
# grid the pips do not support.
CLEAN = 0.4
FIT_ERROR = 0.5
# A grid fitted at the narrowest spacing tried is pinned there: its pips lie
# closer together than a die's. On a dark die with red pips the pip-first
# reader took the four light gaps between a 5's pips for a 4's pips, and the
# check turned the right 5 into a 4 (spacing 0.15 of the die side). On
# byler-d6/train as photographed, mirrored and transposed the check made 20
# changes: the 4 wrong ones had such grids, the 16 right ones 0.166-0.215.
# Only ``check`` heeds it: refusing pinned grids in ``site_evidence`` for
# every caller lost one right die in each of those orientations (a change
# by ``arbitrate`` or ``vision.recover.grids_agree``).
PINNED = float(SPACINGS[0]) * 1.001
# A reader that found n pips lost or made up at most this many (the train
# fixes were 6 -> 4, 5 -> 6, 4 -> 6); on a rendered play mat, five found pips
# (the die's and the mat's) whose grid showed only its middle would otherwise
# have turned a right 5 into a 1. A grid through two or more found pips is
# never a 1.
MOST_PIPS_WRONG = 2
# Another reading's pips overrule the vote only in these numbers, and when
# the chosen value fits below OTHER_READING_FIT (see the module's notes).
OTHER_COUNTS = (4, 5, 6)
OTHER_READING_FIT = 0.0
# A site far darker than the face where the pips are lighter (or the other way
# round) means the "pips" were face between real pips of the opposite shade: a
# yellow 5 whose four gaps the pip-first reader took for a 4's pips gave
# evidence -1.3 at its real middle pip. Below OPPOSITE, nothing is changed.
OPPOSITE = -0.5
# Confidence of a changed reading: on train 13 of the 14 changed readings were
# right, a small sample, so it is kept below the agreeing readers' confidence.
CHANGED_CONFIDENCE = 0.7
# Where the two readers read a die differently, each reading's own pips give
# a grid (see ``arbitrate``). The vote's value gives way to another when the
# pip-first grid shows it and either the body-first grid shows it too (both
# fitting it by more than AGREE_CLEAN), or the body-first reading's grid fits
# its own value below CONTRADICTED (its "pips" were marbling) while the
# pip-first grid shows the other value cleanly (CLEAN). On train, of 165 sure
# dice the readers read differently (the vote right in 151), this changed 4,
# all to the right value (2 in each half of train), for any AGREE_CLEAN from
# -9 to 0.1 and any CONTRADICTED from -2 to -0.5.
AGREE_CLEAN = 0.0
CONTRADICTED = -1.0
# Each colour is the mean over a disc of this share of the pip radius (the
# centre and four points on its rim), which steadies it against noise.
DISC = 0.5
_DISC = np.array([(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)])
# The face's colour is the median over a 7x7 lattice over the grid (in
# spacings), less the points near a found pip.
_LATTICE = np.stack(np.meshgrid(np.linspace(-1.4, 1.4, 7), np.linspace(-1.4, 1.4, 7)), axis=-1).reshape(-1, 2)


def _fit_grid(pips: np.ndarray, spacings: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Centre, (9, 2) site positions and root-mean-square error (in spacings) of the grid through ``pips``.

    ``spacings`` are the grid spacings tried, in pixels. Each pip goes to the
    nearest site of each tried grid (its grid coordinates rounded).
    """
    centre = pips.mean(axis=0)
    q = pips - centre
    # Corner pips lie 45 degrees off the grid's axes, so four times their
    # direction is the same for all of them; |q|^2 weights keep a 6's nearer
    # middle pips (four times their direction opposite) from turning it.
    z = q[:, 0] + 1j * q[:, 1]
    turn0 = (float(np.angle((z**4 / np.maximum(np.abs(z) ** 2, 1e-9)).sum())) - math.pi) / 4.0
    turns = turn0 + TURN_STEPS
    to_grid = np.stack(
        [np.stack([np.cos(turns), np.sin(turns)], -1), np.stack([-np.sin(turns), np.cos(turns)], -1)], 1
    )
    along = (
        np.einsum("tij,nj->tni", to_grid, q)[None] / spacings[:, None, None, None]
    )  # (spacing, turn, pip, xy)
    site = np.clip(np.rint(along), -1.0, 1.0)
    edge = (site == 0.0).sum(-1) == 1
    cost = (((along - site) ** 2).sum(-1) + EDGE_COST * edge).sum(-1)  # (spacing, turn), in squared spacings
    gi, ti = np.unravel_index(int(np.argmin(cost)), cost.shape)
    g, turn = float(spacings[gi]), to_grid[ti]
    res = along[gi, ti] - site[gi, ti]
    shift = res.mean(axis=0)
    # the error leaves out EDGE_COST: a 6's middle pips fit as well as its corners
    err = math.sqrt(float(((res - shift) ** 2).sum(-1).mean()))
    # back to the image: grid coordinates times the spacing, turned back
    sites = (SITES @ turn) * g + centre + (shift @ turn) * g
    return centre + (shift @ turn) * g, sites, err


def _colours(image: np.ndarray, pts: np.ndarray, radius: float) -> np.ndarray:
    """BGR colour (float) of ``image`` averaged over a small disc at each point."""
    ring = _DISC * radius
    xy = (pts[:, None, :] + ring[None]).reshape(-1, 2).astype(np.float32)
    bgr = cv2.remap(image, xy[:, 0][None], xy[:, 1][None], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return bgr[0].astype(np.float64).reshape(len(pts), len(ring), 3).mean(axis=1)


def _side(die: Die) -> float:
    """The die's side the grid is measured in: its own, or its box's longer side."""
    x0, y0, x1, y1 = die.box
    return die.side or max(x1 - x0, y1 - y0)


def site_evidence(image: np.ndarray, die: Die) -> tuple[np.ndarray, float, float] | None:
    """Evidence of a pip at each of the nine grid sites of ``die``, the grid's error and its spacing.

    Evidence 0 is face-like, 1 pip-like. The grid comes from ``die.pips``;
    None when they are fewer than two.
    """
    if len(die.pips) < 2:
        return None
    pips = np.asarray(die.pips, dtype=np.float64)
    side = _side(die)
    centre, sites, err = _fit_grid(pips, SPACINGS * side)
    spacing = float(np.linalg.norm(sites[0] - sites[1]))
    radius = die.pip_radius or 0.09 * side
    lattice = _LATTICE * spacing + centre
    clear = np.sqrt(((lattice[:, None] - pips[None]) ** 2).sum(-1)).min(1) > 1.8 * radius
    if clear.sum() >= 5:
        lattice = lattice[clear]
    # a window around the die, as 8-bit BGR whatever the frame's type
    window, wx, wy = pixels.crop(
        image, float(centre[0]), float(centre[1]), 2.0 * spacing + 3.0 * radius + 2.0
    )
    if min(window.shape[:2]) < 4:
        return None
    points = np.concatenate([sites, pips, lattice]) - (wx, wy)
    colours = _colours(pixels.as_bgr(window), points, DISC * radius)
    at_sites, at_pips, at_face = colours[:9], colours[9 : 9 + len(pips)], colours[9 + len(pips) :]
    face = pixels.median(at_face, axis=0)
    toward = pixels.median(at_pips, axis=0) - face
    norm = float(toward @ toward)
    if norm < 1e-6:
        return None
    return (at_sites - face) @ toward / norm, err, spacing


def fits(evidence: np.ndarray) -> dict[int, float]:
    """How cleanly each value's layout fits ``evidence``.

    That is its weakest site less the strongest site it leaves empty.
    """
    weakest = np.minimum(np.where(_LAYOUT_SITES, evidence, np.inf).min(axis=1), 1.0)
    strongest_empty = np.maximum(np.where(_LAYOUT_SITES, -np.inf, evidence).max(axis=1), 0.0)
    clean = weakest - strongest_empty
    return {v: float(clean[_LAYOUT_VALUE == v].max()) for v in range(1, 7)}


def best_value(fit: dict[int, float]) -> int:
    """The value from 2 to 6 whose layout fits most cleanly, by ``fit`` (what ``fits`` gives)."""
    return max(range(2, 7), key=lambda v: fit[v])


def arbitrate(image: np.ndarray, pip: Die, body: Die, value: int, confidence: float) -> tuple[int, float]:
    """The value and confidence of a die the two readers read differently.

    ``pip`` and ``body`` are the pip-first and body-first readings, ``value``
    and ``confidence`` what the vote made of them; they stand unless the two
    readings' own pip grids say otherwise (see AGREE_CLEAN, CONTRADICTED).
    """
    if confidence < SURE or len(pip.pips) < 2 or len(body.pips) < 2:
        return value, confidence
    by_pip, by_body = site_evidence(image, pip), site_evidence(image, body)
    if by_pip is None or by_body is None or max(by_pip[1], by_body[1]) >= FIT_ERROR:
        return value, confidence
    fit_pip, fit_body = fits(by_pip[0]), fits(by_body[0])
    shown = best_value(fit_pip)
    if shown == value:
        return value, confidence
    both = shown == best_value(fit_body) and min(fit_pip[shown], fit_body[shown]) > AGREE_CLEAN
    if both or (fit_body[body.value] < CONTRADICTED and fit_pip[shown] > CLEAN):
        return shown, CHANGED_CONFIDENCE
    return value, confidence


def check(image: np.ndarray, dice: list[Die]) -> list[Die]:
    """``dice`` with readings their pip grid contradicts changed to the value it shows."""
    out = []
    for d in dice:
        n = len(d.pips)
        checked = SURE <= d.confidence < CHECK_BELOW
        if checked and (n == d.value >= 2 or (n != d.value and n in OTHER_COUNTS)):
            found = site_evidence(image, d)
            if found is not None and found[2] > PINNED * _side(d):
                evidence, err, _ = found
                fit = fits(evidence)
                value = best_value(fit)
                clean = fit[value]
                if n != d.value:
                    ok = value == n and clean > CLEAN and fit[d.value] < OTHER_READING_FIT
                else:
                    ok = value != d.value and clean > CLEAN and abs(value - n) <= MOST_PIPS_WRONG
                if ok and err < FIT_ERROR and float(evidence.min()) > OPPOSITE:
                    d = Die(value, d.box, CHANGED_CONFIDENCE, d.pips, d.pip_radius, d.side)
        out.append(d)
    return out
