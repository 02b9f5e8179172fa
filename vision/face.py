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
from dataclasses import dataclass

import cv2
import numpy as np

from vision import tunables as T

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


def face_crop(image: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    """The square around (x, y) resampled so that ``side`` pixels become ``T.FACE_PX``."""
    size = int(round(T.CROP * T.FACE_PX))
    k = T.FACE_PX / side
    h, w = image.shape[:2]
    if k < 0.8:
        # Shrink the neighbourhood with area averaging first, so small pips are not aliased away.
        half = size / 2 / k + 2
        x0, y0 = int(max(0, x - half)), int(max(0, y - half))
        x1, y1 = int(min(w, x + half + 1)), int(min(h, y + half + 1))
        sub = image[y0:y1, x0:x1]
        sw, sh = max(1, round((x1 - x0) * k)), max(1, round((y1 - y0) * k))
        sub = cv2.resize(sub, (sw, sh), interpolation=cv2.INTER_AREA)
        fx, fy = sw / (x1 - x0), sh / (y1 - y0)
        m = np.array([[1, 0, size / 2 - (x - x0) * fx], [0, 1, size / 2 - (y - y0) * fy]], np.float32)
        return cv2.warpAffine(sub, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    m = np.array([[k, 0, size / 2 - x * k], [0, k, size / 2 - y * k]], np.float32)
    return cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def pip_maps(crop: np.ndarray) -> list[np.ndarray]:
    """How unlike the face each pixel is, kept only in spots smaller than a pip's
    neighbourhood: one map for pips darker than the face, one for lighter ones
    (a face's pips are all one or the other; its rim's glints are not)."""
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
    n = crop.shape[0]
    yy, xx = np.mgrid[0:n, 0:n]
    centre = (xx - n / 2 + 0.5) ** 2 + (yy - n / 2 + 0.5) ** 2 <= (T.FACE_SAMPLE * T.FACE_PX) ** 2
    face = np.median(lab[centre], axis=0)
    d = lab - face
    chroma = T.CHROMA_WEIGHT**2 * (d[:, :, 1] ** 2 + d[:, :, 2] ** 2)
    r = int(round(T.TOPHAT * T.FACE_PX)) | 1
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r))
    maps = []
    for light in (np.abs(d[:, :, 0]), np.maximum(0.0, -d[:, :, 0]), np.maximum(0.0, d[:, :, 0]))[: T.POLARITIES]:
        maps.append(cv2.morphologyEx(np.sqrt(light**2 + chroma), cv2.MORPH_TOPHAT, k))
    return maps


def blob_strength(pmap: np.ndarray) -> np.ndarray:
    """Round spots of the pip map, at several pip sizes (lines such as a die's rim give little)."""
    best = np.zeros_like(pmap)
    for f in T.PIP_SIGMAS:
        s = f * T.FACE_PX
        g = cv2.GaussianBlur(pmap, (0, 0), s)
        hxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
        hyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
        hxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
        weaker = (hxx + hyy) / 2 + np.sqrt(((hxx - hyy) / 2) ** 2 + hxy**2)
        best = np.maximum(best, np.maximum(0.0, -weaker) * s * s)
    return best


