"""Reading one die's top face: find its pips and count them by their layout.

The die is resampled so its side is ``T.FACE_PX`` pixels, whatever its size in
the frame. Pips are blobs that differ from the face's own colour (light or
dark, any hue), so one map serves white, black, coloured and marbled dice.
Each way of taking some of the strongest blobs as a die's pips (1 to 6 of
them) is fitted to that value's pip layout, allowing for a die seen at a slant
(an affine grid), and weighed: pips of one face are about equally strong, the
blobs left out are much weaker, and the pips sit where the layout puts them.
The best weighed hypothesis is the value; how far it leads the next is the
main evidence for its confidence (``vision.confidence``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from vision import tunables as T
from vision.halvings import Halvings, square

# Pip layouts on the 3x3 grid (x, y in grid steps), the centre pip apart.
_RING = {
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (1, 1)],
    4: [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    5: [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    6: [(-1, -1), (1, -1), (1, 0), (1, 1), (-1, 1), (-1, 0)],
}
_CENTRE = {1: True, 2: False, 3: True, 4: False, 5: True, 6: False}


def _sorted_ring(v: int) -> np.ndarray:
    ring = np.array([complex(x, y) for x, y in _RING[v]])
    return ring[np.argsort(np.angle(ring))]


RINGS = {v: _sorted_ring(v) for v in _RING}


def _subsets(k: int) -> dict[int, np.ndarray]:
    """Which of the ``k`` strongest blobs each hypothesis takes as pips: the
    strongest ``v``, or those with one or two stronger blobs left out."""
    out = {}
    for v in range(1, 7):
        subs = set()
        for skip in range(T.SKIP_MAX + 1):
            pool = v + skip
            if pool > k:
                break
            for left in itertools.combinations(range(pool), skip):
                subs.add(tuple(i for i in range(pool) if i not in left))
        out[v] = np.array(sorted(subs), dtype=int).reshape(-1, v)
    return out


SUBSETS = _subsets(T.CANDIDATES)


@dataclass
class FaceReading:
    """What reading one face found: the value, its lead over the next value
    (log-likelihood), and measurements the confidence grader uses."""

    value: int
    lead: float
    score: float
    contrast: float
    residual: float
    pips: np.ndarray  # complex positions in frame pixels
    agreement: float = 1.0  # share of the sizes read that gave this value
    slant: float = 1.0  # how much longer the pip grid is one way than the other
    sharpness: float = 0.0  # see ``sharpness``
    opinion: np.ndarray | None = None  # the verifier's probabilities (``vision.verify``)
    above: float = 0.0  # see ``_above``
    centre: float = 0.0  # a 2's: the strongest blob at its middle, as a share of its pips' (``_centre``)
    crop: np.ndarray | None = field(default=None, repr=False)  # until its sharpness is measured


def face_crop(frame: np.ndarray | Halvings, x: float, y: float, side: float) -> np.ndarray:
    """The square around (x, y) resampled so that ``side`` pixels become ``T.FACE_PX``."""
    return square(Halvings.of(frame), x, y, side, T.FACE_PX, int(round(T.CROP * T.FACE_PX)))


def pip_maps(crop: np.ndarray) -> np.ndarray:
    """How unlike the face each pixel is, kept only in spots smaller than a pip's
    neighbourhood: one map for pips darker than the face, one for lighter ones
    (a face's pips are all one or the other; its rim's glints are not)."""
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
    centre, k = _pip_shapes(crop.shape[0])
    face = _median(lab[centre])
    d = lab - face
    chroma = T.CHROMA_WEIGHT**2 * (d[:, :, 1] ** 2 + d[:, :, 2] ** 2)
    lightness = d[:, :, 0]
    both = np.sqrt(lightness**2 + chroma)
    hue = np.sqrt(chroma)
    # Darker (lighter) pixels differ by lightness and hue; the others by hue alone.
    maps = np.stack([both, np.where(lightness < 0, both, hue), np.where(lightness > 0, both, hue)], axis=2)
    return cv2.morphologyEx(maps, cv2.MORPH_TOPHAT, k)


@lru_cache(maxsize=4)
def _pip_shapes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For a crop of side ``n``: the disc the face's colour is sampled in, and the top-hat's kernel."""
    yy, xx = np.mgrid[0:n, 0:n]
    centre = (xx - n / 2 + 0.5) ** 2 + (yy - n / 2 + 0.5) ** 2 <= (T.FACE_SAMPLE * T.FACE_PX) ** 2
    r = int(round(T.TOPHAT * T.FACE_PX)) | 1
    return centre, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r))


