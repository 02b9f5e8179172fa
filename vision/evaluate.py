"""Measuring the reader on labelled photos: the figures, the photo outcomes a
table sees, and how well confidence matches accuracy.

Used by ``tablepi dice eval`` and ``tablepi dice robust`` and by the tests
that guard accuracy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.datasets import Photo, load_photos
from vision.score import score

# A reading at or above this confidence is sure (as vision.SURE).
SURE = 0.5
# Confidence bins of the reliability table.
BINS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.97, 1.0001)


@dataclass
class Result:
    """One dataset read: its name, the scorer's figures, the outcomes and the reliability rows."""

    name: str
    figures: dict[str, Any]
    outcomes: dict[str, Any]
    reliability: list[dict[str, Any]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    confusion: dict[int, dict[str, list[int]]] = field(default_factory=dict)


def predict(
    photos: Iterable[Photo],
    read: Callable[..., list] | None = None,
    transform: Callable[[np.ndarray, Photo], tuple[np.ndarray, Photo]] | None = None,
    counted: bool = False,
) -> tuple[dict[str, Any], dict[str, list[dict]], list[float]]:
    """Read every photo (transformed first, with its labels, when ``transform`` is given);
    ``counted``: ``read`` is told how many dice were thrown (``expect=``), as a table knows.

    Returns the labels as read (transformed), the readings with confidences,
    and the seconds each reading took.
    """
    import time

    if read is None:
        from vision import read_dice as read
    labels: dict[str, Any] = {}
    preds: dict[str, list[dict]] = {}
    seconds = []
    for photo in photos:
        image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"{photo.path}: missing or unreadable")
        if transform is not None:
            image, photo = transform(image, photo)
        labels[photo.name] = {"dice": [{"value": v, "box": list(b)} for v, b in photo.dice]}
        t0 = time.perf_counter()
        dice = read(image, expect=len(photo.dice)) if counted else read(image)
        seconds.append(time.perf_counter() - t0)
        preds[photo.name] = [d.to_dict() for d in dice]
    return labels, preds, seconds


def outcomes(labels: dict[str, Any], preds: dict[str, list[dict]], sure: float = SURE) -> dict[str, Any]:
    """Photos read right, refused and wrong, knowing how many dice were thrown
    (as ``shared/tools/dice_score.py`` counts them)."""
    out: dict[str, Any] = {"right": 0, "refused": 0, "wrong": 0, "wrong_photos": []}
    for name, lab in sorted(labels.items()):
        p = preds.get(name, [])
        truth = sorted(int(d["value"]) for d in lab["dice"])
        sure_values = sorted(int(d["value"]) for d in p if d.get("confidence", 1.0) >= sure)
        if len(sure_values) != len(p) or len(sure_values) != len(truth):
            out["refused"] += 1
        elif sure_values == truth:
            out["right"] += 1
        else:
            out["wrong"] += 1
            out["wrong_photos"].append((name, truth, sure_values))
    return out


def reliability(labels: dict[str, Any], preds: dict[str, list[dict]]) -> list[dict[str, Any]]:
    """Per confidence bin: how many readings, their mean confidence, and the share right
    (a reading is right when it matches a labelled die and has its value)."""
    rows = []
    conf, right = _graded(labels, preds)
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        sel = (conf >= lo) & (conf < hi)
        n = int(sel.sum())
        rows.append(
            {
                "bin": f"{lo:.2f}-{min(hi, 1.0):.2f}",
                "readings": n,
                "confidence": float(conf[sel].mean()) if n else None,
                "right": float(right[sel].mean()) if n else None,
            }
        )
    return rows


def confusion(
    labels: dict[str, Any], preds: dict[str, list[dict]], sure: float = SURE
) -> dict[int, dict[str, list[int]]]:
    """Per labelled value, what its dice were read as: ``{label: {read: [readings, sure ones]}}``,
    ``read`` a value or ``"-"`` for a die no reading lies on (matched as the scorer matches).
    Unsure readings count too: they show what the pip counter gets wrong before the grade refuses it."""
    table: dict[int, dict[str, list[int]]] = {v: {} for v in range(1, 7)}
    for name, lab in labels.items():
        p = preds.get(name, [])
        on = {i: p[j] for j, i in _match(lab["dice"], p).items()}
        for i, g in enumerate(lab["dice"]):
            d = on.get(i)
            read = "-" if d is None else str(int(d["value"]))
            cell = table.setdefault(int(g["value"]), {}).setdefault(read, [0, 0])
            cell[0] += 1
            cell[1] += int(d is not None and float(d.get("confidence", 1.0)) >= sure)
    return {v: cells for v, cells in table.items() if cells}


def _graded(labels: dict[str, Any], preds: dict[str, list[dict]]) -> tuple[np.ndarray, np.ndarray]:
    """Every reading's confidence and whether it is right (matched as the scorer matches)."""
    conf, right = [], []
    for name, lab in labels.items():
        p = preds.get(name, [])
        matched = _match(lab["dice"], p)
        for j, d in enumerate(p):
            conf.append(float(d.get("confidence", 1.0)))
            i = matched.get(j)
            right.append(i is not None and int(lab["dice"][i]["value"]) == int(d["value"]))
    return np.array(conf), np.array(right, bool)


def _match(gt: list[dict], p: list[dict]) -> dict[int, int]:
    """Reading index -> label index, nearest centre first, as the scorer matches."""
    pairs = []
    for i, g in enumerate(gt):
        x0, y0, x1, y1 = g["box"]
        mx, my = (x1 - x0) * 0.25, (y1 - y0) * 0.25
        gx, gy = (x0 + x1) / 2, (y0 + y1) / 2
        for j, d in enumerate(p):
            bx0, by0, bx1, by1 = d["box"]
            cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
            if x0 - mx <= cx <= x1 + mx and y0 - my <= cy <= y1 + my:
                pairs.append(((cx - gx) ** 2 + (cy - gy) ** 2, i, j))
    used_g: set[int] = set()
    out: dict[int, int] = {}
    for _, i, j in sorted(pairs):
        if i in used_g or j in out:
            continue
        used_g.add(i)
        out[j] = i
    return out


def evaluate(
    folder: Path,
    read: Callable[..., list] | None = None,
    transform: Callable | None = None,
    every: int = 1,
    counted: bool = False,
) -> Result:
    """Read the labelled photos of ``folder`` (every ``every``-th, in name order) and score them."""
    photos = load_photos(folder)[::every]
    labels, preds, seconds = predict(photos, read, transform, counted)
    sure = {n: [d for d in p if d["confidence"] >= SURE] for n, p in preds.items()}
    name = Path(folder).parent.name if Path(folder).name in ("train", "test") else Path(folder).name
    return Result(
        name,
        score(labels, sure),
        outcomes(labels, preds),
        reliability(labels, preds),
        seconds,
        confusion(labels, preds),
    )
