"""Reading one die's face: how many pips its top face shows.

``read_face(image, cx, cy, side, angle)`` is the body-first reader's
(``vision.faces``) second half: given where a die's body is, it reads the
value on its face.

1. The face crop is warped to FACE x FACE px along the face's orientation
   (``orient``: a 4-fold edge-orientation histogram).
2. Pip maps: distance from the face's own colour (both polarities, then
   lighter-only, darker-only and redder-only, and darker with ring pips
   closed), top-hatted so only pip-sized spots remain.
3. Pip blobs are matched to the canonical layouts, translation- and scale-free;
   if no fit is sure, blobs that are bars of merged pips are cut into pips.
4. Verification: the dense pip map is sampled at the 9 grid positions of the
   fitted layout; missed pips lower the confidence, and a clearly better
   on/off pattern overrules the blob reading. Each reading carries where that
   layout put its pips (image positions), for the pip-grid check in
   ``vision.verify``; a value the templates chose over the blobs carries none.
5. Unsure readings (and sure 1s) of die-sized bodies are checked against
   templates: rendered pip patterns correlated with the pip maps.

The layouts' 3x3 grid (``GRID_UNIT``) and their on/off patterns over it
(``PATTERNS``, ``PATTERN_VALUES``) are shared with ``vision.verify`` and
``vision.recover``.
"""

from __future__ import annotations

import math
from operator import itemgetter

import cv2
import numpy as np

from vision import pixels

