"""Candidate pips: the first step of the pip-first reader (``vision.reader``).

``candidates(image, grey, lab)`` finds blobs in a difference-of-Gaussians
image, dark-on-light and light-on-dark (and in the colour channels on the
finer levels), keeps those round and compact enough to be pips and ringed by
one face colour, and returns them as ``Pips``: centres, radii, polarity and
the face colour around each. ``LabSampler`` and ``Levels`` give Lab colours
at the points asked for, converting only the pixels sampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import pixels

# Tunables (one configuration for every photo).
DOG_BOX = 9  # width of the box filter standing in for the coarse blur
DOG_THRESHOLD = 16.0  # grey levels of local contrast a pip must have
PIP_MIN_AREA = 5
COLOUR_PIP_CONTRAST = 30.0  # the same, in the colour channels
COLOUR_CHANNELS = (2, 1)  # red, then green (of BGR)
COLOUR_LEVELS = 2  # pyramid levels searched in the colour channels too
RING_TOLERANCE = 30.0  # Lab distance around a pip still counted as its face
RING_EVEN = 0.4  # share of the ring around a pip that must be its face
MAX_PIPS = 400  # candidate pips kept per channel and level, strongest first
PIP_CONTRAST = 45.0  # grey levels between a pip's core and the face around it
PIP_MAX_AREA = 260


class LabSampler:
    """Lab colours of an image at the points asked for.

    Only the sampled pixels are converted: a level's rings and rays sample a
    few thousand of them, while converting a whole 640x640 photo took 3.2 ms.
    Once the samples add up to a quarter of the image, it is converted whole.
    """

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.shape = img.shape
        self._pixels = img.reshape(-1, 3)
        self._lab: np.ndarray | None = None
        self._budget = img.shape[0] * img.shape[1] // 4

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        # (taking rows of the flat image by index costs a third of indexing by (y, x))
        at = index[0] * self.shape[1] + index[1]
        if self._lab is not None:
            return self._lab.take(at, axis=0)
        bgr = self._pixels.take(at, axis=0)
        self._budget -= bgr.size // 3
        if self._budget < 0:
            self._lab = cv2.cvtColor(self.img, cv2.COLOR_BGR2LAB).reshape(-1, 3)
            return self._lab.take(at, axis=0)
        if bgr.size == 0:
            return bgr
        # (one row converts 2-3x faster than one column)
        return cv2.cvtColor(bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(bgr.shape)


@dataclass
class Pips:
    """Candidate pips, one per element: centre (x, y) and radius r in the
    level's pixels, and polarity (1 lighter than its face, -1 darker)."""

    x: np.ndarray
    y: np.ndarray
    r: np.ndarray
    polarity: np.ndarray
    face: np.ndarray  # Lab colour of the face around each pip
    # which of the pyramid levels read together (``Levels``) each pip is on; None: all on one
    level: np.ndarray | None = None

    def subset(self, idx: list[int]) -> Pips:
        """The pips at the indices ``idx``, in that order."""
        i = np.asarray(idx, dtype=int)
        level = None if self.level is None else self.level[i]
        return Pips(self.x[i], self.y[i], self.r[i], self.polarity[i], self.face[i], level)


class Levels:
    """The Lab samplers of several pyramid levels read together, each pip, pair or
    face sampling its own level's image (``limits`` and ``lab_at``).

    Reading the levels of a frame together makes one stack of each grouping
    and fitting step instead of one per level: a level's steps are a few
    hundred small numpy calls whatever its number of pips (stacked, the
    pip-first pass took 24.2 instead of 26.3 ms CPU at 640x480).
    """

    def __init__(self, labs: list[LabSampler]) -> None:
        self.labs = labs
        self.w1 = np.array([lab.shape[1] - 1 for lab in labs])
        self.h1 = np.array([lab.shape[0] - 1 for lab in labs])
        # Every level's pixels end to end, so that a sample on any level is one
        # index and one conversion, with no pass per level. (The conversion is
        # per pixel: sampled or whole, a pixel gets the same Lab colour.)
        self._sampler = LabSampler(np.concatenate([lab._pixels for lab in labs])[None])
        self._first = np.cumsum([0] + [lab.shape[0] * lab.shape[1] for lab in labs[:-1]])
        self._width = np.array([lab.shape[1] for lab in labs])

    def at(self, level: np.ndarray, sy: np.ndarray, sx: np.ndarray) -> np.ndarray:
        return self._sampler[np.zeros_like(sy), self._first[level] + sy * self._width[level] + sx]


