"""The labelled frames training reads: the datasets' train photos and frames the project renders.

A folder of ``python -m vision.training.render`` is read as a dataset (its ``train`` split); its
dice with no top face are labelled 0, as ``rendered`` labels a troubled die.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path

import cv2
import numpy as np

from vision.datasets import load_photos

# A frame and its labelled dice ({"value", "box"} each).
Labelled = tuple[np.ndarray, list[dict]]

# The one source every folder of path-traced frames beside the datasets counts as.
PATH_TRACED = "path-traced"

# Every N-th train photo is left out of the face verifier's training, so that
# the confidence grade is fitted on opinions of photos the verifier never saw.
HELD_BACK = 4


def photos(folder: Path, only: int = 0, skip: int = 0) -> Iterator[Labelled]:
    """The labelled photos of ``folder`` as (image, labels): with ``only`` N, every N-th
    photo only; with ``skip`` N, all but those."""
    for k, photo in enumerate(load_photos(folder)):
        if (only and k % only) or (skip and not k % skip):
            continue
        image = cv2.imread(str(photo.path), cv2.IMREAD_COLOR)
        if image is not None:
            yield image, [{"value": v, "box": list(b)} for v, b in photo.dice]


def labelled(datasets: Path) -> list[Path]:
    """The folders of ``datasets`` with a labelled ``train`` split (datasets, rendered frames), by name."""
    return sorted(p for p in Path(datasets).iterdir() if (p / "train" / "labels.json").is_file())


def rendered_here(folder: Path) -> bool:
    """Whether ``folder`` (its ``train`` split) holds only frames ``vision.training.render`` made."""
    try:
        names = list(json.loads((folder / "train" / "labels.json").read_text()))
    except (OSError, ValueError):
        return False
    return bool(names) and all(n.startswith("render-") for n in names)


def by_source(datasets: Path, leave_out: str | None = None) -> dict[str, list[Path]]:
    """The labelled folders of ``datasets`` by the source each weighs as in training: a dataset
    alone, and all folders of path-traced frames as one (rendering is often split over runs,
    a folder each, and would otherwise weigh as many datasets)."""
    out: dict[str, list[Path]] = {}
    for folder in labelled(datasets):
        if folder.name != leave_out:
            out.setdefault(PATH_TRACED if rendered_here(folder) else folder.name, []).append(folder)
    return out


def source_photos(folders: list[Path], only: int = 0, skip: int = 0) -> Iterator[Labelled]:
    """``photos`` of the train splits of ``folders``, one after another."""
    return chain.from_iterable(photos(f / "train", only, skip) for f in folders)


def top_faces(dice: Iterable[tuple[int, tuple]]) -> list[tuple[int, tuple]]:
    """The labelled dice that show a top face: a rendered frame labels a die with none (cocked,
    under another, its top hidden) 0, and the finder is not to mark it."""
    return [(v, box) for v, box in dice if v]


def rendered(count: int, seed: int = 10_000) -> Iterator[tuple[np.ndarray, list[dict]]]:
    """Rendered frames as (image, labels); a troubled die's label has value 0 (no reading is right)."""
    from vision.synth import EMPTY_KINDS, background, scene, trouble_scene

    rng = np.random.default_rng(seed)
    for i in range(count):
        kind = EMPTY_KINDS[i % len(EMPTY_KINDS)]
        size = float(rng.uniform(30, 110))
        values = [int(v) for v in rng.integers(1, 7, int(rng.integers(1, 6)))]
        which = i % 5
        try:
            if which == 0:
                yield background(640, 480, kind, rng), []
                continue
            if which <= 2:
                image, placed = scene(640, 480, values, size, rng, kind)
                bad = None
            else:
                trouble = ("cocked", "hidden", "blurred")[i % 3]
                image, placed, bad = trouble_scene(640, 480, values[:3], size, rng, trouble, kind)
        except ValueError:  # no room for these dice at this size
            continue
        labels = [{"value": p.value, "box": p.box} for p in placed]
        if bad is not None:
            labels.append({"value": 0, "box": bad.box})
        yield image, labels


def model_file(text: str) -> Path:
    """An argument naming one of the reader's model files, which must be there."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such model file")
    return path
