"""Body-first dice reader: find each die's body by colour, then read the pips on its face.

``read_faces(image) -> list[Die]``. It complements the pip-first reader in
``vision.reader``: it finds dice whose pips that reader cannot group (small,
blurred or low-contrast pips) but misses dice whose body does not stand out
from the table (ivory dice on a white board, dice pressed into a tray wall).
``vision.fusion`` combines the two.

Pipeline (one configuration for every photo):

1. Segmentation on a copy downscaled to WORK_SIDE px. Background = median blur of
   a ~40 px thumbnail (tray/board colour incl. slow shading). A pixel is die
   body when it differs from the background in an opponent colour space;
   darker-only differences count little (shadows), colour differences count
   extra (dice are coloured). Small holes (pips) are filled.
2. Die size S = upper quartile of the sizes of compact blobs, so dice from ~25
   to ~250 px are handled with the same constants (all sizes are in units of S).
3. Long horizontal/vertical bands (tray walls, board edges) are cut away,
   but not die bodies of another colour pressed against them; a
   blob that is not one square die is opened (~S/2) and split at
   distance-transform peaks.
4. Each body is re-found at full resolution: a pixel belongs to it when its
   colour is nearer the die's than the local background's (cuts off shadows,
   walls and differently coloured neighbours).
5. Each body's face is read by ``vision.pipcount.read_face``: warped square
   along its edges, its pips mapped, fitted to the six layouts, checked on
   the pip grid and, when unsure, against templates.
6. Bodies as light as the table (white dice on a white tray) are seeded
   once more from square, die-sized patches of dense grey edges, or the
   pieces such a patch of touching dice splits into (OUTLINE).

Readings with confidence >= 0.5 were 94% right on byler-d6/train (they cover
84% of its dice); lower ones are dice whose value is a guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import pipcount, pixels
from vision.die import Die

# ------------------------------------------------------------------ tunables
# segmentation
WORK_SIDE = 320  # long side of the segmentation copy (25 px dice in 640 -> 12 px)
BG_THUMB = 40  # background thumbnail long side: median blur there costs ~nothing
BG_KSIZE = 9  # median kernel on the thumbnail (~1/4 image): larger than a die/cluster
FG_THRESHOLD = 28.0  # colour distance from background (~Lab units) that marks die body
FG_DARK_WEIGHT = 0.35  # darker-than-background counts little: cast shadows are darker
FG_CHROMA_WEIGHT = 2.5  # colour difference counts extra: most dice are coloured
FG_EDGE = 0  # edge term for white dice on white boards: 0 = off (it made speckled
#              tables light up with confident phantom dice)
SCALE_ASPECT = 1.5  # blobs that are used to estimate the die size S: compact ones ...
SCALE_FILL = 0.6  # ... that fill their min-area rect
SCALE_PCT = 75  # upper quartile: holes, specks and pip fragments are smaller than dice
DEFAULT_SCALE_FRAC = 1 / 16  # die size guess (fraction of long side) with no usable blob
SINGLE_ASPECT = 1.3  # a blob is one die if its rect is this square ...
SINGLE_FILL = 0.72  # ... this full ...
SINGLE_SIZE = (0.6, 1.6)  # ... and this big (in S)
DIE_SIZE = (0.5, 1.9)  # any die body, in S
WALL_RUN = 3.5  # straight runs longer than this (in S) are walls/edges, not dice
# Dice pressed against a tray wall lie on those runs too. Across a run a wall
# band is thinner than a die, so the run's pixels WALL_DIE..WALL_THICK die
# sides thick across it (not a wide region such as the table beyond a tray)
# are die candidates. They are kept when their colour differs by more than
# WALL_COLOUR (~Lab, chroma x FG_CHROMA_WEIGHT) from the band's (its other
# pixels, mean per run; a run with less than WALL_BAND_MIN die areas of them
# has none) and they hold a square WALL_OPEN die sides wide. Where they join
# a foreground piece, that piece's bodies are read in addition to the usual
# ones, where no die was read yet and only when square within WALL_ASPECT
# (longer rects straddle two touching dice), and its pixels count for the
# leftover pass. On train: a red 1 against the tray wall is found and a red 3
# there is found (read as a 2), nothing lost: die accuracy 0.966 -> 0.967,
# recall 0.984 -> 0.985, precision 0.996; halves 0.967 -> 0.967 and 0.966 ->
# 0.967, days 0.965 -> 0.966 and 0.969 -> 0.969. Colour limits 55-70 alike
# (85 lost the 1; 40 read printed words along lines on rendered printed
# boards as 3 more phantoms). Keeping runs with no band at all (a thin run
# through dice touching in a row) found a brown 6 and a black 1 more on
# train, but read the words of a printed tray as dice too.
WALL_DIE = 0.7
WALL_THICK = 2.2
WALL_COLOUR = 70.0
WALL_BAND_MIN = 1.0
WALL_OPEN = 0.5
WALL_ASPECT = 1.2
WALL_SEP = 0.7  # an added body this close (in die sides) to a die read is that die
OPEN_FRAC = 0.5  # opening kernel (in S) before splitting: breaks thin bridges/slivers
PEAK_SEP = 0.8  # DT peaks closer than this * (r1 + r2) belong to one die
PEAK_FRAC = 0.3  # a DT peak must reach this * S to seed a die
# body refinement at full resolution
REFINE = True
REFINE_ITERS = 1  # (2 gave nothing on train)
REFINE_WIN = 1.8  # window, in die sides
REFINE_PX = 48  # the window is resampled to ~this many px (speed)
REFINE_ASPECT = 1.5  # a refined body must be roughly square ...
REFINE_SIZE = (0.6, 1.3)  # ... and about the segmented size, else keep the segmented one
BODY_MIN_CONTRAST = 25.0  # die colour vs local background (~Lab); real dice: 1st pct ~35
RESIDUAL_PASSES = 1  # passes re-seeding body pixels that no die read explains
RESIDUAL_OPEN = 0.6  # opening (in S) of the leftover body: drop rims and slivers
RESIDUAL_MIN = 0.6  # leftover must be at least (this * S)^2 to be a die
# White dice on a white tray differ from it too little in colour for the
# foreground mask (on train 21 of the 23 dice neither reader found). Their
# outline and pips still make a square, die-sized patch of dense grey edges,
# which is seeded once more at the end (pieces thinner than 3 px at the
# working scale, such as printed lines, are opened away). Such a body is read
# without templates and kept only when its blob reading is sure and its
# colour is near the table's (a body of another colour the mask would have
# found: the one such seed read on train was a dark tray corner). On train:
# fused die accuracy 0.931 -> 0.937, image accuracy 0.660 -> 0.700, recall
# 0.969 -> 0.974, precision 0.994; 2-fold halves 0.935 -> 0.940 and
# 0.928 -> 0.934. Edge limits 30-50 and colour limits 32-70 gave 0.935-0.937.
# The faintest outlines (white 1s on the light tray) stay under that edge
# level on part of their rim, so the patches are looked for once more at a
# lower level, away from the first level's seeds. On train it found two white
# 1s neither reader saw before and changed no value: die accuracy
# 0.946 -> 0.947, image accuracy 0.735 -> 0.740, recall 0.978 -> 0.979,
# precision 0.996; 2-fold halves 0.948 -> 0.949 and 0.943 -> 0.945. A second
# level of 20 or 30 found one die, a single level of 25 or 30 lost two. The
# extra pass costs 0.1-0.8 ms a 640x480 frame (the more texture, the more).
OUTLINE = True
OUTLINE_EDGES = (40.0, 25.0)  # grey gradient levels, (|dx| + |dy|) / 2 of the 3x3 Sobel at the working scale
OUTLINE_ASPECT = 1.3  # the patch's min-area rect is this square ...
OUTLINE_FILL = 0.6  # ... this full (0.7: one die fewer) ...
OUTLINE_SIZE = (0.7, 1.4)  # ... and this big (in S)
OUTLINE_INNER = 0.2  # half-side (in patch sides) of the centre that must hold pip edges:
OUTLINE_PIP_EDGES = 2  # printed grey discs on the tray have none (0.3: they passed)
OUTLINE_CONF = 0.7  # blob reading needed (0.55-0.7 alike on train)
OUTLINE_MAX_CONTRAST = 40.0  # body colour vs local background (~Lab), see above
# White dice touching each other (or a die already read) close into one
# patch of edges, too long for a die. A patch of at most OUTLINE_SPLIT die
# areas whose rect is at most OUTLINE_SPLIT_ASPECT long (two dice side by
# side: ~2) and OUTLINE_FILL full is split at its distance-transform peaks as
# the foreground's clusters are, and each square, die-sized piece is seeded.
# On train it found an ivory 6 pressed against a red die and changed nothing
# else: die accuracy 0.960 -> 0.961, recall 0.985, precision 0.996; halves
# 0.962 -> 0.963 and 0.959 -> 0.959. Without the length and fullness limits
# it split tray walls into 3 phantoms; areas 3-6 and lengths 2.2-3 alike.
# Patches under OUTLINE_SPLIT_MIN die areas hold no two dice (the two found
# on train: 1.9 and 2.8); leaving them whole halves the split's cost (0.3 ->
# 0.15 ms a rendered 640x480 frame of textured table).
OUTLINE_SPLIT = 4.5
OUTLINE_SPLIT_MIN = 1.2
OUTLINE_SPLIT_ASPECT = 2.6
# In a frame of white dice the die size S comes from their pips (0.35-0.6
# of a die on train), and an outline patch can be only the middle of a face:
# a seed whose reading stays unsure is read once more on a crop this much
# larger (its edge orientation taken again), and kept when that reading is
# sure and not a lone pip. On train it found an ivory 6 seeded at 29 px of
# its 45: die accuracy 0.962 -> 0.962 (+1 die), image accuracy 0.775 ->
# 0.780, recall 0.986 -> 0.987, precision 0.996; halves 0.963 -> 0.963 and
# 0.960 -> 0.962. (1.3, 1.6) and (1.2, 1.4, 1.6) gave the same; accepting a
# 1 made a crumb on a stained table a sure 1.
OUTLINE_RETRY = (1.6,)
# The segmented body of a dark or rounded die is often smaller than its face
# (rounded edges and side faces in shadow: on train a found side of 23 px for
# a 28 px face), so the outer pips fall on the crop's rim where the top-hat
# and the reach limit lose them. A face that reads unsure is read once more
# on a crop this much larger, and that reading is taken when it is sure. Only
# bodies the colour refinement found are read again: on empty printed-tray
# renders the second reading made 6 more sure phantoms in 32 frames, with
# this condition none (at 1.2: 2). On train: fused die accuracy
# 0.939 -> 0.945, image accuracy 0.715 -> 0.725, recall 0.974 -> 0.980,
# precision 0.995 -> 0.994; 2-fold halves 0.940 -> 0.946 and 0.938 -> 0.943.
# Factors 1.1 to 1.3 gave 0.944-0.946; 0.9 (a smaller crop) gave 0.939.
RETRY_SIDE = 1.15
# Readings closer than this (in die sides) are one die: keep the best. Two
# touching dice whose refined bodies both drift towards the gap can come this
# close: at 0.6 a sure 2 was dropped for its neighbour 0.53 sides away. On
# train 0.6 -> 0.5: die accuracy 0.961 -> 0.962, image accuracy 0.770 ->
# 0.775, precision 0.996; halves 0.963 -> 0.963 and 0.959 -> 0.960 (0.45:
# one more die found and one misread, the same figures).
DUP_SEP = 0.5
# A body read as nothing, or too unsurely to report, is handed over unread
# (see FaceScan) when this big (in S): the one train die then read by
# vision.recover was a body of 1.3 S; from 0.5 to 1.9 no other came.
UNREAD_SIZE = (0.7, 1.4)


def _contour_areas(cnts) -> np.ndarray:
    """``cv2.contourArea`` of every contour, in one pass: the shoelace sum over
    integer points is exact, so the areas are the same. (Textured tables give
    hundreds of small contours a frame; one call each cost ~0.3 ms.)"""
    if len(cnts) == 0:
        return np.zeros(0)
    pts = np.concatenate(cnts).reshape(-1, 2).astype(np.int64)
    lens = np.fromiter((len(c) for c in cnts), np.intp, len(cnts))
    starts = np.cumsum(lens) - lens
    after = np.arange(1, len(pts) + 1)
    after[starts + lens - 1] = starts  # each contour is closed
    x, y = pts[:, 0], pts[:, 1]
    return np.abs(np.add.reduceat(x * y[after] - x[after] * y, starts)) / 2.0


def _foreground(work: np.ndarray):
    h, w = work.shape[:2]
    f = BG_THUMB / max(h, w)
    thumb = cv2.resize(work, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    bg = cv2.medianBlur(thumb, BG_KSIZE)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    # opponent colour space (lightness, red-green, yellow-blue), ~Lab units but
    # one cv2.transform instead of a slow uint8 Lab conversion
    d = cv2.transform(cv2.subtract(work, bg, dtype=cv2.CV_32F), pixels.OPPONENT)
    dl, c1, c2 = cv2.split(d)
    # darker than background counts less: cast shadows are darker, not coloured
    dl = np.maximum(dl, dl * FG_DARK_WEIGHT)  # (the same as max(dl, 0) + weight * min(dl, 0))
    s = cv2.magnitude(dl, FG_CHROMA_WEIGHT * cv2.magnitude(c1, c2))
    m = cv2.compare(s, FG_THRESHOLD, cv2.CMP_GT)
    if FG_EDGE:
        # ivory/white dice on a white board barely differ in colour; their
        # outline and pips are strong edges that close into a body
        gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0)
        gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1)
        e = cv2.addWeighted(cv2.convertScaleAbs(gx), 0.5, cv2.convertScaleAbs(gy), 0.5, 0)
        m |= cv2.compare(e, FG_EDGE, cv2.CMP_GT)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, pixels.K3)
    # fill small holes (pips of the die's own colour as background)
    cnts, hier = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:
        lim = (max(h, w) / 10.0) ** 2
        holes = np.flatnonzero(hier[0][:, 3] >= 0)  # (only their areas are needed)
        areas = _contour_areas([cnts[i] for i in holes])
        small = [cnts[i] for i in holes[areas < lim]]
        if small:
            cv2.drawContours(m, small, -1, 255, -1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, pixels.K3)
    return m, bg


def _estimate_scale(m, long_side):
    cnts, hier = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return long_side * DEFAULT_SCALE_FRAC
    areas = _contour_areas(cnts)
    parent = hier[0][:, 3]
    hole = parent >= 0
    holes = np.bincount(parent[hole], weights=areas[hole], minlength=len(cnts))
    solid = areas - holes  # rings (tray rims) are not solid
    sides = []
    for i in np.flatnonzero(~hole & (solid >= 40)):
        a = float(solid[i])
        (_, _), (rw, rh), _ = cv2.minAreaRect(cnts[i])
        if min(rw, rh) <= 0:
            continue
        if max(rw, rh) / min(rw, rh) < SCALE_ASPECT and a / (rw * rh) > SCALE_FILL:
            sides.append(math.sqrt(a))
    if len(sides) >= 1:
        # upper quartile: holes, specks and pip-only fragments are smaller than dice
        return float(pixels.percentiles(np.array(sides), (SCALE_PCT,))[0])
    return long_side * DEFAULT_SCALE_FRAC


def _split(mask_roi: np.ndarray, S: float):
    """Split a blob of several dice into per-die point sets."""
    k = max(3, int(round(S * OPEN_FRAC)) | 1)
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    op = cv2.morphologyEx(mask_roi, cv2.MORPH_OPEN, ker)
    if not op.any():
        return []
    dt = cv2.distanceTransform(op, cv2.DIST_L2, 3)
    dil = cv2.dilate(dt, pixels.K3)
    ys, xs = np.nonzero((dt >= dil) & (dt >= PEAK_FRAC * S))
    if len(xs) == 0:
        return []
    # size-adaptive non-maximum suppression: a die's DT value is about half
    # its side, so two touching dice have centres ~(r1 + r2) apart; a peak
    # inside an accepted die's inscribed square is the same die
    order = np.argsort(-dt[ys, xs])
    acc = []
    for i in order:
        x, y, r = float(xs[i]), float(ys[i]), float(dt[ys[i], xs[i]])
        if all((x - ax) ** 2 + (y - ay) ** 2 > (PEAK_SEP * (r + ar)) ** 2 for ax, ay, ar in acc):
            acc.append((x, y, r))
    cents = np.float32([(x, y) for x, y, _ in acc])
    radii = np.float32([r for _, _, r in acc])
    # the blob's pixels (x, y) row by row, as np.nonzero lists them
    pts = cv2.findNonZero(op).reshape(-1, 2).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        # dx * dx + dy * dy: the same floats as summing the squares over a last
        # axis of two, at a third of the cost
        dx = pts[:, None, 0] - cents[None, :, 0]
        dy = pts[:, None, 1] - cents[None, :, 1]
        d2 = dx * dx + dy * dy
        own = d2.argmin(1)
        near = d2[np.arange(len(pts)), own] < (1.6 * radii[own]) ** 2
    out = []
    for i in range(len(cents)):
        sel = pts[(own == i) & near]
        if len(sel) >= 10:
            out.append(sel)
    return out


def _split_contour(c: np.ndarray, S: float) -> tuple[list[np.ndarray], int, int]:
    """``_split`` of the blob inside one outer contour: its per-die point sets,
    relative to the corner (x, y) of the contour's bounding box."""
    x, y, w, h = cv2.boundingRect(c)
    roi = np.zeros((h, w), np.uint8)
    cv2.drawContours(roi, [c - [x, y]], -1, 255, -1)
    return _split(roi, S), x, y


