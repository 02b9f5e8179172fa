"""The robustness suite's transforms: each changes a photo and its labels alike.

``TRANSFORMS`` maps a name to ``f(image, photo) -> (image, photo)``; ``tablepi
dice robust`` reads a dataset's photos through each and reports the drop in
die accuracy from the photos as taken. The transforms stand for what another
camera, lens, light or compression does to the same dice.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision import N_
from vision.datasets import Photo

Transform = Callable[[np.ndarray, Photo], tuple[np.ndarray, Photo]]


def _boxes(photo: Photo, move: Callable[[float, float], tuple[float, float]], scale: float) -> Photo:
    """The photo's labels with each box centre moved by ``move`` and its side scaled."""
    dice = []
    for value, (x0, y0, x1, y1) in photo.dice:
        cx, cy = move((x0 + x1) / 2, (y0 + y1) / 2)
        hw, hh = (x1 - x0) * scale / 2, (y1 - y0) * scale / 2
        dice.append((value, (cx - hw, cy - hh, cx + hw, cy + hh)))
    return replace(photo, dice=tuple(dice))


def scale(k: float) -> Transform:
    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        h, w = image.shape[:2]
        interp = cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC
        out = cv2.resize(image, (round(w * k), round(h * k)), interpolation=interp)
        return out, _boxes(photo, lambda x, y: (x * k, y * k), k)

    return apply


def rotate(degrees: float) -> Transform:
    """Turn the photo about its centre on a canvas large enough to hold all of it,
    filled with the photo's own border colour."""

    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        h, w = image.shape[:2]
        a = np.deg2rad(degrees)
        nw = int(np.ceil(w * abs(np.cos(a)) + h * abs(np.sin(a))))
        nh = int(np.ceil(w * abs(np.sin(a)) + h * abs(np.cos(a))))
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        m[:, 2] += ((nw - w) / 2, (nh - h) / 2)
        border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
        fill = tuple(float(v) for v in np.median(border, axis=0))
        out = cv2.warpAffine(image, m, (nw, nh), flags=cv2.INTER_LINEAR, borderValue=fill)

        def move(x: float, y: float) -> tuple[float, float]:
            return m[0, 0] * x + m[0, 1] * y + m[0, 2], m[1, 0] * x + m[1, 1] * y + m[1, 2]

        return out, _boxes(photo, move, 1.0)

    return apply


def blur_at_2x(sigma: float) -> Transform:
    up = scale(2.0)

    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        image, photo = up(image, photo)
        return cv2.GaussianBlur(image, (0, 0), sigma), photo

    return apply


def jpeg(quality: int) -> Transform:
    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(data, cv2.IMREAD_COLOR), photo

    return apply


def gamma(g: float) -> Transform:
    lut = np.clip(((np.arange(256) / 255.0) ** g) * 255.0 + 0.5, 0, 255).astype(np.uint8)

    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        return cv2.LUT(image, lut), photo

    return apply


def colour_cast(gains: tuple[float, float, float]) -> Transform:
    """A white balance gone wrong: each of B, G, R multiplied by its gain."""

    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        out = image.astype(np.float32) * np.array(gains, np.float32)
        return np.clip(out, 0, 255).astype(np.uint8), photo

    return apply


def noise(sigma: float) -> Transform:
    """Sensor noise: Gaussian, the same for a photo on every run."""

    def apply(image: np.ndarray, photo: Photo) -> tuple[np.ndarray, Photo]:
        rng = np.random.default_rng(zlib.crc32(photo.name.encode()))
        out = image.astype(np.float32) + rng.normal(0, sigma, image.shape).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8), photo

    return apply


TRANSFORMS: dict[str, Transform] = {
    N_("scale 0.5"): scale(0.5),
    N_("scale 0.75"): scale(0.75),
    N_("scale 1.5"): scale(1.5),
    N_("scale 2"): scale(2.0),
    N_("scale 3"): scale(3.0),
    N_("scale 4"): scale(4.0),
    N_("rotate 15"): rotate(15),
    N_("rotate 30"): rotate(30),
    N_("rotate 45"): rotate(45),
    N_("blur 1 at 2x"): blur_at_2x(1.0),
    N_("jpeg 35"): jpeg(35),
    N_("gamma 0.6"): gamma(0.6),
    N_("gamma 1.6"): gamma(1.6),
    N_("colour cast"): colour_cast((1.25, 1.0, 0.75)),
    N_("noise 8"): noise(8.0),
}


# Tiles of a photo cut out as empty tables: a side of this share of the
# photo's shorter side, read as they are and enlarged and shrunk by these.
TILE = 0.4
TILE_SCALES = (0.5, 1.0, 2.0)


def empty_tiles(image: np.ndarray, photo: Photo) -> list[np.ndarray]:
    """Squares of ``image`` that hold no labelled die (nor a quarter side near one), at several scales."""
    h, w = image.shape[:2]
    side = int(TILE * min(h, w))
    boxes = []
    for _, (x0, y0, x1, y1) in photo.dice:
        m = 0.25 * max(x1 - x0, y1 - y0)
        boxes.append((x0 - m, y0 - m, x1 + m, y1 + m))
    tiles = []
    step = max(1, side // 2)
    for y in range(0, h - side + 1, step):
        for x in range(0, w - side + 1, step):
            if any(x < bx1 and bx0 < x + side and y < by1 and by0 < y + side for bx0, by0, bx1, by1 in boxes):
                continue
            tile = image[y : y + side, x : x + side]
            for k in TILE_SCALES:
                interp = cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC
                tiles.append(tile if k == 1 else cv2.resize(tile, None, fx=k, fy=k, interpolation=interp))
    return tiles


def empty_phantoms(folder, every: int = 1, sure: float = 0.5) -> tuple[int, int, list[str]]:
    """(tiles read, sure dice read on them, the photos they came from) for the photos of ``folder``."""
    from vision import read_dice
    from vision.datasets import load_photos

    tiles = phantoms = 0
    where = []
    for photo in load_photos(folder)[::every]:
        image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"{photo.path}: missing or unreadable")
        for tile in empty_tiles(image, photo):
            tiles += 1
            found = sum(1 for d in read_dice(tile) if d.confidence >= sure)
            if found:
                phantoms += found
                where.append(photo.name)
    return tiles, phantoms, where