# ------------------------------------------------------------------ tunables
# the crop
ORIENT_WIN = 1.1  # edge-orientation window, in die sides
ORIENT_PX = 24  # the orientation patch is subsampled to ~this many px per die side
CROP_SCALE = 1.2  # the face crop is this much larger than the body: no pip falls off
FACE = 40  # canonical face crop size, px
# pips
# A pip differs at least this much from its face (~Lab, after the top-hat).
# Blurred red pips on dark marbled dice reach only ~10: on train 14 -> 9 gave
# fused die accuracy 0.937 -> 0.939, image accuracy 0.700 -> 0.715, precision
# 0.994 -> 0.995 (2-fold halves 0.940 -> 0.940 and 0.934 -> 0.938); every
# value from 7 to 12 gave 0.938-0.939, 4 gave precision 0.993. On empty
# printed-tray renders: 19 -> 20 sure phantoms in 32 frames.
PIP_MIN_CONTRAST = 9.0
PIP_TOPHAT = 13  # top-hat kernel (crop px): larger than a pip, smaller than a face
PIP_CHROMA_WEIGHT = 2.0  # red pips on dark-red/brown bodies differ mostly in hue
PIP_RELS = (0.45, 0.3, 0.6)  # thresholds tried (x the face's strongest spot); first is usual
PIP_POLARITY = True  # also try lighter-only and darker-only maps (marbled bodies)
PIP_RELS_POLAR = (0.45,)  # thresholds tried on those (speed)
# a last map of redness alone, tried with all of PIP_RELS: on train it raised
# the body-first reader's recall of sure dice from 0.705 to 0.765 (fused die
# accuracy 0.866 -> 0.886; the lighter/darker maps alone left those dice unsure)
PIP_RED = True
# and a very last map, darker than the face with each pip's lighter centre
# closed (PIP_RING_CLOSE, crop px): the black pips of gold and brass dice are
# rings round a glint, which the maps above cut into C-shapes that merge into
# bars. Its readings count only when sure (PIP_RING_SURE) and the templates
# never see it (with it they took a pip on the side of a die for a sure 1).
# It is also thresholded higher (PIP_RING_RELS): closed rings a pixel apart
# merge at the usual threshold. On train (as photographed / mirrored /
# transposed): die accuracy 0.972 -> 0.974 / 0.970 -> 0.972 / 0.968 ->
# 0.970, image accuracy 0.84 -> 0.85 / 0.83 -> 0.835 / 0.805 -> 0.815,
# precision unchanged; two gold dice (a 5 and a 6) read right in every
# orientation, a 3 and another 6 in one. Closing with 3 or 4 px lost dice,
# with 7 px gained fewer; the thresholds (0.45,) and (0.45, 0.55, 0.65) a
# photo fewer. Accepting readings from 0.6 gained a photo as photographed and
# lost one mirrored, with a phantom; from 0.65 (with the check below) it
# gained a photo in each orientation, but read a thick printed ring as a 4 on
# one of the held-out printed boards. Letting the templates see the map read
# one more gold 6 but made a phantom in every orientation.
PIP_RINGS = True
PIP_RING_CLOSE = 5
PIP_RING_SURE = 0.7
PIP_RING_RELS = (0.45, 0.6)
# Closing also bridges the gap between two dark strokes (the letters and rings
# of a printed board) into blobs that fit a layout. A pip of a ring-map reading
# must be hemmed in: every ray of PIP_RING_REACH px from it meets darkness at
# least (1 - PIP_RING_LOOSE) of the closed map there. The right gold readings'
# pips were at most 0.6 loose, the bridged ones of printed boards 1.0; on the
# held-out printed boards (30 frames) the ring map then adds no phantom (2
# without this check), and train reads the same.
PIP_RING_REACH = 3
PIP_RING_LOOSE = 0.8
# A reading that stays unsure is checked against templates: rendered pip
# patterns of every value (both layouts, grid steps, small rotations and
# shifts) correlated with the face's pip maps. Blob fit and templates fail in
# different ways (templates see pips merged into bars, blobs see pips the
# marbling partly hides). On train, over the faces the blob fit left unsure:
# where the two agreed the value was right in 68 of 77 faces, so an agreeing
# reading counts as sure at TEMPLATE_AGREE; where they disagreed and the
# templates led by TEMPLATE_LEAD, the templates were right in 30 of 52 and
# the blob fit in 15, so the template value is taken at TEMPLATE_RIGHT.
# Only bodies of a die's size are checked (TEMPLATE_SIZE, in the frame's die
# side): pieces of tray corners (0.55-0.7) and gaps between dice (1.3-1.5)
# gave templates patterns to agree with. Fused die accuracy 0.910 -> 0.928,
# image accuracy 0.580 -> 0.630, precision 0.995 -> 0.993; 2-fold halves
# 0.918 -> 0.933 and 0.903 -> 0.924. Leads from 0.03 to 0.1 gave 0.924-0.929.
TEMPLATE_AGREE = 0.8
# Even a sure "1" is checked: a lone blob is often pips merged into one
# (a 3's diagonal, a 6's columns) or the one pip the marbling left. On train,
# where the templates contradicted a sure 1 by TEMPLATE_LEAD they were right
# in 9 of 12 faces, the 1 in 1 (sure 2s: 4 of 20 overruled rightly; left
# alone). Fused die accuracy 0.928 -> 0.932, image accuracy 0.630 -> 0.650;
# 2-fold halves 0.933 -> 0.934 and 0.924 -> 0.930.
TEMPLATE_CHECK_UP_TO = 1  # sure readings of at most this many pips are checked
TEMPLATE_OVERRULE = 0.75
TEMPLATE_LEAD = 0.05  # correlation lead over the next value to overrule the blob fit
TEMPLATE_RIGHT = 0.55
# ... but only on a body the colour refinement found: on empty printed-tray
# renders the overrule made letters into sure dice (16 sure phantoms on 16
# frames, 7 with this condition; 2 before templates). On train it cost 0.001
# die accuracy (0.932 -> 0.931) and raised image accuracy 0.650 -> 0.660 and
# precision 0.993 -> 0.994.
TEMPLATE_SIZE = (0.75, 1.2)
TEMPLATE_REACH = 0.9  # the correlation window, in face half-widths (pips reach ~0.65)
TEMPLATE_STEPS = (0.32, 0.38, 0.44, 0.5)  # grid half-steps, face half-widths (GRID_RANGE's core)
TEMPLATE_PIP = 0.3  # pip blur radius (sigma), in grid half-steps
TEMPLATE_ONE_PIP = 0.44  # the lone pip of a 1 is larger
TEMPLATE_ROTS = (-10.0, 0.0, 10.0)  # residual rotation (deg) after the orientation estimate
# face-crop px: the body centre is only approximate (with shifts up to 2 px
# the templates read 1000 of 1320 train faces right, up to 4.5 px 1188)
TEMPLATE_SHIFTS = (-4.5, -3.0, -1.5, 0.0, 1.5, 3.0, 4.5)
# a face whose reading stays unsure is read once more with bars of merged pips
# cut into pips (6s' columns and 3s' diagonals on 22-30 px dice). On train:
# fused die accuracy 0.886 -> 0.894, image accuracy 0.515 -> 0.540; the
# elongation limits moved it by at most 0.002 between 1.6-2.0 and 2.3-2.9.
SPLIT = True
SPLIT_AREA = 0.12  # a bar of up to three pips (x the face area; one pip ~0.03)
SPLIT_ELONG = (1.8, 2.6)  # long/short axis ratio from which a blob is 2, then 3 pips
SPLIT_BELOW = 0.5  # only readings less sure than this are tried again (cutting every
#                    face's blobs gave the same accuracy at twice the time)
PIP_AREA = (0.004, 0.09)  # pip area as a fraction of the face area
PIP_SIZE_RATIO = 0.4  # blobs under this fraction of the big pips are specks/glints
PIP_REACH = 0.85  # pip centres lie inside the face (face half-widths from the centre)
PIP_COUNT_BONUS = 0.05  # per pip: among good fits prefer the one explaining more pips
# layout fit and verification
GRID_RANGE = (0.22, 0.8)  # pip grid half-step, in face half-widths (train: 0.3-0.5)
FIT_ROT_MAX = 15.0  # residual rotations tried (deg): orientation estimate error
FIT_ROT_STEP = 7.5
FIT_ERR_SCALE = 0.3  # worst pip-to-layout distance (face half-widths) giving confidence 0
ONE_FREE = 0.2  # a lone pip may sit this far off the body centre at no cost ...
ONE_SPAN = 0.4  # ... and loses all confidence this much further (a 2 missing a pip: ~0.7)
ONE_G = 0.42  # typical grid half-step, to check the empty positions around a lone pip
MAX_DROP = 1  # blobs that may be left out of a layout (glint, neighbour's pip)
DROP_PENALTY = 0.15  # confidence cost per blob left out
VERIFY_FREE = 0.2  # empty/filled grid-contrast ratio that costs no confidence ...
VERIFY_SPAN = 0.6  # ... and the further ratio that takes it to 0 (0.5 at ratio 0.5)
REREAD_GAP = 0.25  # on/off gap of another grid pattern needed to overrule the blobs
UNSURE_FLOOR = 0.05  # a die whose layout fits but fails verification: reported, unsure
EARLY_EXIT = 0.7  # a verified confidence this high ends the search (speed)
MIN_CONFIDENCE = 0.5  # below this a reading is unsure; unsure ones need a found body

