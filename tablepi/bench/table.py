"""`tablepi bench table`: commands per second through the table's whole path.

Each command is validated by the rules, committed to SQLite (WAL,
synchronous=FULL, one transaction per command), applied and published to a
subscriber, on a temporary data folder. The figure depends mostly on how
fast the disk completes an fsync.

Then one long game of They Came From Outer Space (``--long``, 50,000
commands by default): the process's memory (RSS) and the command latency
early and late in the game, takebacks late in the game (including a run of
them longer than the game keeps in memory), the snapshot's size and the
resume. A game's memory and per-command cost must not grow with its length.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time

from tablepi.cli import say
from tablepi.i18n import N_


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--commands", type=int, default=1000, help=N_("commands to play (default 1000)"))
    parser.add_argument("--seed", type=int, default=1, help=N_("seed of the random Beam Me Up games"))
    parser.add_argument("--dir", help=N_("data folder to use (default: a temporary one)"))
    parser.add_argument(
        "--long", type=int, default=50_000, help=N_("commands in one long Outer Space game (0: none)")
    )


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
        say(
            N_("table: {rate} commands/s through validate + store (synchronous=FULL) + apply + publish"),
            rate=f"{total / elapsed:.0f}",
        )
    )
    print(
        say(
            N_(
                "  {commands} commands in {games} Beam Me Up game(s), {seconds} s; latency p50 {p50} ms, "
                "p99 {p99} ms; {events} events published"
            ),
            commands=total,
            games=games,
            seconds=f"{elapsed:.2f}",
            p50=f"{p50:.2f}",
            p99=f"{p99:.2f}",
            events=received,
        )
    )
    print(
        say(
            N_("  resume after a restart: {ms} ms (open, check, snapshot + replay to command {seq})"),
            ms=f"{resume_ms:.1f}",
            seq=resumed_seq,
        )
    )
    long = int(getattr(args, "long", 0) or 0)
    if long > 0:
        report = long_game(long, getattr(args, "dir", None))
        print(format_long(report))
    return 0


PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
WINDOW = 1000  # commands in each latency sample


def rss_mb() -> float:
    """This process's resident memory now, in MB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the peak, where /proc is missing


def _missions():
    """Outer Space commands forever: the first leader, then missions of a
    partner, the timer, the phases to the Bridge and a vote for the next
    leader."""
    leader = 0
    yield {"type": "leader", "player": PLAYERS[leader]}
    while True:
        partner = (leader + 1) % len(PLAYERS)
        nxt = (leader + 2) % len(PLAYERS)
        yield {"type": "partner", "player": PLAYERS[partner]}
        yield {"type": "timer_start"}
        for _ in range(3):
            yield {"type": "next_phase"}
        yield {"type": "vote", "votes": {PLAYERS[nxt]: 3}}
        leader = nxt


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def long_game(total: int, folder: str | None = None) -> dict[str, float]:
    """Play ``total`` commands in one Outer Space game; the figures as a dict."""
    import sqlite3

    from tablepi.store import DB_NAME, Store
    from tablepi.table import Table

    with tempfile.TemporaryDirectory(dir=folder) as data_dir:
        store = Store(data_dir)
        table = Table(store)
        sub = table.subscribe(maxsize=10)  # a viewer that falls behind, as a real one may
        table.start_game("outer_space", {"players": PLAYERS}, source="cli")
        commands = _missions()
        latencies: list[float] = []
        rss_start = rss_mb()
        rss_early = rss_half = 0.0
        for n in range(total):
            command = next(commands)
            t0 = time.perf_counter()
            table.submit(command, "cli")
            latencies.append(time.perf_counter() - t0)
            if n == min(total, WINDOW) - 1:
                rss_early = rss_mb()
            if n == total // 2:
                rss_half = rss_mb()
            sub.get(timeout=0)
        rss_end = rss_mb()
        undo: list[float] = []
        for _ in range(40):  # longer than the game keeps in memory
            t0 = time.perf_counter()
            table.submit({"type": "undo"}, "cli")
            undo.append(time.perf_counter() - t0)
        sub.close()
        store.close()
        conn = sqlite3.connect(f"{data_dir}/{DB_NAME}")
        snapshot = conn.execute(
            "SELECT length(state) FROM snapshots WHERE seq > 0 ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        conn.close()
        t0 = time.perf_counter()
        resumed = Table(Store(data_dir))
        resume_ms = (time.perf_counter() - t0) * 1000
        resumed.store.close()
    early, late = latencies[:WINDOW], latencies[-WINDOW:]
    return {
        "commands": total,
        "rss_start_mb": rss_start,
        "rss_early_mb": rss_early,
        "rss_half_mb": rss_half,
        "rss_end_mb": rss_end,
        "early_p50_ms": _percentile(early, 0.5),
        "early_p99_ms": _percentile(early, 0.99),
        "late_p50_ms": _percentile(late, 0.5),
        "late_p99_ms": _percentile(late, 0.99),
        "undo_p50_ms": _percentile(undo, 0.5),
        "undo_max_ms": max(undo) * 1000,
        "snapshot_kb": (snapshot[0] if snapshot else 0) / 1024,
        "resume_ms": resume_ms,
    }


def format_long(r: dict[str, float]) -> str:
    return "\n".join(
        (
            say(
                N_("long game: {commands} commands in one Outer Space game"), commands=f"{r['commands']:.0f}"
            ),
            say(
                N_(
                    "  RSS {start} MB at the start, {early} MB after {window} commands, {half} MB after "
                    "{half_commands}, {end} MB after {commands}"
                ),
                start=f"{r['rss_start_mb']:.1f}",
                early=f"{r['rss_early_mb']:.1f}",
                window=WINDOW,
                half=f"{r['rss_half_mb']:.1f}",
                half_commands=f"{r['commands'] // 2:.0f}",
                end=f"{r['rss_end_mb']:.1f}",
                commands=f"{r['commands']:.0f}",
            ),
            say(
                N_(
                    "  latency first {window}: p50 {early_p50} ms, p99 {early_p99} ms; last {window}: p50 "
                    "{late_p50} ms, p99 {late_p99} ms"
                ),
                window=WINDOW,
                early_p50=f"{r['early_p50_ms']:.2f}",
                early_p99=f"{r['early_p99_ms']:.2f}",
                late_p50=f"{r['late_p50_ms']:.2f}",
                late_p99=f"{r['late_p99_ms']:.2f}",
            ),
            say(
                N_("  40 takebacks in a row at the end: p50 {p50} ms, slowest {slowest} ms"),
                p50=f"{r['undo_p50_ms']:.2f}",
                slowest=f"{r['undo_max_ms']:.1f}",
            ),
            say(
                N_("  latest snapshot {size} KB; resume after a restart {ms} ms"),
                size=f"{r['snapshot_kb']:.1f}",
                ms=f"{r['resume_ms']:.1f}",
            ),
        )
    )
