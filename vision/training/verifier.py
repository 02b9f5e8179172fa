"""Train the face verifier (``vision/models/verifier.onnx``) on the train splits and rendered frames.

    python -m vision.training.verifier --datasets ../shared/datasets --out vision/models/verifier.onnx

The crops are those the table's reader gives it: around every place the finder
marks (labelled with the die it lies on, or "no readable face" when it lies on
none, on a pip, on a cluster, or on a cocked, half-hidden or blurred rendered
die), and around every labelled die with its centre and size jittered. Each
source (a dataset, the rendered frames) weighs the same in a batch. Needs
PyTorch and onnx (the ``train`` extra); the table needs only OpenCV.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from vision import finder, verify
from vision import tunables as T
from vision.halvings import Halvings
from vision.training.finder import PIP_AREA_BOXES
from vision.training.sources import HELD_BACK, by_source, model_file, rendered, source_photos

# Crops are stored two die sides wide, so that turning and rescaling them leaves the window filled.
STORED = 2 * verify.SIDE_PX


def _dice(labels: list[dict], pip_area: bool) -> list[tuple[float, float, float, int]]:
    """(cx, cy, side, value) per labelled die; a pip-area box is grown to the die it lies on."""
    out = []
    for d in labels:
        x0, y0, x1, y1 = d["box"]
        side = (x1 - x0 + y1 - y0) / 2
        if pip_area:
            side = max(x1 - x0, y1 - y0) / (0.22 if d["value"] == 1 else 0.62)
        out.append(((x0 + x1) / 2, (y0 + y1) / 2, side, int(d["value"])))
    return out


def _label(x: float, y: float, side: float, dice: list, loose: bool) -> int:
    """The value of the die a spot stands for, or 0 when it stands for none."""
    best, label = math.inf, 0
    reach = (0.5, 2.0) if loose else (0.62, 1.6)
    for cx, cy, s, v in dice:
        d = math.hypot(x - cx, y - cy)
        if d < 0.3 * s and reach[0] <= side / s <= reach[1] and d < best:
            best, label = d, v
    return label


def crops_of(
    source: Iterable[tuple[np.ndarray, list[dict]]],
    pip_area: bool,
    rng: np.random.Generator,
    finder_model: Path = finder.MODEL,
) -> tuple[np.ndarray, np.ndarray]:
    """The stored crops of every frame of ``source`` (at the spots ``finder_model`` marks, and
    around the labelled dice) and their classes."""
    xs, ys = [], []
    for image, labels in source:
        # Crops come through the frame's halvings, as the reader takes them.
        frame = Halvings(image)
        grey = frame.grey(0)
        dice = _dice(labels, pip_area)
        for spot in finder.find(frame, finder_model):
            if spot.score >= T.FINDER_MIN:
                xs.append(verify.crop(frame, spot.x, spot.y, spot.side, STORED))
                ys.append(_label(spot.x, spot.y, spot.side, dice, pip_area))
        for cx, cy, s, v in dice:
            for _ in range(2):
                jx, jy = rng.normal(0, 0.06 * s, 2)
                js = s * math.exp(rng.normal(0, 0.15))
                xs.append(verify.crop(frame, cx + jx, cy + jy, js, STORED))
                ys.append(v)
            # What the die is not: a window on one of its pips, one off its centre,
            # one on it and its neighbours.
            wrong = [(cx, cy, s * 0.3), (cx + 0.7 * s * rng.choice([-1, 1]), cy, s), (cx, cy, s * 2.4)]
            x, y, side = wrong[int(rng.integers(0, 3))]
            xs.append(verify.crop(frame, x, y, side, STORED))
            ys.append(0)
        h, w = grey.shape
        for _ in range(2):  # the table itself, at a die's size
            side = float(np.median([d[2] for d in dice])) if dice else float(rng.uniform(20, 120))
            x, y = rng.uniform(side, max(side + 1, w - side)), rng.uniform(side, max(side + 1, h - side))
            if all(math.hypot(x - cx, y - cy) > 0.9 * (s + side) for cx, cy, s, _ in dice):
                xs.append(verify.crop(frame, x, y, side, STORED))
                ys.append(0)
    return np.array(xs, np.uint8).reshape(-1, STORED, STORED, 3), np.array(ys, np.int64)


def augment(stored: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A colour window of ``verify.WINDOW`` turned, rescaled, shifted, recoloured and relit
    from a stored crop (uint8 BGR)."""
    c = STORED / 2
    m = cv2.getRotationMatrix2D((c, c), float(rng.uniform(0, 360)), float(np.exp(rng.normal(0, 0.07))))
    m[:, 2] += verify.WINDOW / 2 - c + rng.normal(0, 1.5, 2)
    x = cv2.warpAffine(stored, m, (verify.WINDOW, verify.WINDOW), borderMode=cv2.BORDER_REFLECT)
    # Any die's colours: the channels shuffled and cast, so no dataset's dice colours are learned.
    x = x[:, :, rng.permutation(3)].astype(np.float32) / 255.0
    x = x * rng.uniform(0.75, 1.25, 3).astype(np.float32)
    if rng.random() < 0.15:
        x = 1.0 - x
    x = np.clip(x * rng.uniform(0.6, 1.3) + rng.uniform(-0.15, 0.15), 0, 1) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(0.01, 0.05), x.shape).astype(np.float32)
    return np.clip(x * 255, 0, 255).astype(np.uint8)