# canonical pip layouts in grid units; 2, 3 and 6 in both orientations
_LAYOUTS = {
    1: [[(0, 0)]],
    2: [[(-1, -1), (1, 1)], [(1, -1), (-1, 1)]],
    3: [[(-1, -1), (0, 0), (1, 1)], [(1, -1), (0, 0), (-1, 1)]],
    4: [[(-1, -1), (1, -1), (-1, 1), (1, 1)]],
    5: [[(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)]],
    6: [
        [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
        [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)],
    ],
}
_LAYOUTS = {n: [np.array(v, np.float32) for v in vs] for n, vs in _LAYOUTS.items()}
_LAYOUT_RMS = {n: [float(np.sqrt((T**2).sum(1).mean())) or 1.0 for T in vs] for n, vs in _LAYOUTS.items()}
_KPIP = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PIP_TOPHAT, PIP_TOPHAT))
_KRING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PIP_RING_CLOSE, PIP_RING_CLOSE))


def _ray(dx: int, dy: int, reach: int) -> np.ndarray:
    """A kernel whose dilation takes the maximum along a ray of ``reach`` px from each pixel."""
    k = np.zeros((2 * reach + 1, 2 * reach + 1), np.uint8)
    for t in range(reach + 1):
        k[reach + dy * t, reach + dx * t] = 1
    return k