def candidates(strength: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The strongest blobs within the die (positions relative to its centre, in face pixels)."""
    n = strength.shape[0]
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    peaks = (strength == cv2.dilate(strength, k)) & (
        strength > T.PEAK_FLOOR * max(float(strength.max()), 1e-6)
    )
    ys, xs = np.nonzero(peaks)
    z = xs + 1j * ys - (n / 2 - 0.5) * (1 + 1j)
    b = strength[ys, xs]
    keep = np.abs(z) <= T.DIE_RADIUS * T.FACE_PX
    z, b = z[keep], b[keep]
    order = np.argsort(-b)[: T.CANDIDATES]
    return z[order], b[order]


def _fit(v: int, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit ``pts`` (n, v) to value ``v``'s layout: centres (n,), grid matrices (n, 2, 2), residuals (n,)."""
    n = pts.shape[0]
    c = pts.mean(axis=1)
    if v == 1:
        return c, np.zeros((n, 2, 2)), np.zeros(n)
    rel = pts - c[:, None]
    if _CENTRE[v]:
        ic = np.argmin(np.abs(rel), axis=1)
        centre_res = np.abs(rel[np.arange(n), ic])
        mask = np.ones(rel.shape, bool)
        mask[np.arange(n), ic] = False
        ring = rel[mask].reshape(n, v - 1)
    else:
        centre_res = np.zeros(n)
        ring = rel
    ring = np.take_along_axis(ring, np.argsort(np.angle(ring), axis=1), axis=1)
    layout = RINGS[v]
    m = len(layout)
    best_r = np.full(n, np.inf)
    best_a = np.zeros((n, 2, 2))
    x = np.stack([layout.real, layout.imag], axis=1)  # (m, 2)
    pinv = np.linalg.pinv(x)  # (2, m)
    for shift in range(m):
        y = np.roll(ring, -shift, axis=1)
        if v in (2, 3):
            # Two points fix only a similarity (turn and scale).
            a = (np.conj(layout)[None] * y).sum(axis=1) / (np.abs(layout) ** 2).sum()
            mat = np.stack([np.stack([a.real, -a.imag], -1), np.stack([a.imag, a.real], -1)], axis=1)
        else:
            yv = np.stack([y.real, y.imag], axis=2)  # (n, m, 2)
            mat = np.einsum("km,nmj->njk", pinv, yv)  # (n, 2, 2): y ~ mat @ x
        pred = np.einsum("njk,mk->nmj", mat, x)
        res = np.sqrt((np.abs(pred[..., 0] + 1j * pred[..., 1] - y) ** 2).sum(axis=1) + centre_res**2)
        scale = np.sqrt(np.abs(np.linalg.det(mat))) + 1e-6
        r = res / np.sqrt(v) / scale
        better = r < best_r
        best_r = np.where(better, r, best_r)
        best_a[better] = mat[better]
    return c, best_a, best_r


def read_face(image: np.ndarray, x: float, y: float, side: float) -> FaceReading | None:
    """Read the die whose top face is about ``side`` px across around (x, y) in ``image``."""
    first = _read_at(image, x, y, side)
    if first is None or not T.RECENTRE:
        return first
    # The finder centres the die's body; the face (and its colour) may lie off
    # that centre on a die seen at a slant: read again centred on its pips.
    centre = np.mean(first.pips)
    if abs(centre - complex(x, y)) < T.RECENTRE * side:
        return first
    second = _read_at(image, centre.real, centre.imag, side)
    return second if second is not None and second.score >= first.score else first


def _read_at(image: np.ndarray, x: float, y: float, side: float) -> FaceReading | None:
    crop = face_crop(image, x, y, side)
    readings = [_read_map(pmap, x, y, side) for pmap in pip_maps(crop)]
    readings = [r for r in readings if r is not None]
    return max(readings, key=lambda r: r.score) if readings else None


def _read_map(pmap: np.ndarray, x: float, y: float, side: float) -> FaceReading | None:
    z, b = candidates(blob_strength(pmap))
    if len(z) == 0:
        return None
    lb = np.log(b / b[0] + 1e-6)
    best_by_value: dict[int, tuple[float, np.ndarray, float]] = {}
    for v in range(1, 7):
        subs = SUBSETS[v]
        subs = subs[(subs < len(z)).all(axis=1)]
        if len(subs) == 0:
            continue
        c, mat, r = _fit(v, z[subs])
        ok = np.abs(c) <= (T.CENTRE_1 if v == 1 else T.CENTRE_MAX) * T.FACE_PX
        if v > 1:
            sv = np.linalg.svd(mat, compute_uv=False)
            step = np.sqrt(sv[:, 0] * sv[:, 1])
            ok &= (sv[:, 1] > 0) & (sv[:, 0] <= T.SLANT_MAX * sv[:, 1])
            ok &= (step >= T.STEP_RANGE[0] * T.FACE_PX) & (step <= T.STEP_RANGE[1] * T.FACE_PX)
        if not ok.any():
            continue
        subs, c, r = subs[ok], c[ok], r[ok]
        on = lb[subs]
        mu = on.mean(axis=1)
        ll_on = -((on - mu[:, None]) ** 2).sum(axis=1) / (2 * T.PIP_SPREAD**2)
        off = np.ones((len(subs), len(z)), bool)
        np.put_along_axis(off, subs, False, axis=1)
        d = lb[None, :] - mu[:, None]
        above = np.maximum(0.0, d - T.NOISE_LEVEL)
        ll_off = (np.log(np.exp(-(above**2) / (2 * T.NOISE_SPREAD**2)) + T.STRAY) * off).sum(axis=1)
        score = ll_on + ll_off - r**2 / (2 * T.FIT_SPREAD**2)
        i = int(np.argmax(score))
        best_by_value[v] = (float(score[i]), subs[i], float(r[i]))
    if not best_by_value:
        return None
    ranked = sorted(best_by_value, key=lambda v: -best_by_value[v][0])
    value = ranked[0]
    score, sub, residual = best_by_value[value]
    lead = score - best_by_value[ranked[1]][0] if len(ranked) > 1 else 10.0
    k = T.FACE_PX / side
    pips = x + 1j * y + z[sub] / k
    contrast = float(np.median(pmap[pmap > 0])) if (pmap > 0).any() else 0.0
    return FaceReading(value, lead, score, contrast, residual, pips)