def _refine(img: np.ndarray, bg_bgr: np.ndarray, cx: float, cy: float, side: float):
    """Re-find the die body around (cx, cy) at full resolution: a pixel belongs to
    the die when its colour is nearer the die's own (median of the centre) than
    the local background's. Cuts off shadows, tray walls and differently
    coloured neighbours. Returns (cx, cy, side) or None."""
    H, W = img.shape[:2]
    R = side * REFINE_WIN / 2
    x0, y0 = max(0, int(cx - R)), max(0, int(cy - R))
    x1, y1 = min(W, int(cx + R) + 1), min(H, int(cy + R) + 1)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    k = min(1.0, REFINE_PX / (2 * R))
    p = img[y0:y1, x0:x1]
    if k < 1.0:
        p = cv2.resize(
            p, (max(4, round((x1 - x0) * k)), max(4, round((y1 - y0) * k))), interpolation=cv2.INTER_AREA
        )
    ky, kx = p.shape[0] / (y1 - y0), p.shape[1] / (x1 - x0)
    # (a strided view makes OpenCV's uint8 Lab conversion ~50x slower)
    lab = cv2.cvtColor(np.ascontiguousarray(p), cv2.COLOR_BGR2LAB).astype(np.float32)
    bgl = cv2.cvtColor(bg_bgr.reshape(1, 1, 3), cv2.COLOR_BGR2LAB).astype(np.float32).reshape(3)
    pcx, pcy = (cx - x0) * kx, (cy - y0) * ky
    q = max(1, int(side * kx * 0.25))
    c = lab[max(0, int(pcy) - q) : int(pcy) + q + 1, max(0, int(pcx) - q) : int(pcx) + q + 1]
    ref = pixels.median(c.reshape(-1, 3))
    # nearer ref than bgl: |lab - ref|^2 < |lab - bgl|^2 is the linear test
    # lab . (bgl - ref) < (|bgl|^2 - |ref|^2) / 2 (one cv2.transform, ~30x faster)
    w = (bgl - ref).astype(np.float32).reshape(1, 3)
    body = cv2.compare(cv2.transform(lab, w), float(bgl @ bgl - ref @ ref) / 2.0, cv2.CMP_LT)
    body = cv2.morphologyEx(body, cv2.MORPH_CLOSE, pixels.K3)
    cnts, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for cc in cnts:
        if cv2.pointPolygonTest(cc, (float(pcx), float(pcy)), False) >= 0:
            best = cc
            break
    if best is None:
        return None
    (rx, ry), (rw, rh), _ = cv2.minAreaRect(best)
    a = cv2.contourArea(best)
    if min(rw, rh) <= 0 or max(rw, rh) > REFINE_ASPECT * min(rw, rh):
        return None
    nside = math.sqrt(a) / kx  # area-based side: robust to ragged outlines
    if not (REFINE_SIZE[0] * side <= nside <= REFINE_SIZE[1] * side):
        return None
    contrast = float(np.sqrt(((ref - bgl) ** 2).sum()))
    return x0 + rx / kx, y0 + ry / ky, nside, contrast


