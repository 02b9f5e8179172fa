"""Rolls from real photos: the replay camera shows each labelled test photo as a
roll (motion, then still frames with sensor noise), the settle detector reads
it on three still frames (as is, turned a quarter, mirrored), and the table's
check (the count it knows, every die likely enough) takes it or refuses it. A roll taken
must never be wrong."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from hardware.cameras import ReplayCamera
from tablepi.controllers.beam_me_up import reading_problem
from vision.datasets import load_labels
from vision.settle import READING, Settler

FPS = 15.0
HOLD = 12  # frames per photo: 0.8 s, time to settle and read three frames
# Every N-th test photo of each dataset (the suite's time): byler's 50 photos are few.
EVERY = {"byler-d6": 10, "rune55-d6": 20, "matteop65-d6": 20}


def replay_rolls(folder: Path, every: int = 1, noise: float = 2.0) -> dict[str, list[str]]:
    """Each photo of ``folder`` played as a roll: {"taken": [...], "refused": [...], "wrong": [...]}."""
    labels = load_labels(folder)
    names = sorted(labels)[::every]
    camera = ReplayCamera(folder, hold_frames=HOLD)
    camera.files = [folder / n for n in names]
    rng = np.random.default_rng(0)
    settler = Settler(still_seconds=0.2)
    out: dict[str, list[str]] = {"taken": [], "refused": [], "wrong": []}
    for n in range(len(names) * HOLD):
        photo = camera.current.name
        frame = camera.read()
        noisy = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
        event = settler.feed(noisy, n / FPS)
        if event is None or event.kind != READING:
            continue
        truth = Counter(int(d["value"]) for d in labels[photo]["dice"])
        readings = [d.to_dict() for d in event.dice]
        if reading_problem(readings, count=sum(truth.values())) is not None:
            out["refused"].append(photo)
        elif Counter(d["value"] for d in readings) == truth:
            out["taken"].append(photo)
        else:
            out["wrong"].append(photo)
    return out


# Rolls taken wrong, of the photos replayed, as measured: a die read sure and
# wrong on every frame (a known limit of the reader; the target is none).
WRONG_AT_MOST = {"byler-d6": 0, "rune55-d6": 0, "matteop65-d6": 0}


@pytest.mark.parametrize("name", sorted(WRONG_AT_MOST))
def test_replayed_rolls_are_taken_or_refused_never_wrong(shared_dir: Path, name: str) -> None:
    folder = shared_dir / "datasets" / name / "test"
    got = replay_rolls(folder, EVERY[name])
    played = sum(len(v) for v in got.values())
    assert played == len(
        sorted(load_labels(folder))[:: EVERY[name]]
    )  # every photo came to rest and was read once
    assert len(got["wrong"]) <= WRONG_AT_MOST[name], got["wrong"]
    assert got["taken"], got  # some rolls are taken, not all refused
