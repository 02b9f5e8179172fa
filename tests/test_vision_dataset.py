"""The reader on the real labelled photos of byler-d6/test, scored as the dataset's tool scores."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2
import pytest

from vision import read_dice
from vision.score import score

# Best figures reached on byler-d6/test, rounded down: a change that reads
# worse fails here.
DIE_ACCURACY_FLOOR = 0.95
PRECISION_FLOOR = 0.99


@pytest.fixture(scope="module")
def byler_test(shared_dir: Path) -> tuple[dict, dict]:
    folder = shared_dir / "datasets" / "byler-d6" / "test"
    labels = json.loads((folder / "labels.json").read_text())
    preds = {}
    for name in labels:
        img = cv2.imread(str(folder / name))
        assert img is not None, name
        preds[name] = [d.to_dict() for d in read_dice(img) if d.confidence >= 0.5]
    return labels, preds


def test_reader_keeps_its_accuracy(byler_test: tuple[dict, dict]) -> None:
    labels, preds = byler_test
    r = score(labels, preds)
    assert r["die_accuracy"] >= DIE_ACCURACY_FLOOR, r
    assert r["precision"] >= PRECISION_FLOOR, r


def test_scorer_agrees_with_the_dataset_tool(byler_test: tuple[dict, dict], shared_dir: Path) -> None:
    spec = importlib.util.spec_from_file_location("dice_score", shared_dir / "tools" / "dice_score.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    labels, preds = byler_test
    # Also a reading with a dropped image, a phantom and a wrong value.
    names = sorted(labels)
    other = {n: list(p) for n, p in preds.items() if n != names[0]}
    other[names[1]] = other[names[1]] + [{"value": 2, "box": [0, 0, 5, 5]}]
    if other[names[2]]:
        other[names[2]][0] = dict(other[names[2]][0], value=7)
    for p in (preds, other, {}):
        ours, theirs = score(labels, p), tool.score(labels, p)
        for key in ("recall", "precision", "value_accuracy", "die_accuracy", "image_accuracy"):
            assert ours[key] == pytest.approx(theirs[key]), key
        assert ours["per_value_accuracy"] == pytest.approx(theirs["per_value_accuracy"])
        assert ours["failures"] == theirs["failures"]