@dataclass
class FaceScan:
    """What the body-first reader saw in one frame.

    ``unexplained`` counts die-sized pieces of foreground no reading accounts
    for: a frame with none, and only confident readings, needs no second reader.
    ``unread`` holds the die bodies found but not read, as dice of value 0
    and confidence 0: square, die-sized, standing out from the table, with no
    reading near them (``vision.recover`` reads them in their own colours).
    """

    dice: list[Die]
    unexplained: int
    die_side: float  # typical die side in full-resolution pixels
    unread: list[Die] = field(default_factory=list)


def read_faces(image: np.ndarray) -> list[Die]:
    """Read the top faces of the six-sided dice in ``image`` (BGR, grey or BGRA)."""
    return scan_faces(image).dice


def scan_faces(image: np.ndarray) -> FaceScan:
    """Read the dice and report how much of the foreground the readings explain."""
    img = pixels.as_bgr(image, "read_faces")
    if min(img.shape[:2]) < 8:
        return FaceScan([], 0, 0.0)
    H, W = img.shape[:2]
    f = min(1.0, WORK_SIDE / max(H, W))
    work = cv2.resize(img, (round(W * f), round(H * f)), interpolation=cv2.INTER_AREA) if f < 1 else img
    m, bg = _foreground(work)
    cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    S = _estimate_scale(m, max(work.shape[:2]))
    # tray walls, table edges, cloth seams: long straight bands. Pixels on a
    # horizontal or vertical run longer than WALL_RUN dice are not dice,
    # except die bodies along such a run (see WALL_DIE)
    walls, kept = _walls(m, work, S)
    along = None  # foreground with those bodies kept: the pieces they join
    if walls is not None:
        m0 = m
        m = cv2.morphologyEx(m0 & ~cv2.dilate(walls, pixels.K3), cv2.MORPH_OPEN, pixels.K3)
        cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if kept is not None:
            m1 = cv2.morphologyEx(m0 & ~cv2.dilate(walls & ~kept, pixels.K3), cv2.MORPH_OPEN, pixels.K3)
            new = m1 & ~m
            if new.any():
                _, lab = cv2.connectedComponents(m1)
                along = np.isin(lab, np.unique(lab[new > 0])).astype(np.uint8)
    bodies = _bodies(cnts, S)
    extra = []
    if along is not None:
        extra = _bodies(cv2.findContours(along, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], S)
    out: list[_Reading] = []
    unread: list[_Reading] = []  # bodies not read

    def read_body(rcx: float, rcy: float, fside: float, outline: bool = False) -> None:
        """Refine, read and filter one body given at work scale; append to out."""
        fx, fy, fs = rcx / f, rcy / f, fside / f
        body_contrast = -1.0  # -1: the refinement did not find the body
        if REFINE:
            bgc = bg[min(bg.shape[0] - 1, int(rcy)), min(bg.shape[1] - 1, int(rcx))]
            for _ in range(REFINE_ITERS):
                rr = _refine(img, bgc, fx, fy, fs)
                if rr is None:
                    break
                fx, fy, fs, body_contrast = rr
        if outline:
            if body_contrast >= OUTLINE_MAX_CONTRAST:
                return
            body_contrast = -1.0
        elif 0 <= body_contrast < BODY_MIN_CONTRAST:
            return  # no body standing out from the table: not a die (and saves the read)
        ang = pipcount.orient(img, fx, fy, fs)
        # the template check only for a body of a die's size: pieces of tray
        # corners and gaps between dice gave templates a pattern to agree with
        size_ok = pipcount.TEMPLATE_SIZE[0] * S / f <= fs <= pipcount.TEMPLATE_SIZE[1] * S / f
        template = pipcount.TEMPLATE_AGREE > 0 and size_ok and not outline
        res = pipcount.read_face(img, fx, fy, fs, ang, template, body_contrast >= 0)
        if RETRY_SIDE and body_contrast >= 0 and (res is None or res[1] < pipcount.MIN_CONFIDENCE):
            # see RETRY_SIDE: the body may be smaller than the face
            again = pipcount.read_face(img, fx, fy, fs * RETRY_SIDE, ang, template, body_contrast >= 0)
            if again is not None and again[1] >= pipcount.MIN_CONFIDENCE:
                res = again
        if outline and (res is None or res[1] < OUTLINE_CONF):
            # see OUTLINE_RETRY: the patch may be only the middle of the face
            for k in OUTLINE_RETRY:
                ang_k = pipcount.orient(img, fx, fy, fs * k)
                again = pipcount.read_face(img, fx, fy, fs * k, ang_k, False, False)
                if again is not None and again[1] >= OUTLINE_CONF and again[0] > 1:
                    res = again
                    break
        if (
            res is None
            or res[1] <= 0
            or (res[1] < pipcount.MIN_CONFIDENCE and body_contrast < 0)
            or (outline and res[1] < OUTLINE_CONF)
        ):
            # unsure readings are reported only for a convincing body: one that
            # the colour refinement found (printed trays, text and texture give
            # pip-like blobs but no body); the body is handed over unread
            if UNREAD_SIZE[0] * S / f <= fs <= UNREAD_SIZE[1] * S / f:
                unread.append(_Reading(0, 0.0, fx, fy, fs, ang))
            return
        val, conf = res[0], res[1]
        out.append(_Reading(int(val), float(round(min(1.0, conf), 3)), fx, fy, fs, ang, res[3]))

    for (rcx, rcy), (rw, rh), _ang in bodies:
        side = min(rw, rh)
        if not (DIE_SIZE[0] * S <= side <= DIE_SIZE[1] * S) or max(rw, rh) > 1.6 * side:
            continue
        read_body(rcx, rcy, math.sqrt(rw * rh))
    n_old = len(out)
    for (rcx, rcy), (rw, rh), _ang in extra:
        side = min(rw, rh)
        if not (DIE_SIZE[0] * S <= side <= DIE_SIZE[1] * S) or max(rw, rh) > WALL_ASPECT * side:
            continue
        if any(
            (r.x * f - rcx) ** 2 + (r.y * f - rcy) ** 2 < (WALL_SEP * r.side * f) ** 2 for r in out[:n_old]
        ):
            continue
        read_body(rcx, rcy, math.sqrt(rw * rh))
    unexplained = 0
    for rnd in range(RESIDUAL_PASSES + 1):
        # body pixels no die accounts for (clusters the split got wrong): seed
        # once more at the distance-transform peak of each leftover piece; the
        # last round only counts what is still left
        seeds = _leftovers(m if along is None else m | along, out, f, S)
        if len(seeds) == 0 or rnd == RESIDUAL_PASSES:
            unexplained = len(seeds)
            break
        n_before = len(out)
        for px, py in seeds:
            read_body(px, py, S)
        if len(out) == n_before:
            unexplained = len(seeds)
            break
    if OUTLINE:
        for px, py, side in _outline_seeds(work, out, f, S):
            read_body(px, py, side, outline=True)
    readings = _one_per_die(out)
    # a body is unread when no reading lies on it
    unread = [
        u
        for u in unread
        if all((r.x - u.x) ** 2 + (r.y - u.y) ** 2 > (DUP_SEP * max(r.side, u.side)) ** 2 for r in out)
    ]
    return FaceScan(
        [r.die(W, H) for r in readings], unexplained, S / f, [u.die(W, H) for u in _one_per_die(unread)]
    )


