"""Train the die finder (``vision/models/finder.onnx``) on the datasets' train splits.

    python -m vision.training.finder --datasets ../shared/datasets --out vision/models/finder.onnx

Needs the ``train`` extra (PyTorch, onnx); the table itself runs the result
through OpenCV's dnn module. The finder only says where top faces are and how
large; the value is always counted from the pips (``vision.face``).

The network sees one pyramid level at a time (``vision.finder``), so it is
trained on crops resampled so that the dice are ``BAND`` pixels across: a die
larger or smaller than the band at a level is found on another level. Crops are
turned to any angle, mirrored, and varied in light, colour, blur, noise and
JPEG quality, so that the finder learns dice rather than these cameras.
``--leave-out NAME`` trains without one dataset, to measure how the reader
does on a camera it has never seen.

Beside the photos, a share of the crops comes from frames the project renders
itself (``vision.synth``): flat dice, and empty tables of printed text, play
mats, speckle, stains and cloth, so that the finder also knows the simulated
camera's dice and does not take a table's print for a die. A folder of path-traced frames
(``python -m vision.training.render``) among the datasets is read as one; its dice labelled 0
(no face up) are not marked for the finder.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import cv2
import numpy as np

from vision.datasets import load_photos
from vision.finder import BAND, INPUT_MEAN, INPUT_SCALE, STRIDE
from vision.training.sources import labelled, top_faces

CROP = 128
# Share of training crops taken from rendered frames rather than photos.
RENDERED_SHARE = 0.2
# Datasets whose boxes cover only the pips, not the die: their dice's size is
# taken from the pip box (a 1's pip is about a fifth of the die, the other
# layouts about three fifths), and the size output is not trained on them.
PIP_AREA_BOXES = {"matteop65-d6"}


def die_sizes(dice, pip_area: bool) -> np.ndarray:
    """(cx, cy, size, size_known) per die, in image pixels."""
    rows = []
    for value, (x0, y0, x1, y1) in dice:
        w, h = x1 - x0, y1 - y0
        if pip_area:
            size = max(w, h) / (0.22 if value == 1 else 0.62)
            rows.append(((x0 + x1) / 2, (y0 + y1) / 2, max(size, 12.0), 0.0))
        else:
            rows.append(((x0 + x1) / 2, (y0 + y1) / 2, (w + h) / 2, 1.0))
    return np.array(rows, dtype=np.float32).reshape(-1, 4)


def load(datasets: Path, leave_out: str | None):
    items = []
    for folder in labelled(datasets):
        if folder.name == leave_out:
            continue
        pip_area = folder.name in PIP_AREA_BOXES
        for photo in load_photos(folder / "train"):
            img = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
            if img is None:
                continue
            items.append((img, die_sizes(top_faces(photo.dice), pip_area), folder.name))
        print(f"{folder.name}: {sum(1 for it in items if it[2] == folder.name)} photos", flush=True)
    return items


def rendered(count: int, rng: np.random.Generator) -> list:
    """Rendered frames for training: a third empty tables, the rest dice of many sizes,
    scattered or lying in a group, touching."""
    from vision.synth import EMPTY_KINDS, background, scene, touching_scene

    items = []
    for i in range(count):
        kind = EMPTY_KINDS[i % len(EMPTY_KINDS)]
        if i % 3 == 0:
            img = background(640, 480, kind, rng)
            items.append((img, np.zeros((0, 4), np.float32), "rendered"))
            continue
        size = float(np.exp(rng.uniform(np.log(24), np.log(150))))
        n = int(rng.integers(1, 8 if size < 70 else 3))
        try:
            if i % 3 == 1 and size < 90:  # a group of dice touching, never one larger die
                values = [int(v) for v in rng.integers(1, 7, int(rng.integers(2, 5)))]
                img, placed = touching_scene(640, 480, values, size, rng, kind)
            else:
                img, placed = scene(640, 480, [int(v) for v in rng.integers(1, 7, n)], size, rng, kind)
        except ValueError:  # no room for that many dice at that size
            img, placed = scene(640, 480, [int(rng.integers(1, 7))], size, rng, kind)
        rows = [(p.center[0], p.center[1], p.box[2] - p.box[0], 1.0) for p in placed]
        items.append((img, np.array(rows, np.float32).reshape(-1, 4), "rendered"))
    return items


def photometric(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = patch.astype(np.float32) / 255.0
    if rng.random() < 0.3:
        x = x[:, :, rng.permutation(3)]
    if rng.random() < 0.25:
        g = x @ np.array([0.114, 0.587, 0.299], np.float32)
        x = np.repeat(g[:, :, None], 3, axis=2)
    if rng.random() < 0.1:
        x = 1.0 - x
    x = x * rng.uniform(0.75, 1.25, 3).astype(np.float32) * rng.uniform(0.6, 1.4)
    x = np.clip(x, 0, 1) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.3:
        sigma = rng.uniform(0.3, 1.5)
        x = cv2.GaussianBlur(x, (0, 0), sigma)
    if rng.random() < 0.3:
        x = x + rng.normal(0, rng.uniform(0.01, 0.05), x.shape).astype(np.float32)
    out = np.clip(x * 255, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        q = int(rng.integers(25, 90))
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    return out


def sample(item, rng: np.random.Generator):
    """One training crop and its targets: heat, size, offset maps and the masks."""
    img, dice, _ = item
    h, w = img.shape[:2]
    lo, hi = BAND
    target = math.exp(rng.uniform(math.log(lo * 0.8), math.log(hi * 1.15)))
    if len(dice) and rng.random() < 0.85:
        i = int(rng.integers(len(dice)))
        ax, ay, asize = dice[i, 0], dice[i, 1], dice[i, 2]
        jitter = rng.uniform(-CROP / 3, CROP / 3, 2)
    else:
        ax, ay = rng.uniform(0, w), rng.uniform(0, h)
        asize = float(np.median(dice[:, 2])) if len(dice) else 40.0
        jitter = np.zeros(2)
    k = target / asize
    # Shrink with area averaging first, as the reader's pyramid does, then warp.
    pre = 1.0
    if k < 0.7:
        pre = k * 1.25
        img = cv2.resize(img, (max(1, round(w * pre)), max(1, round(h * pre))), interpolation=cv2.INTER_AREA)
    kk = k / pre
    angle = rng.uniform(0, 360)
    m = cv2.getRotationMatrix2D((float(ax * pre), float(ay * pre)), angle, kk)
    m[:, 2] += np.array([CROP / 2, CROP / 2]) - np.array([ax * pre, ay * pre]) + jitter
    if rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += CROP
    fill = tuple(int(v) for v in rng.integers(0, 256, 3))
    patch = cv2.warpAffine(img, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderValue=fill)
    patch = photometric(patch, rng)

    out = CROP // STRIDE
    heat = np.zeros((out, out), np.float32)
    ignore = np.zeros((out, out), np.float32)
    size_t = np.zeros((out, out), np.float32)
    size_w = np.zeros((out, out), np.float32)
    off_t = np.zeros((2, out, out), np.float32)
    off_w = np.zeros((out, out), np.float32)
    yy, xx = np.mgrid[0:out, 0:out].astype(np.float32)
    for cx, cy, size, known in dice:
        px = (m[0, 0] * cx * pre + m[0, 1] * cy * pre + m[0, 2]) / STRIDE
        py = (m[1, 0] * cx * pre + m[1, 1] * cy * pre + m[1, 2]) / STRIDE
        s = size * k
        r = s / STRIDE
        if not (-r < px < out + r and -r < py < out + r):
            continue
        d2 = (xx - px) ** 2 + (yy - py) ** 2
        if s < lo:
            # Only the centre: a cluster of dice too small for this level is
            # not one die, and the network must learn so.
            ignore = np.maximum(ignore, d2 <= max(0.7, 0.3 * r) ** 2)
            continue
        if s > hi:
            ignore = np.maximum(ignore, d2 <= max(1.0, 0.25 * r) ** 2)
            continue
        sigma = max(0.6, 0.15 * r)
        heat = np.maximum(heat, np.exp(-d2 / (2 * sigma * sigma)))
        ix, iy = int(px), int(py)
        if 0 <= ix < out and 0 <= iy < out:
            heat[iy, ix] = 1.0
            off_t[:, iy, ix] = (px - ix, py - iy)
            off_w[iy, ix] = 1.0
            if known:
                near = d2 <= 1.5**2
                size_t[near] = math.log2(s / 16.0)
                size_w[near] = 1.0
    return patch, heat, ignore, size_t, size_w, off_t, off_w


def make_batch(items, extra, rng, n):
    def pick():
        pool = extra if extra and rng.random() < RENDERED_SHARE else items
        return pool[int(rng.integers(len(pool)))]

    parts = [sample(pick(), rng) for _ in range(n)]
    x = (np.stack([p[0] for p in parts]).astype(np.float32) - INPUT_MEAN) * INPUT_SCALE
    return [x.transpose(0, 3, 1, 2)] + [np.stack([p[i] for p in parts]) for i in range(1, 7)]


def build_model():
    import torch.nn as nn
    import torch.nn.functional as F

    def cbr(i, o, s=1):
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Finder(nn.Module):
        def __init__(self, c=(12, 24, 32, 48), d=16):
            super().__init__()
            self.s2 = cbr(3, c[0], 2)
            self.s4 = nn.Sequential(cbr(c[0], c[1], 2), cbr(c[1], c[1]))
            self.s8 = nn.Sequential(cbr(c[1], c[2], 2), cbr(c[2], c[2]))
            self.s16 = nn.Sequential(cbr(c[2], c[3], 2), cbr(c[3], c[3]), cbr(c[3], c[3]))
            self.l16 = nn.Conv2d(c[3], c[2], 1)
            self.m8 = cbr(c[2], c[2])
            self.l8 = nn.Conv2d(c[2], c[1], 1)
            self.m4 = cbr(c[1], d)
            self.head = nn.Conv2d(d, 4, 1)

        def forward(self, x):
            a = self.s4(self.s2(x))
            b = self.s8(a)
            c = self.s16(b)
            b = self.m8(b + F.interpolate(self.l16(c), scale_factor=2.0, mode="nearest"))
            a = self.m4(a + F.interpolate(self.l8(b), scale_factor=2.0, mode="nearest"))
            return self.head(a)

    return Finder()


def losses(pred, heat, ignore, size_t, size_w, off_t, off_w):
    import torch

    p = torch.sigmoid(pred[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float()
    keep = 1.0 - ignore * (1.0 - pos)
    pos_loss = -((1 - p) ** 2) * torch.log(p) * pos
    neg_loss = -((1 - heat) ** 4) * (p**2) * torch.log(1 - p) * (1 - pos) * keep
    heat_loss = (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1.0)
    size_loss = (torch.abs(pred[:, 1] - size_t) * size_w).sum() / size_w.sum().clamp(min=1.0)
    off = torch.abs(torch.sigmoid(pred[:, 2:4]) - off_t).sum(1)
    off_loss = (off * off_w).sum() / off_w.sum().clamp(min=1.0)
    return heat_loss, size_loss, off_loss


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, required=True, help="the folder holding the datasets")
    ap.add_argument("--out", type=Path, required=True, help="the ONNX file to write")
    ap.add_argument("--leave-out", help="a dataset to leave out of training")
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rendered", type=int, default=360, help="rendered frames to train on too (0: none)")
    args = ap.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    items = load(args.datasets, args.leave_out)
    extra = rendered(args.rendered, rng)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.05)
    t0 = time.time()
    run = np.zeros(3)
    for step in range(1, args.steps + 1):
        x, *targets = [torch.from_numpy(a) for a in make_batch(items, extra, rng, args.batch)]
        model.train()
        hl, sl, ol = losses(model(x), *targets)
        loss = hl + sl + ol
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * np.array([hl.item(), sl.item(), ol.item()])
        if step % 100 == 0:
            losses_now = f"heat {run[0]:.3f} size {run[1]:.3f} offset {run[2]:.3f}"
            print(f"step {step} {losses_now} ({time.time() - t0:.0f} s)", flush=True)
        if step % 1000 == 0 or step == args.steps:
            export(model, args.out)
    return 0


def export(model, out: Path) -> None:
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(1, 3, CROP, CROP),
        str(out),
        opset_version=13,
        dynamo=False,
        input_names=["image"],
        output_names=["maps"],
        dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "h", 3: "w"}},
    )


if __name__ == "__main__":
    raise SystemExit(main())
