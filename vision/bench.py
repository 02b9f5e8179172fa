"""`tablepi bench dice`: milliseconds per frame of the dice reader on one thread."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# The labelled photos beside the project (as the tests' ``shared_dir`` finds them).
PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "byler-d6" / "train"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--frames", type=int, default=60, help="frames per resolution (default 60)")
    parser.add_argument("--seed", type=int, default=7)


def time_frames(
    frames: list[np.ndarray], quick: bool = True, views: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Wall and CPU milliseconds of ``read_dice`` on each frame, after one warm-up read."""
    import numpy as np

    from vision import VIEWS, read_dice

    views = len(VIEWS) if views is None else views
    read_dice(frames[0], quick=quick, views=views)
    wall, cpu = [], []
    for f in frames:
        t0, c0 = time.perf_counter(), time.process_time()
        read_dice(f, quick=quick, views=views)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return np.array(wall), np.array(cpu)


def summary(label: str, wall: np.ndarray, cpu: np.ndarray) -> str:
    """One line of figures; CPU time is given too: on a busy machine it is the steadier figure."""
    import numpy as np

    return (
        f"{label}: median {np.median(wall):.1f} ms, p95 {np.percentile(wall, 95):.1f} ms "
        f"per frame (CPU median {np.median(cpu):.1f} ms, p95 {np.percentile(cpu, 95):.1f} ms; "
        f"{len(wall)} frames)"
    )


def quick_share(frames: list[np.ndarray]) -> str:
    """How many of ``frames`` the quick reader answers (the rest cost the full reader's time)."""
    from vision import fast

    taken = sum(fast.read(f) is not None for f in frames)
    return f"the quick reader read {taken} of {len(frames)} frames"


def photo_frames(folder: Path, count: int) -> list[np.ndarray]:
    """Up to ``count`` photos of ``folder`` (sorted by name), or none when it is absent."""
    import cv2

    if not folder.is_dir():
        return []
    frames = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(folder.glob("*.jpg"))[:count]]
    return [f for f in frames if f is not None]


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.synth import scene

    cv2.setNumThreads(1)
    frames_n = max(5, int(getattr(args, "frames", 60)))
    rng = np.random.default_rng(int(getattr(args, "seed", 7)))
    kinds = ["plain", "wood", "cloth", "speckle", "tray"]
    print("dice reader, one thread, rendered scenes of five dice on varied tables")
    for width, height in ((640, 480), (1280, 720)):
        size = height / 10
        frames = [
            scene(width, height, [int(v) for v in rng.integers(1, 7, 5)], size, rng, kinds[i % len(kinds)])[0]
            for i in range(frames_n)
        ]
        print(summary(f"{width}x{height}", *time_frames(frames)) + f"; {quick_share(frames)}")
        # A frame the quick reader sends on costs the full reader's time; the
        # real photos below all are.
        print(summary(f"{width}x{height}, full reader only", *time_frames(frames, quick=False)))
    photos = photo_frames(PHOTOS, frames_n)
    if photos:
        h, w = photos[0].shape[:2]
        line = summary(f"byler-d6/train photos ({w}x{h})", *time_frames(photos))
        print(f"{line}; {quick_share(photos)}")
        # What reading in several views (vision.views) costs over reading once.
        print(summary(f"byler-d6/train photos ({w}x{h}), one view", *time_frames(photos, views=1)))
    else:
        print(f"byler-d6/train photos: skipped, {PHOTOS} not found")
    return 0
