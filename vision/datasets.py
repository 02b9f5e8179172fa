"""Labelled dice photos: the ``labels.json`` folders of ``shared/datasets``.

A folder holds JPEGs and ``labels.json``: ``{"name.jpg": {"width", "height",
"dice": [{"value": 1-6, "box": [x0, y0, x1, y1]}, ...]}}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from vision import N_


@dataclass(frozen=True)
class Photo:
    """One labelled photo: its path and its dice as (value, box) pairs."""

    path: Path
    dice: tuple[tuple[int, tuple[float, float, float, float]], ...]

    @property
    def name(self) -> str:
        return self.path.name


class DatasetError(ValueError):
    """A dataset folder that cannot be read (no labels, bad JSON)."""


def load_labels(folder: Path) -> dict:
    """The raw ``labels.json`` of ``folder``, or a DatasetError saying what is wrong."""
    labels_file = Path(folder) / "labels.json"
    try:
        labels = json.loads(labels_file.read_text())
    except OSError as exc:
        raise DatasetError(
            N_("{path}: cannot be read ({why})").format(path=labels_file, why=exc.strerror or exc)
        ) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(
            N_("{path}: not valid JSON ({error})").format(path=labels_file, error=exc)
        ) from None
    if not isinstance(labels, dict):
        raise DatasetError(N_("{path}: not a JSON object of photos").format(path=labels_file))
    return labels


def load_photos(folder: Path) -> list[Photo]:
    """Every labelled photo of ``folder``, sorted by name."""
    folder = Path(folder)
    photos = []
    for name, lab in sorted(load_labels(folder).items()):
        dice = tuple((int(d["value"]), tuple(float(v) for v in d["box"])) for d in lab.get("dice", []))
        photos.append(Photo(folder / name, dice))
    return photos


def split_folder(dataset: Path, split: str) -> Path:
    """``dataset/split`` when ``dataset`` is a dataset root, else ``dataset`` itself (a split folder)."""
    dataset = Path(dataset)
    if (dataset / "labels.json").is_file():
        return dataset
    return dataset / split
