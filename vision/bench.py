"""`tablepi bench dice`: milliseconds per frame of the dice reader, on one thread.

Times what a table reads: the real labelled test photos of every dataset as
they are, the same photos enlarged to a Pi camera's 8 MP frame, and rendered
frames (the simulated camera's) apart; then each dataset's photos as one
table's rolls (``vision.table_reader``: three views a roll, told how many dice
were thrown, learning the camera as it goes), the calibrated rolls apart.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vision import N_

if TYPE_CHECKING:
    import numpy as np


def english(template: str, **fields: object) -> str:
    """A marked line with its fields filled in, in English; `tablepi bench` passes its own
    ``say`` (``args.say``), which says it in the system's language."""
    return template.format(**fields)


Say = Callable[..., str]


# The labelled photos beside the project (as the tests' ``shared_dir`` finds them).
DATASETS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"
# A Raspberry Pi camera module's 8 MP frame.
PI_FRAME = (3280, 2464)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--datasets", type=Path, default=DATASETS, help=N_("the labelled photos (default %(default)s)")
    )
    parser.add_argument("--photos", type=int, default=0, help=N_("photos per dataset (default 0: all)"))
    parser.add_argument("--large", type=int, default=20, help=N_("photos enlarged to 8 MP (default 20)"))
    parser.add_argument("--frames", type=int, default=30, help=N_("rendered frames (default 30)"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rolls",
        type=int,
        default=-1,
        help=N_("photos per dataset read as a table's rolls (default all; 0: none)"),
    )


def time_frames(frames: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Wall and CPU milliseconds of ``read_dice`` on each frame, after one warm-up read."""
    import numpy as np

    from vision import read_dice

    read_dice(frames[0])
    wall, cpu = [], []
    for f in frames:
        t0, c0 = time.perf_counter(), time.process_time()
        read_dice(f)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return np.array(wall), np.array(cpu)


def time_rolls(frames: list[np.ndarray], counts: list[int | None]) -> tuple[np.ndarray, np.ndarray]:
    """Wall milliseconds of each roll as one table reads it, in order: those read with a
    calibration of the camera, and those read before one was learned (or after it was dropped)."""
    import numpy as np

    from vision.table_reader import TableReader

    TableReader().read(frames[0])  # warm-up, on a reader of its own
    table = TableReader()
    calibrated, not_yet = [], []
    for frame, count in zip(frames, counts, strict=True):
        had = table.calibration.sizes is not None
        t0 = time.perf_counter()
        table.read(frame, expect=count)
        (calibrated if had else not_yet).append((time.perf_counter() - t0) * 1000)
    return np.array(calibrated), np.array(not_yet)


def roll_summary(label: str, calibrated: np.ndarray, not_yet: np.ndarray, say: Say = english) -> str:
    """One line of a table's roll times: calibrated rolls, then the rest."""
    import numpy as np

    def figures(ms: np.ndarray) -> str:
        if not len(ms):
            return say(N_("none"))
        fields = {"median": f"{np.median(ms):.1f}", "p95": f"{np.percentile(ms, 95):.1f}", "rolls": len(ms)}
        return say(N_("median {median} ms, p95 {p95} ms ({rolls} rolls)"), **fields)

    return say(
        N_("{label} as a table's rolls: calibrated {calibrated}; uncalibrated {uncalibrated}"),
        label=label,
        calibrated=figures(calibrated),
        uncalibrated=figures(not_yet),
    )


def summary(label: str, wall: np.ndarray, cpu: np.ndarray, say: Say = english) -> str:
    """One line of figures; CPU time is given too: on a busy machine it is the steadier figure."""
    import numpy as np

    return say(
        N_(
            "{label}: median {median} ms, p95 {p95} ms per frame (CPU median {cpu_median} ms, p95 "
            "{cpu_p95} ms; {frames} frames)"
        ),
        label=label,
        median=f"{np.median(wall):.1f}",
        p95=f"{np.percentile(wall, 95):.1f}",
        cpu_median=f"{np.median(cpu):.1f}",
        cpu_p95=f"{np.percentile(cpu, 95):.1f}",
        frames=len(wall),
    )


def photos(folder: Path, count: int = 0) -> list[np.ndarray]:
    """The photos of ``folder`` (sorted by name; the first ``count`` when given), or none."""
    import cv2

    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.jpg"))
    if count:
        paths = paths[:count]
    frames = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths]
    return [f for f in frames if f is not None]


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.synth import scene

    cv2.setNumThreads(1)
    root = Path(getattr(args, "datasets", DATASETS))
    sets = sorted(p for p in root.iterdir() if (p / "test").is_dir()) if root.is_dir() else []
    say: Say = getattr(args, "say", english)
    print(say(N_("dice reader, one thread")))
    if not sets:
        print(say(N_("labelled photos: skipped, {folder} not found"), folder=root))
    pooled = []
    for folder in sets:
        frames = photos(folder / "test", int(getattr(args, "photos", 0)))
        if not frames:
            continue
        h, w = frames[0].shape[:2]
        wall, cpu = time_frames(frames)
        pooled.append(wall)
        print(
            summary(say(N_("{set}/test photos ({size})"), set=folder.name, size=f"{w}x{h}"), wall, cpu, say)
        )
    if pooled:
        every = np.concatenate(pooled)
        fields = {"median": f"{np.median(every):.1f}", "p95": f"{np.percentile(every, 95):.1f}"}
        print(say(N_("all test photos: median {median} ms, p95 {p95} ms"), **fields))
    large_n = int(getattr(args, "large", 20))
    if sets and large_n:
        large = []
        per_set = max(1, large_n // len(sets))
        for folder in sets:
            for f in photos(folder / "test", per_set):
                large.append(cv2.resize(f, PI_FRAME, interpolation=cv2.INTER_CUBIC))
        label = say(N_("test photos enlarged to {size}"), size=f"{PI_FRAME[0]}x{PI_FRAME[1]}")
        print(summary(label, *time_frames(large), say))
    rng = np.random.default_rng(int(getattr(args, "seed", 7)))
    kinds = ["plain", "wood", "cloth", "speckle", "tray"]
    frames_n = max(5, int(getattr(args, "frames", 30)))
    rendered = [
        scene(640, 480, [int(v) for v in rng.integers(1, 7, 5)], 48, rng, kinds[i % len(kinds)])[0]
        for i in range(frames_n)
    ]
    label = say(N_("rendered {size} frames (the simulated camera)"), size="640x480")
    print(summary(label, *time_frames(rendered), say))
    rolls = int(getattr(args, "rolls", -1))
    for folder in sets if rolls else []:
        paths = sorted((folder / "test").glob("*.jpg"))[: rolls if rolls > 0 else None]
        counts = dice_counts(folder / "test")
        read = [(cv2.imread(str(p), cv2.IMREAD_COLOR), counts.get(p.name)) for p in paths]
        read = [(f, n) for f, n in read if f is not None]
        if read:
            frames, known = zip(*read, strict=True)
            print(roll_summary(f"{folder.name}/test", *time_rolls(list(frames), list(known)), say))
    return 0


def dice_counts(folder: Path) -> dict[str, int]:
    """How many dice each labelled photo of ``folder`` shows (the table knows how many it threw)."""
    from vision.datasets import DatasetError, load_labels

    try:
        return {name: len(entry.get("dice", [])) for name, entry in load_labels(folder).items()}
    except DatasetError:
        return {}