def limits(lab: np.ndarray | LabSampler | Levels, level: np.ndarray | None) -> tuple:
    """Largest x and y in the image(s) of ``lab``: one each, or per element of ``level``."""
    if isinstance(lab, Levels):
        return lab.w1[level], lab.h1[level]
    h, w = lab.shape[:2]
    return w - 1, h - 1


def lab_at(
    lab: np.ndarray | LabSampler | Levels, level: np.ndarray | None, sy: np.ndarray, sx: np.ndarray
) -> np.ndarray:
    """Lab colours at (sy, sx), on each point's own level when ``lab`` holds several."""
    if isinstance(lab, Levels):
        return lab.at(level, sy, sx)
    return lab[sy, sx]


def _split_blob(
    m: tuple[float, float, float, float, float, float],
    small: np.ndarray,
    large: np.ndarray,
    polarity: int,
    box: tuple[int, int, int, int],
) -> list[tuple[float, float, float]]:
    """Pips (x, y, radius) in one blob; a blob of two or three touching pips is split.

    ``m``: the blob's moments (m00, m10, m01, mu20, mu02, mu11) in its bounding
    ``box`` (x, y, w, h); ``small`` and ``large`` are the channel's two blurs.
    """
    ox, oy, bw, bh = box
    area, m10, m01, mu20, mu02, mu11 = m
    cx, cy = m10 / area, m01 / area
    mu20, mu02, mu11 = mu20 / area, mu02 / area, mu11 / area
    common = math.sqrt(max(((mu20 - mu02) / 2) ** 2 + mu11**2, 0.0))
    major = math.sqrt(max((mu20 + mu02) / 2 + common, 1e-6))
    minor = math.sqrt(max((mu20 + mu02) / 2 - common, 1e-6))
    elong = major / minor
    if elong < 1.6:
        if area < 0.5 * math.pi * (2 * major) * (2 * minor) / 4:
            return []
        return [(cx + ox, cy + oy, math.sqrt(area / math.pi))]
    # A run of k round pips has major/minor about sqrt((k^2 - 1) / 3 * 4 + 1).
    k = 2 if elong < 2.6 else 3 if elong < 3.8 else 0
    if k == 0:
        return []
    theta = 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    ux, uy = math.cos(theta), math.sin(theta)
    length = major * math.sqrt(3)  # half length of the run along its axis
    step = 2 * length / k
    r = math.sqrt(area / k / math.pi)
    out = []

    def dog(px: float, py: float) -> int:
        # The difference of the blurs at a point of the box (clamped to it).
        iy = oy + min(bh - 1, max(0, int(round(py))))
        ix = ox + min(bw - 1, max(0, int(round(px))))
        return polarity * (int(small[iy, ix]) - int(large[iy, ix]))

    peaks = []
    for i in range(k):
        t = -length + step * (i + 0.5)
        px, py = cx + ux * t, cy + uy * t
        out.append((px + ox, py + oy, r))
        peaks.append(dog(px, py))
    # Touching pips leave a dip between them; a streak or an edge does not.
    for i in range(k - 1):
        t = -length + step * (i + 1)
        px, py = cx + ux * t, cy + uy * t
        if dog(px, py) > 0.85 * min(peaks[i], peaks[i + 1]):
            return []
    return out


_RING = np.linspace(0, 2 * math.pi, 12, endpoint=False)
_RING_COS, _RING_SIN = np.cos(_RING), np.sin(_RING)


def _moments(labels: np.ndarray, st: np.ndarray, ids: np.ndarray) -> list[tuple[float, ...]]:
    """``cv2.moments`` (m00, m10, m01, mu20, mu02, mu11) of blobs ``ids`` in their boxes, all at once.

    One ``cv2.moments`` call per blob, with its mask cut out, cost ~50 us and a
    photo has hundreds of elongated blobs. The raw moments are sums of small
    integers, so exact; the central ones follow OpenCV's formulas (equal to
    ``cv2.moments`` on the 10,180 blobs of every fifth train photo).
    """
    bx, by, bw, bh = (st[ids, k] for k in range(4))
    cells = bw * bh
    blob = np.repeat(np.arange(len(ids)), cells)
    k = np.arange(int(cells.sum())) - np.repeat(np.cumsum(cells) - cells, cells)
    lx, ly = np.divmod(k, bw[blob])[::-1]
    inside = labels[by[blob] + ly, bx[blob] + lx] == (ids + 1)[blob]
    blob = blob[inside]
    lx = lx[inside].astype(float)
    ly = ly[inside].astype(float)
    n = len(ids)
    m00 = np.bincount(blob, minlength=n).astype(float)
    m10 = np.bincount(blob, lx, n)
    m01 = np.bincount(blob, ly, n)
    inv = 1.0 / m00
    mu20 = np.bincount(blob, lx * lx, n) - m10 * (m10 * inv)
    mu02 = np.bincount(blob, ly * ly, n) - m01 * (m01 * inv)
    mu11 = np.bincount(blob, lx * ly, n) - m10 * (m01 * inv)
    return list(zip(*(v.tolist() for v in (m00, m10, m01, mu20, mu02, mu11)), strict=True))