def build_model():
    from torch import nn

    def block(i: int, o: int) -> list:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(verify.CHANNELS, 16),
        nn.MaxPool2d(2),
        *block(16, 32),
        *block(32, 32),
        nn.MaxPool2d(2),
        *block(32, 64),
        *block(64, 64),
        nn.MaxPool2d(2),
        *block(64, 64),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, verify.CLASSES),
    )


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, required=True, help="the folder holding the datasets")
    ap.add_argument("--out", type=Path, default=verify.MODEL)
    ap.add_argument(
        "--finder",
        type=model_file,
        default=finder.MODEL,
        help="the die finder whose spots it learns from (default: shipped)",
    )
    ap.add_argument("--leave-out", help="a dataset to leave out of training")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rendered", type=int, default=600, help="rendered frames to train on too (0: none)")
    ap.add_argument(
        "--held-back",
        type=int,
        default=HELD_BACK,
        metavar="N",
        help=f"leave every N-th train photo out, for the confidence fit (default {HELD_BACK}; 0: none)",
    )
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)
    rng = np.random.default_rng(args.seed)

    sources: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, folders in by_source(args.datasets, args.leave_out).items():
        kept = source_photos(folders, skip=args.held_back)
        sources[name] = crops_of(kept, name in PIP_AREA_BOXES, rng, args.finder)
    if args.rendered:
        sources["rendered"] = crops_of(rendered(args.rendered, seed=20_000), False, rng, args.finder)
    for name, (_, y) in sources.items():
        print(
            f"{name}: {len(y)} crops, classes {np.bincount(y, minlength=verify.CLASSES).tolist()}", flush=True
        )
    names = list(sources)

    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.05)
    t0, run = time.time(), [0.0, 0.0]
    for step in range(1, args.steps + 1):
        xs, ys = [], []
        for k in range(args.batch):
            crops, classes = sources[names[k % len(names)]]
            i = int(rng.integers(0, len(classes)))
            xs.append(augment(crops[i], rng))
            ys.append(classes[i])
        x = torch.from_numpy(verify.standardise(verify.channels(np.stack(xs))))
        y = torch.from_numpy(np.array(ys))
        model.train()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y, label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run = [
            0.98 * run[0] + 0.02 * loss.item(),
            0.98 * run[1] + 0.02 * (out.argmax(1) == y).float().mean().item(),
        ]
        if step % 100 == 0:
            print(f"step {step} loss {run[0]:.3f} right {run[1]:.3f} ({time.time() - t0:.0f} s)", flush=True)
        if step % 1000 == 0 or step == args.steps:
            export(model, args.out)
    return 0


def export(model, out: Path) -> None:
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(1, verify.CHANNELS, verify.WINDOW, verify.WINDOW),
        str(out),
        opset_version=13,
        dynamo=False,
        input_names=["crop"],
        output_names=["logits"],
        dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}},
    )


if __name__ == "__main__":
    raise SystemExit(main())