def _bodies(cnts, S: float) -> list:
    """Rotated rects (work scale) of the die bodies in the foreground's outer
    contours: a contour that is one square die as it is, else its split."""
    bodies = []
    areas = _contour_areas(cnts)
    for i in np.flatnonzero(areas >= (0.5 * S) ** 2):
        c, a = cnts[i], float(areas[i])
        rect = cv2.minAreaRect(c)
        (rcx, rcy), (rw, rh), ang = rect
        if min(rw, rh) <= 0:
            continue
        asp = max(rw, rh) / min(rw, rh)
        side = math.sqrt(rw * rh)
        if (
            asp < SINGLE_ASPECT
            and a / (rw * rh) > SINGLE_FILL
            and SINGLE_SIZE[0] * S <= side <= SINGLE_SIZE[1] * S
        ):
            bodies.append(rect)
            continue
        pieces, x, y = _split_contour(c, S)
        for pts in pieces:
            bodies.append(cv2.minAreaRect(pts + np.float32([x, y])))
    return bodies


def _walls(m: np.ndarray, work: np.ndarray, S: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The foreground pixels (work scale) on a horizontal or vertical run longer
    than WALL_RUN dice (tray walls, table edges, cloth seams), and those of them
    that are die bodies along such a run (see WALL_DIE); None for none."""
    L = int(WALL_RUN * S)
    if L >= min(m.shape):
        return None, None
    hw = pixels.open_runs(m, np.ones((1, L), np.uint8))
    vw = pixels.open_runs(m, np.ones((L, 1), np.uint8))
    if hw is None and vw is None:
        return None, None
    hw = np.zeros_like(m) if hw is None else hw
    vw = np.zeros_like(m) if vw is None else vw
    walls = hw | vw
    # die-thick across the run, but not a wide region (the table beyond a tray)
    k = max(3, int(round(WALL_DIE * S)))
    K = max(k + 1, int(round(WALL_THICK * S)))
    across_v = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((k, 1), np.uint8))
    across_v &= ~cv2.morphologyEx(across_v, cv2.MORPH_OPEN, np.ones((K, 1), np.uint8))
    across_h = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
    across_h &= ~cv2.morphologyEx(across_h, cv2.MORPH_OPEN, np.ones((1, K), np.uint8))
    cand = (hw & across_v & ~vw) | (vw & across_h & ~hw)
    if not cand.any():
        return walls, None
    # per run: the band's mean colour (from every other row and column:
    # plenty, and a quarter of the cost), and the candidates far from it
    _, lab = cv2.connectedComponents(walls)
    ys, xs = cv2.findNonZero(cand).reshape(-1, 2).T[::-1]
    cl = lab[ys, xs]
    n = int(cl.max()) + 1
    sub = (walls[::2, ::2] & ~cand[::2, ::2]) > 0
    band = lab[::2, ::2][sub]
    n_band = np.bincount(band, minlength=n)[:n]
    has_band = n_band[cl] >= WALL_BAND_MIN * S * S / 4
    if not has_band.any():
        return walls, None
    col = work[ys, xs].astype(np.float32) @ pixels.OPPONENT.T
    bcol = work[::2, ::2][sub].astype(np.float32) @ pixels.OPPONENT.T
    ref = np.stack([np.bincount(band, bcol[:, c], minlength=n)[:n] for c in range(3)], 1).astype(np.float32)
    ref /= np.maximum(1, n_band)[:, None]
    d = col - ref[cl]
    far = has_band & (d[:, 0] ** 2 + FG_CHROMA_WEIGHT**2 * (d[:, 1] ** 2 + d[:, 2] ** 2) > WALL_COLOUR**2)
    if not far.any():
        return walls, None
    kept = np.zeros_like(m)
    kept[ys[far], xs[far]] = 255
    # a die's body, not strokes of print of another colour along a printed line
    q = max(3, int(round(WALL_OPEN * S)))
    kept = cv2.morphologyEx(kept, cv2.MORPH_OPEN, np.ones((q, q), np.uint8))
    if not kept.any():
        return walls, None
    return walls, kept


def _one_per_die(out: list[_Reading]) -> list[_Reading]:
    """Two seeds on one die (split clusters, refinement converging): keep the
    better reading, most confident first (see DUP_SEP)."""
    keep: list[_Reading] = []
    for r in sorted(out, key=lambda r: -r.confidence):
        if all((r.x - k.x) ** 2 + (r.y - k.y) ** 2 > (DUP_SEP * min(r.side, k.side)) ** 2 for k in keep):
            keep.append(r)
    return keep


@dataclass
class _Reading:
    """One face read, with the rotated square it was read from (full resolution)."""

    value: int
    confidence: float
    x: float
    y: float
    side: float
    angle: float
    pips: list[tuple[float, float]] = field(default_factory=list)  # where the pips were seen (image)

    def die(self, width: int, height: int) -> Die:
        a = math.radians(self.angle)
        half = self.side / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
        box = [
            float(max(0, int(self.x - half))),
            float(max(0, int(self.y - half))),
            float(min(width - 1, int(self.x + half))),
            float(min(height - 1, int(self.y + half))),
        ]
        return Die(self.value, box, self.confidence, self.pips, side=self.side)


def _leftovers(m: np.ndarray, out: list[_Reading], f: float, S: float) -> list[tuple[float, float]]:
    """Seeds (work scale) of die-sized foreground pieces that no reading covers."""
    cover = np.zeros_like(m)
    for r in out:
        pts = cv2.boxPoints(((r.x * f, r.y * f), (r.side * f * 1.1, r.side * f * 1.1), r.angle))
        cv2.fillConvexPoly(cover, pts.astype(np.int32), 255)
    k = max(3, int(round(S * RESIDUAL_OPEN)) | 1)
    rest = m & ~cover
    seeds: list[tuple[float, float]] = []
    # The erosion by the round kernel keeps no more than the erosions by its
    # middle row and column (cheap: 0.06 against 0.3 ms the opening of the
    # whole mask). Where those leave nothing, so does the opening; elsewhere it
    # runs in a window around what they leave (margin half the kernel, corner at
    # even coordinates as OpenCV's labelling scans 2x2 blocks): the same seeds,
    # in the same order.
    cross = cv2.erode(rest, np.ones((1, k), np.uint8)) & cv2.erode(rest, np.ones((k, 1), np.uint8))
    if cv2.countNonZero(cross) == 0:
        return seeds
    H, W = m.shape
    bx, by, bw, bh = cv2.boundingRect(cross)
    reach = k // 2 + 1
    wx0, wy0 = max(0, bx - reach) & ~1, max(0, by - reach) & ~1
    wx1, wy1 = min(W, bx + bw + reach), min(H, by + bh + reach)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    core = cv2.erode(rest[wy0:wy1, wx0:wx1], kernel) & cross[wy0:wy1, wx0:wx1]
    left = cv2.dilate(core, kernel)
    if not left.any():
        return seeds
    n, labels, stats, _ = cv2.connectedComponentsWithStats(left)
    for i in range(1, n):
        if stats[i, 4] < (RESIDUAL_MIN * S) ** 2:
            continue
        x0, y0, w0, h0 = stats[i, :4]
        blob = (labels[y0 : y0 + h0, x0 : x0 + w0] == i).astype(np.uint8)
        dt = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
        _, r, _, (px, py) = cv2.minMaxLoc(dt)
        if r >= PEAK_FRAC * S:
            seeds.append((float(wx0 + x0 + px), float(wy0 + y0 + py)))
    return seeds


def _outline_seeds(
    work: np.ndarray, out: list[_Reading], f: float, S: float
) -> list[tuple[float, float, float]]:
    """Square, die-sized patches of dense edges with pip edges at their centre
    that no reading covers: (x, y, side) at work scale (see OUTLINE)."""
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0)
    gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1)
    e = cv2.addWeighted(cv2.convertScaleAbs(gx), 0.5, cv2.convertScaleAbs(gy), 0.5, 0)
    seeds: list[tuple[float, float, float]] = []
    for level in OUTLINE_EDGES:
        edges = cv2.compare(e, level, cv2.CMP_GT)
        m = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, pixels.K3)
        # thin lines go (and with them most contours: findContours is the cost)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, pixels.K3)
        cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        areas = _contour_areas(cnts)
        for i in np.flatnonzero(areas >= (OUTLINE_SIZE[0] * S) ** 2):
            for rcx, rcy, side in _outline_patches(cnts[i], float(areas[i]), S):
                if any((r.x * f - rcx) ** 2 + (r.y * f - rcy) ** 2 < (0.7 * r.side * f) ** 2 for r in out):
                    continue
                if any((x - rcx) ** 2 + (y - rcy) ** 2 < (0.7 * q) ** 2 for x, y, q in seeds):
                    continue
                h = max(1, int(side * OUTLINE_INNER))
                y0, x0 = max(0, int(rcy) - h), max(0, int(rcx) - h)
                inner = edges[y0 : int(rcy) + h + 1, x0 : int(rcx) + h + 1]
                if cv2.countNonZero(inner) < OUTLINE_PIP_EDGES:
                    continue
                seeds.append((float(rcx), float(rcy), float(side)))
    return seeds


def _outline_patches(c: np.ndarray, a: float, S: float) -> list[tuple[float, float, float]]:
    """The die-shaped patches (x, y, side) of one contour of dense edges: the
    contour itself, or the pieces it splits into (touching white dice)."""
    (rcx, rcy), (rw, rh), _ = cv2.minAreaRect(c)
    if min(rw, rh) <= 0:
        return []
    side = math.sqrt(rw * rh)
    if max(rw, rh) <= OUTLINE_ASPECT * min(rw, rh) and a / (rw * rh) >= OUTLINE_FILL:
        if OUTLINE_SIZE[0] * S <= side <= OUTLINE_SIZE[1] * S:
            return [(rcx, rcy, side)]
    if not (OUTLINE_SPLIT and OUTLINE_SPLIT_MIN * S * S <= a <= OUTLINE_SPLIT * S * S):
        return []
    if max(rw, rh) > OUTLINE_SPLIT_ASPECT * min(rw, rh) or a / (rw * rh) < OUTLINE_FILL:
        return []
    pieces, x, y = _split_contour(c, S)
    found = []
    for pts in pieces:
        (px, py), (pw, ph), _ = cv2.minAreaRect(pts)
        q = math.sqrt(pw * ph)
        square = min(pw, ph) > 0 and max(pw, ph) <= OUTLINE_ASPECT * min(pw, ph)
        if square and len(pts) >= OUTLINE_FILL * pw * ph:
            if OUTLINE_SIZE[0] * S <= q <= OUTLINE_SIZE[1] * S:
                found.append((x + px, y + py, q))
    return found
