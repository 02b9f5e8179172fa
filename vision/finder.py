"""Finding dice: where each top face is and how large, at any scale.

A small network (``models/finder.onnx``, trained by ``vision.training.finder``)
marks the centres of top faces whose side is within ``BAND`` pixels. The frame
is read as a pyramid of halvings, so a die of any size is within the band on
some level: the finest level is the frame shrunk to ``FINEST`` pixels on its
long side, which costs the same for a webcam frame as for an 8 MP one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import nets
from vision import tunables as T
from vision.halvings import Halvings

MODEL = Path(__file__).resolve().parent / "models" / "finder.onnx"
# The network's output is a quarter of its input's size.
STRIDE = 4
# The network's input: (pixel - INPUT_MEAN) * INPUT_SCALE, BGR.
INPUT_MEAN = 128.0
INPUT_SCALE = 1.0 / 64.0
# Sides (px at a level) the network is trained to find; each level keeps the
# dice in the middle octave of it (``T.LEVEL_KEEP``), its neighbours the rest.
BAND = (7.0, 36.0)


@dataclass
class Spot:
    """A place the finder takes for a die's top face, in frame pixels; ``edge``
    when the network sized it outside its level's octave (``T.EDGE_REACH``,
    ``T.UNDER_REACH``)."""

    x: float
    y: float
    side: float
    score: float
    edge: bool = False


def levels(shape: tuple[int, ...]) -> list[float]:
    """The scales of the pyramid's levels for a frame of ``shape``, finest first."""
    h, w = shape[:2]
    k = min(1.0, T.FINEST / max(h, w))
    scales = []
    while max(h, w) * k >= T.COARSEST:
        scales.append(k)
        k /= 2
    return scales or [min(1.0, T.FINEST / max(h, w))]


def _maps(net: nets.Net, image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    ph, pw = -h % 16, -w % 16
    if ph or pw:
        image = cv2.copyMakeBorder(image, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    blob = cv2.dnn.blobFromImage(image, INPUT_SCALE, mean=(INPUT_MEAN,) * 3, swapRB=False)
    out = net(blob)[0]
    return out[:, : -(-h // STRIDE), : -(-w // STRIDE)]


def find(
    image: np.ndarray | Halvings, model: Path = MODEL, sides: tuple[float, float] | None = None
) -> list[Spot]:
    """Every place in ``image`` (BGR) the finder takes for a die, best first; with
    ``sides`` (px), only dice of those sides are looked for, on the levels that hold them."""
    frame = Halvings.of(image)
    asked = ("find", str(model), sides)
    if asked not in frame.memo:
        frame.memo[asked] = _find(frame, model, sides)
    return list(frame.memo[asked])


def _find(frame: Halvings, model: Path, sides: tuple[float, float] | None) -> list[Spot]:
    net = nets.load(str(model), "die finder")
    scales = levels(frame.shape)
    used = scales if sides is None else _holding(scales, *sides)
    spots: list[Spot] = []
    edges: list[Spot] = []
    # Looking for dice of known sides (a calibration), a spot a little under its level's octave counts.
    under = T.UNDER_REACH if sides is not None else 1.0
    # The finest level is shrunk from the nearest halving of the frame, not from all of it.
    m = frame.nearest(used[0], T.FINDER_HALVE)
    level = frame.level(m)
    done = 2.0**-m
    shrunk: tuple = ("level", str(model), m)
    for i, k in enumerate(scales):
        if k not in used:
            continue
        # A level made the same way before (a read of the frame at other sizes) is not made again.
        shrunk += (k,)
        if shrunk not in frame.memo:
            # Each level is shrunk from the last with area averaging, as in training.
            step = k / done
            if step < 1.0:
                h, w = level.shape[:2]
                level = cv2.resize(
                    level, (max(1, round(w * step)), max(1, round(h * step))), interpolation=cv2.INTER_AREA
                )
            frame.memo[shrunk] = level, _maps(net, level)
        level, maps = frame.memo[shrunk]
        done = min(done, k)
        heat = 1.0 / (1.0 + np.exp(-maps[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= T.PEAK_MIN)
        lo = 0.0 if i == 0 else T.LEVEL_KEEP[0]
        hi = np.inf if i == len(scales) - 1 else T.LEVEL_KEEP[1]
        ys, xs = np.nonzero(peaks)
        sized = np.array([16.0 * 2.0**v for v in maps[1, ys, xs].tolist()])
        inside = (lo / under <= sized) & (sized < hi * T.EDGE_REACH)
        ys, xs, sized = ys[inside], xs[inside], sized[inside]
        offsets = 1.0 / (1.0 + np.exp(-maps[2:4, ys, xs]))
        cx = ((xs + offsets[0]) * STRIDE / done).tolist()
        cy = ((ys + offsets[1]) * STRIDE / done).tolist()
        for x, y, side, score in zip(cx, cy, sized.tolist(), heat[ys, xs].tolist(), strict=True):
            spot = Spot(x, y, side / done, score, edge=side >= hi or side < lo)
            (edges if spot.edge else spots).append(spot)
    kept = _suppress(spots)
    # A die sized just past one level's octave and just short of the next
    # level's is kept on neither: such a spot, sized past its level's octave
    # either way, counts where no kept spot is.
    x, y, side = _places(kept)
    return kept + [e for e in _suppress(edges) if not _same(e, x, y, side).any()]


def _holding(scales: list[float], smallest: float, largest: float) -> list[float]:
    """The levels whose octave (the finest's and coarsest's reaching on) meets sides
    ``smallest`` to ``largest`` px of the frame: the levels a die of those sides is kept on."""
    held = []
    for i, k in enumerate(scales):
        lo = 0.0 if i == 0 else T.LEVEL_KEEP[0]
        hi = np.inf if i == len(scales) - 1 else T.LEVEL_KEEP[1] * T.EDGE_REACH
        if smallest * k < hi and largest * k >= lo:
            held.append(k)
    return held or scales[-1:]


def _suppress(spots: list[Spot]) -> list[Spot]:
    """Keep the strongest of spots that are the same die seen on two levels: close
    together and of about one size (a die's pips, much smaller, are left to the reader)."""
    ranked = sorted(spots, key=lambda s: -s.score)
    x, y, side = _places(ranked)
    taken = np.zeros(len(ranked), bool)  # the same die as a spot kept before it
    kept: list[Spot] = []
    for i, s in enumerate(ranked):
        if not taken[i]:
            kept.append(s)
            taken |= _same(s, x, y, side)
    return kept


def _places(spots: list[Spot]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The spots' centres and sides, as arrays."""
    return tuple(np.array([getattr(s, a) for s in spots], float) for a in ("x", "y", "side"))


def _same(s: Spot, x: np.ndarray, y: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Which of the spots at ``x``, ``y`` of ``side`` are one die with ``s``: close together
    and of about one size."""
    big, small = np.maximum(side, s.side), np.minimum(side, s.side)
    return ((x - s.x) ** 2 + (y - s.y) ** 2 <= (T.SAME_DIE * big) ** 2) & (big <= T.SAME_SIZE * small)