_BOX3 = np.array([-1, 0, 1])


def _box3(channel: np.ndarray, iy: np.ndarray, ix: np.ndarray) -> np.ndarray:
    """``cv2.blur(channel, (3, 3))[iy, ix]``, the same values, at the points only.

    Blurring a whole 640x640 channel for a few hundred samples cost ~0.3 ms a
    call. The edges reflect as OpenCV's default border does (101), and the
    rounding of ``sum / 9`` is never a tie, so this equals the filter exactly.
    """
    h, w = channel.shape
    ys = np.abs(iy[:, None] + _BOX3)
    ys = np.where(ys > h - 1, 2 * (h - 1) - ys, ys)
    xs = np.abs(ix[:, None] + _BOX3)
    xs = np.where(xs > w - 1, 2 * (w - 1) - xs, xs)
    s = channel[ys[:, :, None], xs[:, None, :]].reshape(len(iy), 9).sum(axis=1, dtype=np.int32)
    return (2 * s + 9) // 18


def _blobs(
    channel: np.ndarray, polarities: tuple[int, ...] = (1, -1), min_contrast: float = 0.0
) -> tuple[np.ndarray, ...]:
    """Pip-like blobs (x, y, radius, polarity) in one image channel."""
    # Difference of a light and a wide blur; the wide one is a box filter,
    # which costs the same at any width.
    small = cv2.GaussianBlur(channel, (3, 3), 0)
    large = cv2.blur(channel, (DOG_BOX, DOG_BOX))
    xs, ys, rs, ps = [], [], [], []
    h, w = channel.shape
    # 16-bit labels make the labelling with statistics 3-5x faster (3.1-5.5 ms
    # down to 0.9-1.7 ms on a 640x640 photo). After the opening every blob
    # holds a 3x3 square and blobs are apart, so there are at most h * w / 16.
    label_type = cv2.CV_16U if h * w // 16 < 65535 else cv2.CV_32S
    for polarity in polarities:
        # polarity * (small - large) > DOG_THRESHOLD, on integers: a saturating
        # 8-bit difference is 6x faster than a signed 16-bit one (0.03 against
        # 0.17 ms on 640x640) and equal wherever it is above the threshold.
        dog = cv2.subtract(small, large) if polarity > 0 else cv2.subtract(large, small)
        mask = cv2.compare(dog, math.floor(DOG_THRESHOLD) + 1, cv2.CMP_GE)
        # The mask is opened and labelled only in the box around its pixels
        # (with a pixel of margin; a quarter of the image at the median on
        # byler-d6/train): the labelling's statistics visit every pixel,
        # background too. The box starts on even coordinates, so the labeller
        # meets the blobs in the same order as on the whole mask.
        bx, by, bw, bh = cv2.boundingRect(mask)
        if bw == 0:
            continue
        x0, y0 = max(0, bx - 1) & ~1, max(0, by - 1) & ~1
        mask = mask[y0 : min(h, by + bh + 1), x0 : min(w, bx + bw + 1)]
        # Opening cuts the thin necks that join neighbouring pips on small dice.
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, pixels.K3)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=label_type)
        if n <= 1:
            continue
        st = stats[1:]
        bw, bh, area = st[:, 2], st[:, 3], st[:, 4]
        cents = cents[1:]
        if x0 or y0:
            # Centroids in the image: the sums of coordinates are whole numbers,
            # recovered exactly from the box's centroids, then shifted.
            cents = (np.rint(cents * area[:, None]) + np.array([x0, y0]) * area[:, None]) / area[:, None]
        sized = (area >= PIP_MIN_AREA) & (area <= 3 * PIP_MAX_AREA)
        round_ = (
            sized
            & (area <= PIP_MAX_AREA)
            & (np.maximum(bw, bh) <= 1.5 * np.minimum(bw, bh) + 1)
            & (area >= 0.55 * bw * bh)
        )
        xs.append(cents[:, 0][round_])
        ys.append(cents[:, 1][round_])
        rs.append(np.sqrt(area[round_] / math.pi))
        ps.append(np.full(len(xs[-1]), polarity))
        # Elongated blobs may be two or three touching pips.
        ids = np.nonzero(sized & ~round_)[0]
        if not len(ids):
            continue
        split = []
        boxes = (st[ids, :4] + np.array([x0, y0, 0, 0])).tolist()
        for m, box in zip(_moments(labels, st, ids), boxes, strict=True):
            for px, py, r in _split_blob(m, small, large, polarity, box):
                if math.pi * r * r <= PIP_MAX_AREA:
                    split.append((px, py, r))
        if split:
            sx, sy, sr = zip(*split, strict=True)
            xs.append(np.array(sx))
            ys.append(np.array(sy))
            rs.append(np.array(sr))
            ps.append(np.full(len(split), polarity))
    if not xs:
        e = np.zeros(0)
        return e, e, e, e.astype(int)
    x, y, r, p = (np.concatenate(a).astype(float) for a in (xs, ys, rs, ps))
    if len(x) == 0:
        return x, y, r, p.astype(int)
    # A real pip differs from the face all round it; the patch of face between
    # dark pips also looks like a (light) blob, but its ring is mostly face.
    rr = r[:, None] * 1.5 + 1.0
    sx = np.clip(np.rint(x[:, None] + rr * _RING_COS), 0, w - 1).astype(int)
    sy = np.clip(np.rint(y[:, None] + rr * _RING_SIN), 0, h - 1).astype(int)
    ring = pixels.median(channel[sy, sx].astype(np.float32), axis=1)
    ix = np.clip(np.rint(x), 0, w - 1).astype(int)
    iy = np.clip(np.rint(y), 0, h - 1).astype(int)
    core = _box3(channel, iy, ix).astype(np.float32)
    contrast = p * (core - ring)
    keep = np.nonzero(contrast > (min_contrast or PIP_CONTRAST))[0]
    if len(keep) > MAX_PIPS:
        # A busy pattern (print, gravel) gives thousands of blobs; the
        # strongest are kept so that the time per frame stays bounded.
        keep = keep[np.argsort(-contrast[keep])[:MAX_PIPS]]
    return x[keep], y[keep], r[keep], p[keep].astype(int)


