"""`tablepi bench table`: commands per second through the table's whole path.

Each command is validated by the rules, committed to SQLite (WAL,
synchronous=FULL, one transaction per command), applied and published to a
subscriber, on a temporary data folder. The figure depends mostly on how
fast the disk completes an fsync.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--commands", type=int, default=1000, help="commands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random Beam Me Up games")
    parser.add_argument("--dir", help="data folder to use (default: a temporary one)")


def run(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.game import BeamMeUp
    from tablepi.games.beam_me_up.randomplay import random_command
    from tablepi.store import Store
    from tablepi.table import Table

    total = max(1, int(getattr(args, "commands", 1000)))
    rng = random.Random(getattr(args, "seed", 1))
    settings = {"players": [{"name": "Ann"}, {"name": "Ben"}, {"name": "Sam"}]}
    with tempfile.TemporaryDirectory(dir=getattr(args, "dir", None)) as data_dir:
        store = Store(data_dir)
        table = Table(store)
        sub = table.subscribe(maxsize=2 * total + 10)
        shadow = None
        latencies: list[float] = []
        games = 0
        started = time.perf_counter()
        for _ in range(total):
            if shadow is None or shadow.finished:
                table.start_game("beam_me_up", settings, source="cli")
                shadow = BeamMeUp.from_settings(settings)
                games += 1
            command = random_command(shadow, rng)
            shadow.push(command)
            t0 = time.perf_counter()
            table.submit(command, "cli")
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
        received = sub.pending()
        sub.close()
        store.close()
        # Start-up after a power cut: open the database and resume the game.
        t0 = time.perf_counter()
        resumed = Table(Store(data_dir))
        resume_ms = (time.perf_counter() - t0) * 1000
        resumed_seq = resumed.seq
        resumed.store.close()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"table: {total / elapsed:.0f} commands/s through validate + store (synchronous=FULL)"
        " + apply + publish"
    )
    print(
        f"  {total} commands in {games} Beam Me Up game(s), {elapsed:.2f} s; "
        f"latency p50 {p50:.2f} ms, p99 {p99:.2f} ms; {received} events published"
    )
    print(
        f"  resume after a restart: {resume_ms:.1f} ms "
        f"(open, check, snapshot + replay to command {resumed_seq})"
    )
    return 0