_RAYS = [_ray(dx, dy, PIP_RING_REACH) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
_gx, _gy = np.meshgrid([-1, 0, 1], [-1, 0, 1])
GRID_UNIT = np.stack([_gx.ravel(), _gy.ravel()], 1).astype(np.float32)  # 3x3 grid, (9, 2)
_NO_PIPS = np.zeros((0, 2))
_ONMASK = {}  # per layout variant: which of the 9 grid positions hold a pip
for _n, _vs in _LAYOUTS.items():
    _ONMASK[_n] = []
    for _T in _vs:
        _m = np.zeros(9, bool)
        for _x, _y in _T:
            _m[int(_y + 1) * 3 + int(_x + 1)] = True
        _ONMASK[_n].append(_m)
PATTERNS = np.array([m for n in _ONMASK for m in _ONMASK[n]])
PATTERN_VALUES = np.array([n for n in _ONMASK for _ in _ONMASK[n]])
# per pattern, the grid positions it fills and those it leaves empty (rows
# padded by repeating a position: a min or max over them is unchanged)
_PATTERN_ON = np.array([np.resize(np.flatnonzero(m), 6) for m in PATTERNS])
_PATTERN_OFF = np.array([np.resize(np.flatnonzero(~m), 8) for m in PATTERNS])
# the same rows as getters of a list (``_verify`` reads its samples as one)
_PATTERN_GET = [
    (itemgetter(*on), itemgetter(*off))
    for on, off in zip(_PATTERN_ON.tolist(), _PATTERN_OFF.tolist(), strict=True)
]
_ROTS = np.array(
    [
        [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        for a in np.radians(np.arange(-FIT_ROT_MAX, FIT_ROT_MAX + 0.1, FIT_ROT_STEP))
    ],
    np.float32,
)
# the 3x3 grid turned by each residual rotation
_GRIDS = [GRID_UNIT @ R.T for R in _ROTS]
# row k: the indices of n points without point k
_LEAVE_ONE_OUT = {n: np.array([[j for j in range(n) if j != k] for k in range(n)]) for n in range(2, 8)}
# all variants of each layout at all residual rotations, stacked: (V*R, n, 2)
_TEMPL = {
    n: np.concatenate([np.einsum("rij,kj->rki", _ROTS, T) for T in vs]).astype(np.float32)
    for n, vs in _LAYOUTS.items()
}


def orient(gray: np.ndarray, cx: float, cy: float, side: float) -> float:
    """Edge orientation modulo 90 deg around (cx, cy): the die's square edges and pip
    grid dominate a 4-fold angle histogram; blob outlines at work scale are too coarse."""
    r = int(side * ORIENT_WIN / 2) + 2
    x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
    p = gray[y0 : int(cy) + r + 1, x0 : int(cx) + r + 1]
    if p.shape[0] < 5 or p.shape[1] < 5:
        return 0.0
    p = cv2.cvtColor(np.ascontiguousarray(p), cv2.COLOR_BGR2GRAY)
    step = max(1, int(side / ORIENT_PX))
    if step > 1:
        p = p[::step, ::step]
    gx = cv2.Sobel(p, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(p, cv2.CV_32F, 0, 1, ksize=3)
    z = (gx + 1j * gy).astype(np.complex64)
    m2 = (gx * gx + gy * gy) + 1e-6
    z4 = (z * z) ** 2 / m2
    hh, ww = p.shape
    ccx, ccy = (cx - x0) / step, (cy - y0) / step
    w = ((np.arange(ww) - ccx) ** 2)[None, :] + ((np.arange(hh) - ccy) ** 2)[:, None] <= (r / step) ** 2
    s = complex(z4[w].sum())
    return math.degrees(math.atan2(s.imag, s.real) / 4)


def read_face(
    img: np.ndarray,
    cx: float,
    cy: float,
    side: float,
    ang: float,
    template: bool = False,
    overrule: bool = True,
):
    """Warp the face and classify; returns (value, confidence, ratio, pips) or
    None, the pips as (x, y) image positions."""
    half = side * CROP_SCALE / 2
    a = math.radians(ang)
    ux, uy = math.cos(a) * half, math.sin(a) * half
    vx, vy = -math.sin(a) * half, math.cos(a) * half
    src = np.float32(
        [[cx - ux - vx, cy - uy - vy], [cx + ux - vx, cy + uy - vy], [cx - ux + vx, cy - uy + vy]]
    )
    dst = np.float32([[0, 0], [FACE, 0], [0, FACE]])
    M = cv2.getAffineTransform(src, dst)
    face = cv2.warpAffine(
        img,
        M,
        (FACE, FACE),
        flags=cv2.INTER_AREA if side > 2 * FACE else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    res = _classify(face, template, overrule)
    if res is None:
        return None
    # face half-widths -> crop px -> image: the crop's x and y axes run along
    # the warp's source edges from its corner src[0]
    crop = res[3] * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2
    at = src[0] + crop[:, :1] * ((src[1] - src[0]) / FACE) + crop[:, 1:] * ((src[2] - src[0]) / FACE)
    return res[0], res[1], res[2], [(float(x), float(y)) for x, y in at]


def _pipmaps(face: np.ndarray):
    """Pip-contrast maps of a face crop: distance of each pixel from the face
    colour (median of the central part, where the die face surely is), for
    both polarities together and, if PIP_POLARITY, for lighter-only and
    darker-only pips. Each map comes with its strongest response near the
    face centre, the thresholds it is read at (shares of that response) and,
    for the ring map only, where its pips are loose (see ``_loose``; None for
    the other maps)."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)
    q = FACE // 4
    ref = pixels.median(lab[q:-q, q:-q].reshape(-1, 3).astype(np.float32))
    # (lightness and the two colour axes as planes of their own: the arithmetic
    # below costs less on contiguous planes, ~10% of the maps' time)
    d = cv2.split(cv2.subtract(lab, (float(ref[0]), float(ref[1]), float(ref[2]), 0.0), dtype=cv2.CV_32F))
    # chroma counts extra: red pips on a dark-red/brown body differ mostly in hue
    c2 = PIP_CHROMA_WEIGHT**2 * (d[1] ** 2 + d[2] ** 2)
    l2 = d[0] ** 2
    e = int(FACE * 0.2)  # where pips are: off the die's edges

    def prep(dm, rels):
        dm = cv2.GaussianBlur(dm, (3, 3), 0)
        # white top-hat keeps only small contrasting spots (pips); large areas
        # of other colour (table in the crop corners, side faces) flatten away
        dm = cv2.morphologyEx(dm, cv2.MORPH_TOPHAT, _KPIP)
        return dm, float(dm[e:-e, e:-e].max()), rels, None

    # a generator: the polarity maps are only built if the first one fails
    yield prep(np.sqrt(l2 + c2), PIP_RELS)
    if PIP_POLARITY:
        lp = np.maximum(d[0], 0)
        yield prep(np.sqrt(lp * lp + c2), PIP_RELS_POLAR)
        ln = np.maximum(-d[0], 0)
        yield prep(np.sqrt(ln * ln + c2), PIP_RELS_POLAR)
    if PIP_RED:
        # redder than the face only: red pips on dark marbled bodies, where
        # white or blue swirls outshine the pips in every map above
        yield prep(PIP_CHROMA_WEIGHT * np.maximum(d[1], 0), PIP_RELS)
    if PIP_RINGS:
        dark = np.maximum(-d[0], 0)
        closed = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, _KRING)
        yield *prep(closed, PIP_RING_RELS)[:3], _loose(dark, closed)


def _loose(dark: np.ndarray, closed: np.ndarray) -> np.ndarray:
    """How much of the closed darkness map at each pixel no darkness hems in:
    0 where every one of 8 rays of PIP_RING_REACH px meets as dark a pixel
    (a ring's centre, or within a pip), 1 where some ray meets none (a
    gap between two dark strokes that the closing bridged)."""
    hemmed = cv2.dilate(dark, _RAYS[0])
    for ray in _RAYS[1:]:
        hemmed = np.minimum(hemmed, cv2.dilate(dark, ray))
    return (closed - np.minimum(hemmed, closed)) / np.maximum(closed, 1e-3)


def _loose_pips(loose: np.ndarray, pips: np.ndarray) -> bool:
    """Whether a ring-map reading has a pip (face half-widths) that is loose
    beyond PIP_RING_LOOSE, or none at all."""
    if len(pips) == 0:
        return True
    at = np.asarray(pips) * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2
    px = np.clip(np.rint(at), 0, FACE - 1).astype(int)
    return float(loose[px[:, 1], px[:, 0]].max()) > PIP_RING_LOOSE


def _fit(P: np.ndarray):
    """Best canonical layout for pip centres P (face half-width units).
    Returns (value, confidence, geometry) with geometry = (centre, grid
    half-step, the 3x3 grid turned by the fitted rotation, on-mask over it) or None."""
    if len(P) == 1:
        r = math.hypot(float(P[0, 0]), float(P[0, 1]))
        # the body centre is only approximate (shadows), so a lone pip may sit
        # a little off centre; a 2 with one pip lost sits ~0.7 out
        return 1, 1.0 - max(0.0, r - ONE_FREE) / ONE_SPAN, (P[0].copy(), ONE_G, GRID_UNIT, _ONMASK[1][0])
    return _fit_many(P[None])[0]


def _fit_many(Ps: np.ndarray) -> list[tuple[int, float, tuple | None]]:
    """``_fit`` of each of T point sets of one size n >= 2 (Ps: (T, n, 2) float32),
    in one pass: the same figures as fitting them one at a time (the drop
    trials of ``_classify_bw`` fit up to 7 sets; one pass costs about one fit)."""
    T, n = Ps.shape[:2]
    # every layout is point-symmetric: the pip centroid is the face centre, which
    # removes the body-centre error (shadows, side faces) from the fit
    c0 = (np.add.reduce(Ps, 1) / np.intp(n)).astype(np.float32)  # Ps.mean(1), without its overhead
    Q = Ps - c0[:, None, :]
    rms = np.sqrt(np.add.reduce((Q * Q).reshape(T, 2 * n), 1).astype(np.float64) / n)
    g = rms / _LAYOUT_RMS[n][0]  # grid half-step, rotation-free (all variants share it)
    # every variant at residual rotations (the edge-orientation estimate can be
    # off, most of all on rounded dice) in one go; symmetric Hausdorff distance
    TT = _TEMPL[n][None] * g.astype(np.float32)[:, None, None, None]  # (T, VR, n, 2)
    # squared distances (T, VR, n, n) as dx * dx + dy * dy: the same floats as
    # summing the squares over a last axis of two, at a third of the cost
    dx = Q[:, None, :, None, 0] - TT[:, :, None, :, 0]
    dy = Q[:, None, :, None, 1] - TT[:, :, None, :, 1]
    d2 = dx * dx + dy * dy
    # symmetric Hausdorff distance (ufuncs' own reduce: the methods' wrappers cost more here)
    near_t = np.maximum.reduce(np.minimum.reduce(d2, 3), 2)  # worst pip's nearest layout point
    near_p = np.maximum.reduce(np.minimum.reduce(d2, 2), 2)  # worst layout point's nearest pip
    hr = np.maximum(near_t, near_p)
    ks = hr.argmin(1).tolist()
    gs = g.tolist()
    nr = len(_ROTS)
    out = []
    for t in range(T):
        gt = gs[t]
        if not (GRID_RANGE[0] <= gt <= GRID_RANGE[1]):
            out.append((n, -1.0, None))
            continue
        k = ks[t]
        geo = (c0[t], gt, _GRIDS[k % nr], _ONMASK[n][k // nr])
        out.append((n, 1.0 - math.sqrt(float(hr[t, k])) / FIT_ERR_SCALE, geo))
    return out


def _classify(face: np.ndarray, template: bool = False, overrule: bool = True):
    maps = _pipmaps(face)
    best = None
    # several pip maps (either polarity, or both) and thresholds: a glint, a
    # strong neighbour pip or marbling of the other polarity would otherwise
    # hide dim pips; keep the reading that fits and verifies best
    seen = []  # the maps built so far
    stop = False
    for dm, hi, rels, loose in maps:
        if stop:
            break
        if loose is None:  # (the templates never see the ring map)
            seen.append(dm)
        dmax = None
        masks = set()  # the thresholded maps read so far
        for rel in rels:
            thr = max(PIP_MIN_CONTRAST, rel * hi)
            bw = cv2.compare(dm, thr, cv2.CMP_GT)
            if bw.tobytes() in masks:
                # the same blobs read the same (thresholds under PIP_MIN_CONTRAST
                # on a faint map: ~18% of the thresholds tried)
                continue
            masks.add(bw.tobytes())
            components = cv2.connectedComponentsWithStats(bw)
            if components[0] <= 1:
                continue  # no blob at all
            table = _blob_table(components)
            r = _classify_bw(bw, table=table)
            if SPLIT and (r is None or r[1] < SPLIT_BELOW):
                rs = _classify_bw(bw, split=True, table=table)
                if rs is not None and (r is None or rs[1] > r[1]):
                    r = rs
            if r is None:
                continue
            if best is not None and best[0][0] and r[1] < MIN_CONFIDENCE:
                continue  # cannot beat a verified good reading (saves the check)
            if dmax is None:
                dmax = cv2.dilate(dm, pixels.K3)  # 3x3 max: a pip centre need not hit a grid point
            out = _finish(dmax, r)
            if loose is not None and (out[1] < PIP_RING_SURE or _loose_pips(loose, out[3])):
                continue
            key = (out[1] >= MIN_CONFIDENCE, out[1] + PIP_COUNT_BONUS * out[0])
            if best is None or key > best[0]:
                best = (key, out)
            if out[1] >= EARLY_EXIT:
                if template and best[1][0] <= TEMPLATE_CHECK_UP_TO:
                    stop = True  # checked below, on the maps built so far
                    break
                return best[1]  # clean, verified fit: skip the rest (speed)
    if template and best is not None and best[1][1] >= MIN_CONFIDENCE and best[1][0] <= TEMPLATE_CHECK_UP_TO:
        v, conf, ratio, _ = best[1]
        tv, lead = _template_value(seen)
        if tv != v and lead >= TEMPLATE_LEAD:
            return tv, TEMPLATE_OVERRULE, ratio, _NO_PIPS
        return best[1]
    if template and best is not None and best[1][1] < MIN_CONFIDENCE:
        # all maps were built (no early exit); see TEMPLATE_AGREE
        v, conf, ratio, pips = best[1]
        tv, lead = _template_value(seen)
        if tv == v:
            return v, max(conf, TEMPLATE_AGREE), ratio, pips
        if overrule and lead >= TEMPLATE_LEAD:  # overrule: a body was found (TEMPLATE_RIGHT)
            return tv, TEMPLATE_RIGHT, ratio, _NO_PIPS
    return None if best is None else best[1]


def _sites(geo, on: np.ndarray) -> np.ndarray:
    """Face positions (face half-widths) of the grid sites ``on`` of a fitted layout."""
    c0, g, grid, _ = geo
    return (c0[None, :] + grid[on] * g).astype(np.float64)


def _finish(dm, r):
    """Verify a blob reading against the dense pip map; returns (value, conf,
    ratio, pips), the pips being where the fitted grid puts the value's pips
    (face half-widths from the crop centre; none without a fitted grid)."""
    if r[2] is None:
        return r[0], r[1] * 0.5, 1.0, _NO_PIPS
    ratio, pv, gap, pi = _verify(dm, r[2])
    # confidence: the layout fit, capped by how empty the layout's empty grid
    # positions really are (ratio ~0 clean face; ~1 pips were missed)
    vconf = 1.0 - max(0.0, ratio - VERIFY_FREE) / VERIFY_SPAN
    if pv != r[0] and gap >= REREAD_GAP:
        # the dense grid samples clearly show another layout (usually pips the
        # blob threshold lost); its gap is the confidence
        return pv, min(0.9, gap * 2), ratio, _sites(r[2], PATTERNS[pi])
    pips = _sites(r[2], r[2][3])
    if r[1] <= 0:
        return r[0], r[1], ratio, pips
    # a die whose layout fits but whose grid check fails is still reported, as
    # an unsure reading (it is a die; the value is ~50% right)
    return r[0], max(UNSURE_FLOOR, min(r[1], vconf)), ratio, pips


def _verify(dm: np.ndarray, geo) -> tuple[float, int, float, int]:
    """Strongest pip-map response at the grid positions the layout leaves empty,
    over the weakest at the positions it fills. Near 0 for a clean face; near
    1 when pips were missed (a 6 read as a 2 shows 4 'empty' pips). Also the
    value, gap and index (in PATTERNS) of the pattern that best separates
    the grid's samples."""
    c0, g, grid, on = geo
    pts = c0[None, :] + grid * g
    px = (pts * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2).tolist()
    # the 9 samples (0 off the crop); dm is the 3x3-max (dilated) pip map
    vv, von, voff = [], [], []
    for (x, y), o in zip(px, on.tolist(), strict=True):
        if 1 <= x <= FACE - 2 and 1 <= y <= FACE - 2:
            v = dm.item(round(y), round(x))
            (von if o else voff).append(v)
        else:
            v = 0.0
        vv.append(v)
    # re-read: the canonical pattern that best separates the 9 samples. (Each
    # difference of two float32 samples, taken in float64 and rounded to
    # float32, is the float32 difference; on lists it costs half.)
    pg = np.array([min(fill(vv)) - max(empty(vv)) for fill, empty in _PATTERN_GET], np.float32)
    pg /= max(max(vv), 1e-3)
    pi = int(pg.argmax())
    pv, gap = int(PATTERN_VALUES[pi]), float(pg[pi])
    if len(von) == 0:
        return 1.0, pv, gap, pi
    if len(voff) == 0:
        return 0.0, pv, gap, pi
    return float(np.float32(max(voff)) / max(min(von), 1e-3)), pv, gap, pi


def _blob_table(components) -> tuple:
    """The blobs of a thresholded pip map as both readings of it (plain and
    split) look at them: their stats, centres (face half-widths), which ones
    pass as pips (``ok``) and what the split reading needs besides (which lie
    inside the face, their long and short box sides)."""
    n, lab_, stats, cents = components
    D2 = (FACE / CROP_SCALE) ** 2  # die face area in the crop
    st = stats[1:].astype(np.float32)
    x, y, w, h, ar = st.T
    c = (cents[1:] - (FACE - 1) / 2) / (FACE / CROP_SCALE / 2)
    inner = (
        (ar >= PIP_AREA[0] * D2)
        # not touching the crop border: background or side face leaking in
        & (x > 0)
        & (y > 0)
        & (x + w < FACE)
        & (y + h < FACE)
        & (np.maximum.reduce(np.abs(c), 1) <= PIP_REACH)
    )
    long_side, short_side = np.maximum(w, h), np.minimum(w, h)
    ok = (
        inner
        & (ar <= PIP_AREA[1] * D2)
        # no slivers along the die edge, no L-shaped corner pieces
        & (long_side <= 2.2 * short_side)
        & (ar >= 0.4 * w * h)
    )
    return lab_, st, ar, c, ok, (inner, long_side, short_side)


def _classify_bw(bw: np.ndarray, split: bool = False, components=None, table=None):
    """The blob reading of a thresholded pip map (``table``: its ``_blob_table``,
    shared by the plain and the split reading)."""
    if table is None:
        components = components or cv2.connectedComponentsWithStats(bw)
        if components[0] <= 1:
            return None
        table = _blob_table(components)
    lab_, st, ar, c, ok, shape = table
    if not split:
        # (on lists: a face has a dozen blobs, too few for numpy's overhead)
        okix = [i for i, o in enumerate(ok.tolist()) if o]
        if len(okix) == 0:
            return None
        # pips of one face share a size; drop specks much smaller than the others
        every = ar.tolist()
        areas = [every[i] for i in okix]
        ranked = sorted(areas)
        # reference: the biggest blob for up to 3 (a lone 1-pip next to a small
        # glint must not pass as a 2), else the 3rd biggest (robust to one big glint)
        amax = ranked[-1] if len(ranked) <= 3 else ranked[-3]
        keep = [i for i, a in zip(okix, areas, strict=True) if a >= PIP_SIZE_RATIO * amax]
        if len(keep) > 6 + MAX_DROP:
            return None
        return _fit_pips(c[keep].astype(np.float32))
    # pips merged into a bar (a 6's columns, a 3's diagonal on a small die):
    # a blob much longer than wide, up to three pips' area, is cut into
    # pips spaced along its long axis
    inner, long_side, short_side = shape
    w, h = st[:, 2], st[:, 3]
    loose = (
        inner
        & (ar <= SPLIT_AREA * (FACE / CROP_SCALE) ** 2)
        # a square, full box holds a round blob (a 45-degree bar of
        # elongation 1.8 fills only 0.67 of its box): no moments needed
        & ((long_side > 1.25 * short_side) | (ar < 0.7 * w * h))
    )
    unit = FACE / CROP_SCALE / 2
    pieces = []
    for i in np.nonzero(loose)[0]:
        xi, yi, wi, hi = (int(v) for v in st[i, :4])
        mm = cv2.moments((lab_[yi : yi + hi, xi : xi + wi] == i + 1).astype(np.uint8), True)
        m0 = mm["m00"] or 1.0
        a, b, cc = mm["mu20"] / m0, mm["mu02"] / m0, mm["mu11"] / m0
        tr, det = a + b, a * b - cc * cc
        disc = math.sqrt(max(0.0, tr * tr / 4 - det))
        l1, l2 = tr / 2 + disc, max(tr / 2 - disc, 1e-3)
        elong = math.sqrt(l1 / l2)
        if elong < SPLIT_ELONG[0]:
            continue
        k = 2 if elong < SPLIT_ELONG[1] else 3
        th = 0.5 * math.atan2(2 * cc, a - b)
        half = math.sqrt(3.0 * l1)  # half length of a uniform bar with this variance
        step = 2 * half / k
        for j in range(k):
            t = -half + step * (j + 0.5)
            px = (xi + mm["m10"] / m0 + t * math.cos(th) - (FACE - 1) / 2) / unit
            py = (yi + mm["m01"] / m0 + t * math.sin(th) - (FACE - 1) / 2) / unit
            pieces.append((i, float(ar[i]) / k, np.float32([px, py])))
    if not pieces:
        return None
    cand = list(zip(ar[ok].tolist(), c[ok].astype(np.float32), strict=False))
    cut = {i for i, _, _ in pieces}
    cand = [(a, cc) for (a, cc), i in zip(cand, np.nonzero(ok)[0], strict=False) if i not in cut]
    cand += [(a, cc) for _, a, cc in pieces]
    if not cand:
        return None
    # pips of one face share a size; drop specks much smaller than the others
    areas = sorted(a for a, _ in cand)
    # reference: the biggest blob for up to 3 (a lone 1-pip next to a small
    # glint must not pass as a 2), else the 3rd biggest (robust to one big glint)
    amax = areas[-1] if len(areas) <= 3 else areas[-3]
    pips = [c for a, c in cand if a >= PIP_SIZE_RATIO * amax]
    if len(pips) > 6 + MAX_DROP:
        return None
    return _fit_pips(np.array(pips, np.float32))


def _fit_pips(P: np.ndarray):
    """The best layout for pip centres P, leaving out a stray blob if that fits better."""
    best = (len(P), -1.0, None) if len(P) > 6 else _fit(P)
    # a stray blob (glint, marbling, a neighbour's pip): try leaving blobs out
    drop = 0
    while best[1] < MIN_CONFIDENCE and drop < MAX_DROP and len(P) > 2:
        drop += 1
        trials = _fit_many(P[_LEAVE_ONE_OUT[len(P)]]) if len(P) <= 7 else []
        trials = [(v, c - DROP_PENALTY * drop, geo) for v, c, geo in trials if v <= 6]
        if not trials:
            break
        k = max(range(len(trials)), key=lambda k: trials[k][1])
        if trials[k][1] <= best[1]:
            break
        best = trials[k]
        P = P[_LEAVE_ONE_OUT[len(P)][k]]  # (np.delete, at a tenth of the cost)
    return best


def _build_templates():
    """Pip positions of every template (value, layout variant, grid step,
    rotation, shift), grouped by the blur that matches their pip size, and
    each template's norm after removing its mean over the face interior."""
    unit = FACE / CROP_SCALE / 2
    c0 = (FACE - 1) / 2
    axis = np.arange(FACE, dtype=np.float64)
    inside = np.abs(axis - c0) <= TEMPLATE_REACH * unit  # the interior is a square: x and y apart
    inner = inside[:, None] & inside[None, :]
    n_in = float(inner.sum())
    rots = np.radians(TEMPLATE_ROTS)
    shifts = np.array([(sx, sy) for sx in TEMPLATE_SHIFTS for sy in TEMPLATE_SHIFTS])
    groups = []  # (sigma, pip pixels (pip, template), norms, first template of each value, values)
    for one in (True, False):
        for g in TEMPLATE_STEPS:
            sigma = (TEMPLATE_ONE_PIP if one else TEMPLATE_PIP) * g * unit
            ys, xs, owner, norms, vals = [], [], [], [], []
            for v, variants in _LAYOUTS.items():
                if (v == 1) != one:
                    continue
                for lay in variants:
                    # pip centres of this layout at every rotation and shift: (K, n, 2)
                    rot = np.stack([np.cos(rots), -np.sin(rots), np.sin(rots), np.cos(rots)], 1).reshape(
                        -1, 2, 2
                    )
                    p = np.einsum("rij,nj->rni", rot, lay.astype(np.float64)) * g * unit
                    p = (p[:, None, :, :] + shifts[None, :, None, :]).reshape(-1, len(lay), 2) + c0
                    # Gaussian pips are separable and so is the square interior:
                    # the template's sums over it come from 1-D profiles
                    gx = np.exp(-((axis[None, None, :] - p[..., 0:1]) ** 2) / (2 * sigma * sigma)) * inside
                    gy = np.exp(-((axis[None, None, :] - p[..., 1:2]) ** 2) / (2 * sigma * sigma)) * inside
                    sq = (np.einsum("kpx,kqx->kpq", gx, gx) * np.einsum("kpy,kqy->kpq", gy, gy)).sum((1, 2))
                    total = (gx.sum(2) * gy.sum(2)).sum(1)
                    norm = np.sqrt(np.maximum(sq - total * total / n_in, 1e-12))
                    # GaussianBlur's kernel sums to 1, the template's peaks are 1
                    norms.append(norm / (2 * math.pi * sigma * sigma))
                    first = sum(len(x) for x in norms[:-1])
                    owner.append(np.repeat(np.arange(first, first + len(p)), len(lay)))
                    xs.append(np.rint(p[..., 0]).astype(np.intp).ravel())
                    ys.append(np.rint(p[..., 1]).astype(np.intp).ravel())
                    vals.append(np.full(len(p), v))
            va = np.concatenate(vals)
            starts = np.flatnonzero(np.r_[True, va[1:] != va[:-1]])  # templates come by value
            # pixel (flat index) of pip j of template t at [j, t]; templates of
            # fewer pips point at a zero sample past the face's pixels
            own = np.concatenate(owner)
            counts = np.bincount(own, minlength=len(va))
            pip = np.arange(len(own)) - np.r_[0, np.cumsum(counts)][own]
            at = np.full((int(counts.max()), len(va)), FACE * FACE, np.intp)
            at[pip, own] = np.concatenate(ys) * FACE + np.concatenate(xs)
            groups.append((sigma, at, np.concatenate(norms).astype(np.float32), starts, va[starts]))
    return inner, groups


_TEMPLATES = None
_FAMILIES = None  # (the groups they were laid out from, _template_families of them)


def _template_families(groups: list) -> list:
    """The template groups of as many pips side by side, so that one pass takes
    and sums the pips of all their blurs: (sigmas, pip pixels with the block of
    each blur added, norms, first template of each value, values)."""
    block = FACE * FACE + 1
    families: dict[int, list] = {}
    for group in groups:
        families.setdefault(len(group[1]), []).append(group)
    out = []
    for members in families.values():
        width = np.cumsum([0] + [len(norms) for _, _, norms, _, _ in members])
        out.append(
            (
                [sigma for sigma, _, _, _, _ in members],
                np.concatenate([at + g * block for g, (_, at, _, _, _) in enumerate(members)], 1),
                np.concatenate([norms for _, _, norms, _, _ in members]),
                np.concatenate([starts + width[g] for g, (_, _, _, starts, _) in enumerate(members)]),
                np.concatenate([values for _, _, _, _, values in members]),
            )
        )
    return out


def _template_value(maps: list[np.ndarray]) -> tuple[int, float]:
    """The value whose rendered pip pattern correlates best with any of the
    face's pip maps (normalised cross-correlation; a template of Gaussian pips
    correlates with a map as the map blurred to the pip size, summed at the
    pip centres), and its lead over the best other value."""
    global _TEMPLATES, _FAMILIES
    if _TEMPLATES is None:
        _TEMPLATES = _build_templates()
    inner, groups = _TEMPLATES
    if _FAMILIES is None or _FAMILIES[0] is not groups:
        _FAMILIES = (groups, _template_families(groups))
    best = np.full(7, -2.0)  # best correlation per value (index 0 unused)
    centred, norms_of_maps = [], []
    for dm in maps:
        m = np.where(inner, dm - dm[inner].mean(), 0.0).astype(np.float32)
        n = float(np.linalg.norm(m))
        if n >= 1e-6:
            centred.append(m)
            norms_of_maps.append(n)
    if centred:
        # all maps at once, as the channels of one image (half the time of one
        # map after another for four maps; the sums are the same, pip by pip)
        k = len(centred)
        stack = cv2.merge(centred) if k > 1 else centred[0]
        n_maps = np.array(norms_of_maps, np.float32)
        block = FACE * FACE + 1
        for sigmas, at, norms, starts, values in _FAMILIES[1]:
            # map by map, each a row, one block of it per blur (its last
            # column: 0, for missing pips); the pips are taken in float32 and
            # summed in float64, one after another as ever (the same sums, at
            # half the cost of taking float64)
            blurred = np.zeros((k, len(sigmas) * block), np.float32)
            for g, sigma in enumerate(sigmas):
                blurred[:, g * block : (g + 1) * block - 1] = (
                    cv2.GaussianBlur(stack, (0, 0), sigma).reshape(-1, k).T
                )
            pips = blurred.take(at, axis=1)  # (maps, pips, templates)
            if len(at) == 1:
                sums = pips[:, 0].astype(np.float64)
            else:
                sums = np.add(pips[:, 0], pips[:, 1], dtype=np.float64)
                for j in range(2, len(at)):
                    sums += pips[:, j]
            sc = sums / (n_maps[:, None] * norms[None, :])
            np.maximum.at(best, values, np.maximum.reduceat(sc, starts, axis=1).max(0))
    order = np.argsort(-best)
    return int(order[0]), float(best[order[0]] - best[order[1]])
