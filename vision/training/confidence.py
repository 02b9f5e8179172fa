"""Fit the confidence model (``vision/models/confidence.json``) on the train splits.

    python -m vision.training.confidence --datasets ../shared/datasets

Every place the finder marks in the train photos the face verifier was not
trained on (every ``HELD_BACK``-th) is read as the table reads it, so that its
opinions are weighed as they are on photos it never saw; a reading is right
when it lies on a labelled die and has its value. A logistic regression
over ``vision.confidence.FEATURES`` then gives the probability of being
right. Each dataset weighs the same, however many dice it holds, so that no
one camera sets the model.

Frames the project renders itself (``vision.synth``: the simulated camera's
flat dice on every kind of table, and dice cocked, half hidden or blurred,
whose readings count as wrong whatever they read) are a source of their own,
so that the grade is honest on the simulated camera too and refuses what
cannot be read. Needs only NumPy.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from vision import confidence, finder, reader, verify
from vision.evaluate import _match
from vision.training.sources import HELD_BACK, by_source, model_file, rendered, source_photos


def readings(
    source: Iterable[tuple[np.ndarray, list[dict]]], models: reader.Models = reader.SHIPPED
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features of every reading of the labelled frames of ``source`` (read with the
    finder and verifier of ``models``), whether it lies on a labelled die, and
    whether it also has that die's value."""
    xs, dice, ys = [], [], []
    for image, labels in source:
        found = []
        for spot, reading in reader.readings(image, models):
            half = spot.side / 2
            box = [spot.x - half, spot.y - half, spot.x + half, spot.y + half]
            found.append(({"value": reading.value, "box": box}, confidence.features(spot, reading)))
        matched = _match(labels, [d for d, _ in found])
        for j, (d, f) in enumerate(found):
            i = matched.get(j)
            xs.append(f)
            dice.append(i is not None)
            ys.append(i is not None and labels[i]["value"] == d["value"])
    return np.array(xs).reshape(-1, len(confidence.FEATURES)), np.array(dice, float), np.array(ys, float)


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-2) -> tuple[np.ndarray, float]:
    """Weighted L2-regularised logistic regression by Newton's method, on standardised features."""
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(z @ beta, -40, 40)))
        g = z.T @ (w * (p - y)) + reg * beta
        h = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(reg)
        step = np.linalg.solve(h, g)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = beta[:-1] / sd
    bias = beta[-1] - float((beta[:-1] * mu / sd).sum())
    return weights, bias


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, required=True, help="the folder holding the datasets")
    ap.add_argument("--out", type=Path, default=confidence.MODEL)
    ap.add_argument("--leave-out", help="a dataset to leave out of the fit")
    ap.add_argument("--rendered", type=int, default=300, help="rendered frames to fit on too (0: none)")
    ap.add_argument(
        "--finder",
        type=model_file,
        default=finder.MODEL,
        help="the die finder to read with (default: the shipped one)",
    )
    ap.add_argument(
        "--verifier",
        type=model_file,
        default=verify.MODEL,
        help="the face verifier to read with (default: the shipped one)",
    )
    args = ap.parse_args(argv)
    # Readings are taken ungraded: the grade named here is the one being fitted.
    models = reader.Models(args.finder, args.verifier, args.out)
    cv2.setNumThreads(1)
    xs, ds, ys, ws = [], [], [], []
    sources = {
        name: source_photos(folders, only=HELD_BACK)
        for name, folders in by_source(args.datasets, args.leave_out).items()
    }
    if args.rendered:
        sources["rendered"] = rendered(args.rendered)
    for name, source in sources.items():
        x, d, y = readings(source, models)
        print(f"{name}: {len(y)} readings, {d.mean():.3f} on dice, {y.mean():.3f} right", flush=True)
        xs.append(x)
        ds.append(d)
        ys.append(y)
        ws.append(np.full(len(y), 1.0 / max(len(y), 1)))
    x, d, y, w = np.vstack(xs), np.concatenate(ds), np.concatenate(ys), np.concatenate(ws)
    w *= len(y) / w.sum()
    model: dict = {"features": list(confidence.FEATURES)}
    for name, target in (("die", d), ("right", y)):
        weights, bias = fit_logistic(x, target, w)
        model[name] = {"weights": [round(float(v), 6) for v in weights], "bias": round(float(bias), 6)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    weights, bias = np.array(model["right"]["weights"]), model["right"]["bias"]
    p = 1 / (1 + np.exp(-(x @ weights + bias)))
    for lo, hi in ((0, 0.5), (0.5, 0.9), (0.9, 0.99), (0.99, 1.01)):
        sel = (p >= lo) & (p < hi)
        if sel.any():
            mean, right = p[sel].mean(), y[sel].mean()
            print(f"  {lo:.2f}-{min(hi, 1):.2f}: {sel.sum()} readings, mean {mean:.3f}, right {right:.3f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
