"""Small helpers on images and pixel lists that the readers share.

The readers call medians and percentiles thousands of times a frame on short
lists, where numpy's own functions cost more in overhead (~50 us a call) than
in work; the versions here give the same values by partial sorting.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# Grey and two colour-opponent axes (red-green, yellow-blue) as one linear map
# of BGR: rows (grey, red-green, yellow-blue). One cv2.transform with it costs
# a sixth of OpenCV's Lab conversion; scaled per row, it is roughly on Lab's
# scale (see vision.quality).
OPPONENT = np.float32([[0.114, 0.587, 0.299], [0.0, -0.5, 0.5], [-0.5, 0.25, 0.25]])
# The colours a die's face is judged in: grey (0-255) and the two opponent
# axes on the scale of OpenCV's 8-bit Lab (which costs six times as much).
FACE_OPPONENT = OPPONENT * np.float32([[1.0], [300 / 255], [300 / 255]])
# cv2.transform with this sums a pixel's three channels (squared distances).
SUM3 = np.ones((1, 3), np.float32)
# The 3x3 square: the readers' smallest morphology kernel and local-max window.
K3 = np.ones((3, 3), np.uint8)


def as_bgr(image: object, who: str = "the dice reader") -> np.ndarray:
    """``image`` (BGR, BGRA or grey; any number type) as a contiguous 8-bit BGR array.

    Raises ValueError naming ``who`` for anything that is not an image array.
    """
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError(f"{who} needs a BGR image array")
    if image.ndim == 3 and image.shape[2] not in (3, 4):
        raise ValueError(f"{who} needs a BGR image array")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    # (a strided view makes OpenCV's colour conversions far slower)
    return np.ascontiguousarray(image)


def crop(image: np.ndarray, cx: float, cy: float, r: float) -> tuple[np.ndarray, int, int]:
    """The square of half side ``r`` around (cx, cy), cut at the image's edges, and its corner."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
    x1, y1 = min(w, int(cx + r) + 1), min(h, int(cy + r) + 1)
    return image[y0:y1, x0:x1], x0, y0


def shrink_by(image: np.ndarray, factor: int) -> np.ndarray:
    """``image`` shrunk by the whole number ``factor`` by area averaging (``image`` itself for 1).

    A whole factor keeps the resize on OpenCV's fast path; the measures taken
    on shrunk crops are means and ranks, which area averaging keeps.
    """
    if factor <= 1:
        return image
    size = (image.shape[1] // factor, image.shape[0] // factor)
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def box_side(box: list[float]) -> float:
    """The mean side of a box [x0, y0, x1, y1]."""
    return 0.5 * ((box[2] - box[0]) + (box[3] - box[1]))


def median(v: np.ndarray | list[float], axis: int = 0) -> np.ndarray:
    """``np.median(v, axis=axis)``, the same values, by partial sorting."""
    a = np.asarray(v)
    n = a.shape[axis]
    k = n // 2
    if n % 2:
        return np.partition(a, k, axis=axis).take(k, axis=axis)
    ranked = np.partition(a, (k - 1, k), axis=axis)
    return (ranked.take(k - 1, axis=axis) + ranked.take(k, axis=axis)) / 2


def percentiles(v: np.ndarray, qs: tuple[int, ...]) -> list[float]:
    """``np.percentile(v, qs)`` (linear), the same values."""
    s = np.sort(v).tolist()
    n = len(s)
    out = []
    for q in qs:
        at = (n - 1) * (q / 100)
        if at >= n - 1:
            out.append(s[-1])
            continue
        i = math.floor(at)
        t = at - i
        a, b = s[i], s[i + 1]
        # numpy's interpolation, rounding alike
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


def open_runs(mask: np.ndarray, line: np.ndarray) -> np.ndarray | None:
    """``cv2.morphologyEx(mask, cv2.MORPH_OPEN, line)``, or None where that is empty.

    For long line kernels (runs of walls and table edges): the opening is its
    erosion dilated, and the erosion is mostly empty, which spares the dilation.
    """
    eroded = cv2.erode(mask, line)
    if cv2.countNonZero(eroded) == 0:
        return None
    return cv2.dilate(eroded, line)
