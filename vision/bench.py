"""`tablepi bench dice`: milliseconds per frame of the dice reader on one thread."""

from __future__ import annotations

import argparse
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--frames", type=int, default=60, help="frames per resolution (default 60)")
    parser.add_argument("--seed", type=int, default=7)


def run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision import read_dice
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
        read_dice(frames[0])  # warm-up
        wall, cpu = [], []
        for f in frames:
            t0, c0 = time.perf_counter(), time.process_time()
            read_dice(f)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        arr, carr = np.array(wall), np.array(cpu)
        # CPU time is printed too: on a busy machine it is the steadier figure.
        print(
            f"{width}x{height}: median {np.median(arr):.1f} ms, p95 {np.percentile(arr, 95):.1f} ms "
            f"per frame (CPU median {np.median(carr):.1f} ms; {frames_n} frames)"
        )
    return 0