def blob_strength(pmap: np.ndarray) -> np.ndarray:
    """Round spots of each pip map, at several pip sizes (lines such as a die's rim give little)."""
    best = None
    for f in T.PIP_SIGMAS:
        s = f * T.FACE_PX
        g = cv2.GaussianBlur(pmap, (0, 0), s)
        hxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
        hyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
        hxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
        # The Hessian's weaker curvature, -(hxx + hyy + sqrt((hxx - hyy)^2 + 4 hxy^2)) / 2, scaled by s^2.
        spread = cv2.magnitude(cv2.subtract(hxx, hyy), cv2.add(hxy, hxy))
        weaker = cv2.multiply(cv2.add(cv2.add(hxx, hyy), spread), -0.5 * s * s)
        best = weaker if best is None else cv2.max(best, weaker)
    return cv2.max(best, 0.0)


_PEAK = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def candidates(strength: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per map of ``strength`` (n, n, maps): the strongest blobs within the die
    (positions relative to its centre, in face pixels) and their strengths."""
    n, _, maps = strength.shape
    # Each map's maximum, taken over a transposed copy: numpy reduces the strided axis slowly.
    floor = T.PEAK_FLOOR * np.maximum(np.ascontiguousarray(strength.reshape(-1, maps).T).max(axis=1), 1e-6)
    within, lo, hi = _within_die(n)
    # Peaks are sought only around the die, with the margin the 5x5 dilation reaches into.
    start, stop = max(0, lo - 2), min(n, hi + 2)
    window = strength[start:stop, start:stop]
    inner = slice(lo - start, hi - start)
    grown = cv2.dilate(window, _PEAK).reshape(window.shape)[inner, inner]
    core = window[inner, inner]
    ys, xs, which = np.nonzero((core == grown) & (core > floor) & within[:, :, None])
    ys, xs = ys + lo, xs + lo
    z = xs + 1j * ys - (n / 2 - 0.5) * (1 + 1j)
    b = strength[ys, xs, which]
    out = []
    for i in range(maps):
        zi, bi = z[which == i], b[which == i]
        order = np.argsort(-bi)[: T.CANDIDATES]
        out.append((zi[order], bi[order]))
    return out


@lru_cache(maxsize=4)
def _within_die(n: int) -> tuple[np.ndarray, int, int]:
    """The pixels of an ``n``-pixel crop whose blobs may be the die's pips: as a
    mask over the rows and columns ``lo:hi`` (the same both ways) that hold them."""
    yy, xx = np.mgrid[0:n, 0:n]
    mask = np.abs(xx + 1j * yy - (n / 2 - 0.5) * (1 + 1j)) <= T.DIE_RADIUS * T.FACE_PX
    rows = np.flatnonzero(mask.any(axis=1))
    lo, hi = int(rows[0]), int(rows[-1]) + 1
    return mask[lo:hi, lo:hi], lo, hi


def _median(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)``, without its overhead (it runs for every crop)."""
    n = len(values)
    half = n // 2
    if n % 2:
        return np.partition(values, half, axis=0)[half]
    part = np.partition(values, (half - 1, half), axis=0)
    return (part[half - 1] + part[half]) / 2


def _operators(v: int) -> tuple[np.ndarray, np.ndarray]:
    """For each turn of value ``v``'s ring against the pips sorted by angle: the
    operator giving the fit's residuals, and the one giving the grid's two
    columns (as complex numbers), each acting on the pips' complex positions."""
    ring = RINGS[v]
    m = len(ring)
    x = np.stack([ring.real, ring.imag], axis=1)
    residual, columns = [], []
    for shift in range(m):
        xs = np.roll(x, shift, axis=0)
        if v in (2, 3):
            # Two points fix only a similarity (a turn and a scale): one complex coefficient.
            lz = xs[:, 0] + 1j * xs[:, 1]
            coef = np.conj(lz)[None, :] / (np.abs(lz) ** 2).sum()
            hat = lz[:, None] @ coef
            columns.append(np.vstack([coef, 1j * coef]))
        else:
            pinv = np.linalg.pinv(xs)
            hat = xs @ pinv
            columns.append(pinv.astype(complex))
        residual.append(np.eye(m) - hat)
    return np.array(residual), np.array(columns)


OPERATORS = {v: _operators(v) for v in RINGS}


def _fit(v: int, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit ``pts`` (n, v) to value ``v``'s layout.

    Returns the layouts' centres (n,), the grid's two columns as complex
    numbers (n, 2) and the residuals in grid steps (n,).
    """
    n = pts.shape[0]
    c = pts.mean(axis=1)
    if v == 1:
        return c, np.zeros((n, 2), complex), np.zeros(n)
    rel = pts - c[:, None]
    if _CENTRE[v]:
        ic = np.argmin(np.abs(rel), axis=1)
        centre_res = np.abs(rel[np.arange(n), ic])
        keep = np.ones(rel.shape, bool)
        keep[np.arange(n), ic] = False
        ring = rel[keep].reshape(n, v - 1)
    else:
        centre_res = np.zeros(n)
        ring = rel
    ring = np.take_along_axis(ring, np.argsort(np.angle(ring), axis=1), axis=1)
    residual_ops, column_ops = OPERATORS[v]
    res = np.einsum("kij,nj->nki", residual_ops, ring)
    err = np.sqrt((np.abs(res) ** 2).sum(axis=2) + centre_res[:, None] ** 2)  # (n, shifts)
    best = np.argmin(err, axis=1)
    cols = np.einsum("nij,nj->ni", column_ops[best], ring)
    det = np.abs(np.imag(np.conj(cols[:, 0]) * cols[:, 1]))
    step = np.sqrt(det) + 1e-6
    return c, cols, err[np.arange(n), best] / np.sqrt(v) / step


def _singular(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The larger and smaller singular values of the 2x2 grids given by their columns."""
    det = np.abs(np.imag(np.conj(cols[:, 0]) * cols[:, 1]))
    f = (np.abs(cols) ** 2).sum(axis=1)
    root = np.sqrt(np.maximum(f * f - 4 * det * det, 0.0))
    return np.sqrt((f + root) / 2), np.sqrt(np.maximum((f - root) / 2, 0.0))


def read_face(image: np.ndarray | Halvings, x: float, y: float, side: float) -> FaceReading | None:
    """Read the die whose top face is about ``side`` px across around (x, y) in ``image``."""
    return read_faces(image, [(x, y, side)])[0]


def read_faces(
    image: np.ndarray | Halvings,
    places: list[tuple[float, float, float]],
    seen: list[np.ndarray] | None = None,
) -> list[FaceReading | None]:
    """Read each die of ``places`` ((x, y, side) in frame pixels) in ``image``.

    The finder's size is only roughly the face's, so each face is read at a few
    sizes around it; the value most of them give wins, the best-scored reading
    of that value stands for it. ``seen``, per place, is the verifier's
    probabilities for each value (``vision.verify``): a face read at the
    finder's size as the value the verifier surely sees, with a clear lead,
    is not read again at the other sizes (they would only agree); one the verifier likely
    sees as another value than its pips give is read larger too, and a larger reading of
    the verifier's value stands for it (the finder sized it small, its outer pips unseen).
    Failing that, where the verifier is sure, a reading of that value at the first sizes
    stands, a finer pip grid allowed (``T.DOUBTED_STEP``): a die seen at a slant, its side
    in the finder's spot, shows a face smaller than the spot, its pips closer than a face's."""
    image = Halvings.of(image)
    first = _read_recentred(image, [(x, y, side * T.SIZES[0]) for x, y, side in places])
    rest = [
        i
        for i, r in enumerate(first)
        if seen is None or r is None or r.lead < T.SETTLED_LEAD or seen[i][r.value] < T.SETTLED_SEEN
    ]
    others = T.SIZES[1:]
    more = _read_recentred(
        image, [(places[i][0], places[i][1], places[i][2] * k) for i in rest for k in others]
    )
    per_place = [[r] for r in first]
    for n, i in enumerate(rest):
        per_place[i] += more[n * len(others) : (n + 1) * len(others)]
    voted = [_vote(readings) for readings in per_place]
    # Faces the verifier sees as another value than their pips give: read larger too.
    doubted = []
    for i, r in enumerate(voted if seen is not None else []):
        v = seen_value(seen[i])
        if r is not None and v != r.value and seen[i][v] >= T.SEEN_LARGER:
            doubted.append((i, v))
    _take_seen(voted, doubted, image, places, T.LARGER, T.STEP_RANGE[0])
    # Those still read otherwise, and surely seen so: a face smaller than its spot (a die at a slant,
    # its side in the spot) has its pips closer than a face's, so its own layout is sought with a
    # finer grid allowed.
    doubted = [(i, v) for i, v in doubted if voted[i].value != v and seen[i][v] >= T.SEEN_OTHER]
    _take_seen(voted, doubted, image, places, T.SIZES, T.DOUBTED_STEP)
    # Sharpness is measured on the crop that stands for each die only: it is costly.
    for r in voted:
        if r is not None and r.crop is not None:
            r.sharpness, r.crop = sharpness(r.crop), None
    return voted


def _take_seen(
    voted: list[FaceReading | None],
    doubted: list[tuple[int, int]],
    image: Halvings,
    places: list[tuple[float, float, float]],
    sizes: tuple[float, ...],
    least_step: float,
) -> None:
    """Read each doubted place (index, the verifier's value) again at ``sizes`` (times the
    finder's); the best reading of the verifier's value there, if any, stands for it."""
    again = _read_recentred(
        image, [(*places[i][:2], places[i][2] * k) for i, _ in doubted for k in sizes], least_step
    )
    n = len(sizes)
    for j, (i, v) in enumerate(doubted):
        hits = [r for r in again[j * n : (j + 1) * n] if r is not None and r.value == v]
        if hits:
            voted[i] = max(hits, key=lambda r: r.score)
            voted[i].agreement = len(hits) / n


def seen_value(opinion: np.ndarray) -> int:
    """The value the verifier's ``opinion`` (``vision.verify``) rates most likely."""
    return int(np.argmax(opinion[1:])) + 1


def _read_recentred(
    image: Halvings, places: list[tuple[float, float, float]], least_step: float = T.STEP_RANGE[0]
) -> list[FaceReading | None]:
    """Each of ``places`` read, and read again centred on its pips where they lie off its centre.

    The finder centres the die's body; the face (and its colour) may lie off
    that centre on a die seen at a slant."""
    first = _read_crops(image, places, least_step)
    again = []
    for i, r in enumerate(first):
        x, y, side = places[i]
        if r is not None and T.RECENTRE:
            centre = np.mean(r.pips)
            if abs(centre - complex(x, y)) >= T.RECENTRE * side:
                again.append((i, (centre.real, centre.imag, side)))
    for (i, _), second in zip(
        again, _read_crops(image, [place for _, place in again], least_step), strict=True
    ):
        if second is not None and second.score >= first[i].score:
            # Recentred on a side face's pips, the crop may lose the top face's above them.
            second.above = max(second.above, first[i].above)
            first[i] = second
    return first


def _vote(first: list[FaceReading | None]) -> FaceReading | None:
    readings = [r for r in first if r is not None]
    if not readings:
        return None
    votes: dict[int, list[FaceReading]] = {}
    for r in readings:
        votes.setdefault(r.value, []).append(r)
    value = max(votes, key=lambda v: (len(votes[v]), max(r.score for r in votes[v])))
    best = max(votes[value], key=lambda r: r.score)
    best.agreement = len(votes[value]) / len(readings)
    return best


def _read_crops(
    image: Halvings, places: list[tuple[float, float, float]], least_step: float = T.STEP_RANGE[0]
) -> list[FaceReading | None]:
    """The best reading of each (x, y, side) in ``places``, all weighed in one batch
    (a place read before in the frame is not read again; each caller gets its own copy).

    A face's pips are all darker or all lighter: of a crop's pip maps, the one
    whose best hypothesis scores highest is read."""
    asked = [("face", *place, least_step) for place in places]
    new = list(dict.fromkeys(a for a in asked if a not in image.memo))
    for a, reading in zip(new, _read_new(image, [a[1:4] for a in new], least_step), strict=True):
        image.memo[a] = reading
    return [None if image.memo[a] is None else replace(image.memo[a]) for a in asked]


def _read_new(
    image: Halvings, places: list[tuple[float, float, float]], least_step: float
) -> list[FaceReading | None]:
    crops, looks = [], []
    for x, y, side in places:
        crop = face_crop(image, x, y, side)
        maps = pip_maps(crop)
        strength = blob_strength(maps)
        crops.append((crop, maps, strength))
        looks += candidates(strength)
    weighed = _weigh(looks, least_step)
    out: list[FaceReading | None] = []
    n_maps = len(looks) // max(len(places), 1)
    for j, (x, y, side) in enumerate(places):
        options = [(w, i) for i, w in enumerate(weighed[j * n_maps : (j + 1) * n_maps]) if w is not None]
        if not options:
            out.append(None)
            continue
        w, i = max(options, key=lambda o: o[0][1])
        value, score, lead, residual, slant, z, above = w
        crop, maps, strength = crops[j]
        pmap = maps[:, :, i]
        on = pmap > 0
        contrast = float(_median(pmap[on])) if on.any() else 0.0
        pips = x + 1j * y + z * side / T.FACE_PX
        middle = _centre(strength[:, :, i], z) if value == 2 else 0.0
        out.append(
            FaceReading(
                value,
                lead,
                score,
                contrast,
                residual,
                pips,
                slant=slant,
                above=above,
                centre=middle,
                crop=crop,
            )
        )
    return out


def _above(z: np.ndarray, b: np.ndarray, taken: np.ndarray) -> float:
    """The strongest blob left out that lies above every pip ``taken`` (of blobs at ``z``,
    strengths ``b``), as a share of their mean strength: at a slant, a side face's reading
    leaves the top face's pips above it."""
    left = ~taken & (z.imag < z[taken].imag.min() - T.ABOVE_GAP * T.FACE_PX)
    return float(b[left].max() / b[taken].mean()) if left.any() else 0.0


def _centre(strength: np.ndarray, pips: np.ndarray) -> float:
    """The strongest blob within ``T.CENTRE_REACH`` face pixels of the middle of ``pips``
    (face pixels from the crop's centre), as a share of their mean strength: a 3 whose
    middle pip is faint reads as a 2 with something at its middle."""
    n = strength.shape[0]
    at = pips + (n / 2 - 0.5) * (1 + 1j)
    rows, cols = (np.clip(np.round(c), 0, n - 1).astype(int) for c in (at.imag, at.real))
    own = np.mean(strength[rows, cols])
    mid = at.mean()
    r = T.CENTRE_REACH
    y0, x0 = max(round(mid.imag) - r, 0), max(round(mid.real) - r, 0)
    window = strength[y0 : round(mid.imag) + r + 1, x0 : round(mid.real) + r + 1]
    return float(window.max() / max(own, 1e-6)) if window.size else 0.0


def sharpness(crop: np.ndarray) -> float:
    """How sharp the die's edges are: the steepest steps of lightness over its range
    (a blurred or moving die steps over several pixels)."""
    grey = crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    grey = grey.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    lo, hi = np.percentile(grey, (5, 95))
    return float(np.percentile(mag, 98) / (8.0 * max(hi - lo, 8.0)))


def _table(n: int) -> list[tuple[int, np.ndarray]]:
    """Every hypothesis open to ``n`` candidates: per value, its subsets of them."""
    per_value = [(v, SUBSETS[v][(SUBSETS[v] < n).all(axis=1)]) for v in range(1, 7)]
    return [(v, subs) for v, subs in per_value if len(subs)]


TABLES = {n: _table(n) for n in range(1, T.CANDIDATES + 1)}


def _sloped(lbs: np.ndarray, member: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The log-likelihood of pips' log-strengths ``lbs`` (rows, width; the pips
    marked in ``member``, at ``z``) lying on a plane across the face, the plane's
    slope itself a draw of spread ``T.LIGHT_SLOPE`` per side."""
    x = np.stack([np.ones(z.shape), z.real, z.imag], axis=2)
    ridge = (T.PIP_SPREAD * T.FACE_PX / T.LIGHT_SLOPE) ** 2
    a = np.einsum("rw,rwi,rwj->rij", member, x, x) + ridge * np.diag([0.0, 1.0, 1.0])
    coef = np.linalg.solve(a, np.einsum("rw,rwi,rw->ri", member, x, lbs)[:, :, None])[:, :, 0]
    off = lbs - np.einsum("rwi,ri->rw", x, coef)
    return -((member * off**2).sum(axis=1) + ridge * (coef[:, 1] ** 2 + coef[:, 2] ** 2)) / (
        2 * T.PIP_SPREAD**2
    )


def _weigh(
    looks: list[tuple[np.ndarray, np.ndarray]], least_step: float = T.STEP_RANGE[0]
) -> list[tuple | None]:
    """Weigh every hypothesis of every look (a crop's candidate blobs on one pip
    map) in one batch: per look, its best hypothesis as (value, score, lead,
    residual, slant, pip positions in face pixels), or None if none fits."""
    width = T.CANDIDATES
    counts = np.array([len(z) for z, _ in looks], dtype=int)
    lb = np.zeros((len(looks), width))
    zs = np.zeros((len(looks), width), complex)
    for i, (z, b) in enumerate(looks):
        if len(z):
            lb[i, : len(z)] = np.log(b / b[0] + 1e-6)
            zs[i, : len(z)] = z
    present = (np.arange(width) < counts[:, None]).astype(float)
    # Looks with as many candidates share their hypotheses: built a count at a time.
    by_value: dict[int, list] = {v: [] for v in range(1, 7)}
    for n in np.unique(counts[counts > 0]):
        same = np.flatnonzero(counts == n)
        row = 0
        for v, subs in TABLES[int(n)]:
            # Each look's rows in its own order (value, then subset), so ties go as they always have.
            rank = (same[:, None] * 10_000 + row + np.arange(len(subs))).ravel()
            by_value[v].append((same, subs, rank))
            row += len(subs)
    parts = []
    for v in range(1, 7):
        if not by_value[v]:
            continue
        pts = np.concatenate([zs[same][:, subs].reshape(-1, v) for same, subs, _ in by_value[v]])
        c, cols, r = _fit(v, pts)
        look = np.concatenate([np.repeat(same, len(subs)) for same, subs, _ in by_value[v]])
        member = np.zeros((len(look), width))
        taken = np.concatenate([np.tile(subs, (len(same), 1)) for same, subs, _ in by_value[v]])
        np.put_along_axis(member, taken, 1.0, axis=1)
        rank = np.concatenate([rank for _, _, rank in by_value[v]])
        parts.append((np.full(len(look), v), look, c, cols, r, member, rank))
    if not parts:
        return [None] * len(looks)
    values, look, c, cols, r, member, order = (np.concatenate(a) for a in zip(*parts, strict=True))
    order = np.argsort(order, kind="stable")
    values, look, c, cols, r, member = (a[order] for a in (values, look, c, cols, r, member))
    ok = np.abs(c) <= np.where(values == 1, T.CENTRE_1, T.CENTRE_MAX) * T.FACE_PX
    big, small = _singular(cols)
    step = np.sqrt(big * small)
    layout = (small > 0) & (big <= T.SLANT_MAX * small)
    layout &= (step >= least_step * T.FACE_PX) & (step <= T.STEP_RANGE[1] * T.FACE_PX)
    ok &= (values == 1) | layout
    # Pips of one face are about equally strong; the blobs left out lie well below them.
    lbs = lb[look]
    mu = (member * lbs).sum(axis=1) / values
    ll_on = -(member * (lbs - mu[:, None]) ** 2).sum(axis=1) / (2 * T.PIP_SPREAD**2)
    # Light may fall across a face unevenly: four pips or more may follow a slope.
    spread = np.flatnonzero(values >= 4)
    ll_on[spread] = _sloped(lbs[spread], member[spread], zs[look[spread]])
    above = np.maximum(0.0, lbs - mu[:, None] - T.NOISE_LEVEL)
    off = (1 - member) * present[look]
    ll_off = (off * np.log(np.exp(-(above**2) / (2 * T.NOISE_SPREAD**2)) + T.STRAY)).sum(axis=1)
    score = np.where(ok, ll_on + ll_off - r**2 / (2 * T.FIT_SPREAD**2), -np.inf)
    return _best(looks, look, values, score, ok, r, big, small, member)


def _best(
    looks: list,
    look: np.ndarray,
    values: np.ndarray,
    score: np.ndarray,
    ok: np.ndarray,
    r: np.ndarray,
    big: np.ndarray,
    small: np.ndarray,
    member: np.ndarray,
) -> list:
    """Per look, its best-scored hypothesis (the first of equals) and its lead over
    the best of another value (rows grouped by look, and within it by value)."""
    out: list[tuple | None] = [None] * len(looks)
    starts = np.flatnonzero(np.r_[True, look[1:] != look[:-1]])
    fits = np.logical_or.reduceat(ok, starts)
    top = np.maximum.reduceat(score, starts)
    owner = look[starts]
    first = np.full(len(looks), -1)
    rows = np.flatnonzero(score == np.repeat(top, np.diff(np.r_[starts, len(look)])))
    hit, at = np.unique(look[rows], return_index=True)
    first[hit] = rows[at]
    # Each value's best within each look, to find the best of the other values.
    key = look * 8 + values
    groups = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    per_value = np.full((len(looks), 8), -np.inf)
    per_value[look[groups], values[groups]] = np.maximum.reduceat(score, groups)
    idx = owner[fits]
    k = first[idx]
    chosen = values[k]
    others = per_value[idx]
    others[np.arange(len(idx)), chosen] = -np.inf
    rival = others.max(axis=1)
    with np.errstate(invalid="ignore"):
        lead = np.minimum(np.where(np.isfinite(rival), score[k] - rival, T.LEAD_ALONE), T.LEAD_ALONE)
    flat = (chosen == 1) | (small[k] <= 0)
    slant = np.where(flat, 1.0, big[k] / np.where(flat, 1.0, small[k]))
    for i, row, value, led, sl in zip(idx, k, chosen, lead, slant, strict=True):
        z = looks[i][0]
        taken = member[row, : len(z)] > 0
        out[i] = (
            int(value),
            float(score[row]),
            float(led),
            float(r[row]),
            float(sl),
            z[taken],
            _above(*looks[i], taken),
        )
    return out