def candidates(img: np.ndarray, grey: np.ndarray, lab: np.ndarray, colour: bool = True) -> Pips:
    """The candidate pips of one pyramid level (``img``, its grey and its Lab
    sampler): round, compact blobs of either polarity ringed by one face
    colour; with ``colour``, blobs of the colour channels too."""
    h, w = grey.shape
    x, y, r, p = _blobs(grey)
    # Coloured pips barely differ in brightness from their face: red pips on a
    # black or blue die show in the red channel, gold pips on a red die in the
    # green one, both brighter than the face. Blobs already found are not
    # counted twice.
    for channel in COLOUR_CHANNELS if colour else ():
        # (OpenCV copies a strided channel on every call: copied once here,
        # the filters on it run 3-5x faster)
        cx, cy, cr, cp = _blobs(np.ascontiguousarray(img[:, :, channel]), (1,), COLOUR_PIP_CONTRAST)
        if not len(cx):
            continue
        if len(x):
            d2 = (cx[:, None] - x[None, :]) ** 2 + (cy[:, None] - y[None, :]) ** 2
            new = ~(d2 < (np.maximum(cr[:, None], r[None, :]) * 1.5) ** 2).any(axis=1)
        else:
            new = np.ones(len(cx), bool)
        x, y, r, p = (np.concatenate(a) for a in ((x, cx[new]), (y, cy[new]), (r, cr[new]), (p, cp[new])))
    if len(x) == 0:
        e = np.zeros(0)
        return Pips(e, e, e, e.astype(int), np.zeros((0, 3)))
    # Face colour: median of a ring just outside the pip.
    rr = r[:, None] * 1.5 + 1.0
    sx = np.clip(np.rint(x[:, None] + rr * _RING_COS), 0, w - 1).astype(int)
    sy = np.clip(np.rint(y[:, None] + rr * _RING_SIN), 0, h - 1).astype(int)
    ring = lab[sy, sx].astype(np.float32)
    face = pixels.median(ring, axis=1)
    # A pip is ringed by its face; a blob on the border of two areas (a die's
    # edge against a hand, a shadow) has two colours around it.
    even = (np.sqrt(((ring - face[:, None, :]) ** 2).sum(-1)) < RING_TOLERANCE).mean(axis=1)
    ok = even >= RING_EVEN
    return Pips(x[ok], y[ok], r[ok], p[ok].astype(int), face[ok])
