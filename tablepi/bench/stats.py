"""`tablepi bench stats`: how fast /stats answers with a long history.

Fills a temporary store with ``--rolls`` rolls (100,000 by default) the way a
table would have kept them: games of Beam Me Up played to the win by random
legal play, 2 to 4 players from a circle of eight friends, about a game an
evening over the months; each roll read by the camera (every die with its box
and confidence) or, one in five, entered on a phone; the other commands from
the buttons. A few games of the other two are added too. Each game goes in
through ``Store.import_game``, the real path that replays it and indexes its
rolls, one transaction per game.

Then it builds the real web app around the real service on that folder
(``web.create_app``, as `tablepi run` does, without a camera) and times GET
/stats through Flask's test client (``--requests`` times after one warm-up),
and for comparison the page filtered to one player and one game's page.
Prints the median and p99 in milliseconds. Target: /stats p99 under 200 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tablepi.cli import say
from tablepi.i18n import N_

TARGET_P99_MS = 200.0
FRIENDS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")
START = 1_767_225_600.0  # 1 January 2026
EVENING = 86_400.0
PHONE_SHARE = 0.2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rolls", type=int, default=100_000, help=N_("rolls in the store (default 100,000)"))
    parser.add_argument("--requests", type=int, default=40, help=N_("timed requests per page (default 40)"))
    parser.add_argument("--seed", type=int, default=27, help=N_("seed of the random games"))
    parser.add_argument("--dir", help=N_("folder for the temporary store (default: the system's)"))


def _seen(dice: list[int], rng: random.Random) -> list[dict[str, Any]]:
    """Each die as the camera read it: a box in the frame and a confidence."""
    out = []
    for value in dice:
        x, y = rng.uniform(40, 1100), rng.uniform(40, 640)
        out.append(
            {"value": value, "box": [x, y, x + 62.0, y + 62.0], "confidence": round(rng.uniform(0.8, 1), 3)}
        )
    return out


def beam_me_up_game(rng: random.Random, start: float) -> tuple[dict[str, Any], int]:
    """One game of Beam Me Up played to the win, as an export file; and its rolls."""
    from tablepi.games.beam_me_up.game import BeamMeUp
    from tablepi.games.beam_me_up.randomplay import random_command
    from tablepi.store import EXPORT_FORMAT

    names = rng.sample(FRIENDS, rng.randint(2, 4))
    settings = {"players": [{"name": n, "board": "ABCD"[i]} for i, n in enumerate(names)]}
    game = BeamMeUp.from_settings(settings)
    at = start
    commands, rolls = [], 0
    while not game.finished:
        command = random_command(game, rng)
        game.push(command)
        at += rng.uniform(3, 25)
        logged = dict(command, at=round(at, 3))
        source, manual = "button", False
        if command["type"] == "roll":
            rolls += 1
            if rng.random() < PHONE_SHARE:
                source, manual = "web", True
                logged["manual"] = True
            else:
                source = "camera"
                logged["seen"] = _seen(command["dice"], rng)
        commands.append({"seq": len(commands) + 1, "command": logged, "source": source, "manual": manual})
    return {"format": EXPORT_FORMAT, "kind": "beam_me_up", "settings": settings, "commands": commands}, rolls


def space_beans_game(rng: random.Random, start: float) -> dict[str, Any]:
    """A short game of Space Beans, with a secret collection (a count only)."""
    from tablepi.store import EXPORT_FORMAT

    commands = [
        {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 6]},
        {"type": "end_turn"},
        {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [4]},
        {"type": "end_turn"},
        {"type": "add", "player": 0, "collection": "secret", "count": 3},
    ]
    return {
        "format": EXPORT_FORMAT,
        "kind": "space_beans",
        "settings": {"players": rng.sample(FRIENDS, 2)},
        "commands": [
            {"seq": i, "command": dict(c, at=start + 30 * i), "source": "web"}
            for i, c in enumerate(commands, 1)
        ],
    }


def fill(data_dir: Path, rolls: int, seed: int) -> tuple[int, int]:
    """Fill the store in ``data_dir`` with at least ``rolls`` rolls; (games, rolls)."""
    from tablepi.store import Store

    rng = random.Random(seed)
    now = [START]
    store = Store(data_dir, clock=lambda: now[0])
    games = found = 0
    try:
        while found < rolls:
            now[0] += EVENING * rng.uniform(0.3, 1.5)
            if games % 25 == 24:
                store.import_game(space_beans_game(rng, now[0]))
            else:
                data, n = beam_me_up_game(rng, now[0])
                store.import_game(data)
                found += n
            games += 1
    finally:
        store.close()
    return games, found


def timed(client: Any, path: str, requests: int) -> list[float]:
    reply = client.get(path)  # warm-up: templates compiled, caches filled
    if reply.status_code != 200:
        raise RuntimeError(f"GET {path} answered {reply.status_code}")
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        reply = client.get(path)
        times.append((time.perf_counter() - t0) * 1000)
        if reply.status_code != 200:
            raise RuntimeError(f"GET {path} answered {reply.status_code}")
    return times


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(args: argparse.Namespace) -> int:
    import web
    from tablepi.config import from_dict
    from tablepi.service import Service

    wanted = max(1, int(getattr(args, "rolls", 100_000)))
    requests = max(1, int(getattr(args, "requests", 40)))
    with tempfile.TemporaryDirectory(dir=getattr(args, "dir", None)) as folder:
        data_dir = Path(folder)
        t0 = time.perf_counter()
        games, rolls = fill(data_dir, wanted, int(getattr(args, "seed", 27)))
        size = sum(f.stat().st_size for f in data_dir.iterdir() if f.is_file()) / 1e6
        took = time.perf_counter() - t0
        print(
            say(
                N_("store: {games} games, {rolls} rolls, {size} MB, filled in {took} s"),
                games=f"{games:,}",
                rolls=f"{rolls:,}",
                size=f"{size:.0f}",
                took=f"{took:.0f}",
            )
        )
        service = Service(from_dict({}), data_dir, simulate=True, camera=False)
        try:
            client = web.create_app(service).test_client()
            pages = {
                "/stats": "/stats",
                "/stats?player=": f"/stats?player={FRIENDS[0]}",
                "/stats/game/<id>": f"/stats/game/{games // 2}",
            }
            worst = 0.0
            for name, path in pages.items():
                times = timed(client, path, requests)
                median, p99 = statistics.median(times), percentile(times, 0.99)
                if name == "/stats":
                    worst = p99
                print(
                    say(
                        N_("GET {page}: median {median} ms, p99 {p99} ms over {requests} requests"),
                        page=name,
                        median=f"{median:.1f}",
                        p99=f"{p99:.1f}",
                        requests=len(times),
                    )
                )
        finally:
            service.close()
    verdict = say(N_("ok")) if worst <= TARGET_P99_MS else say(N_("ABOVE the target"))
    print(
        say(
            N_("/stats p99 {p99} ms with {rolls} rolls (target < {target} ms): {verdict}"),
            p99=f"{worst:.1f}",
            rolls=f"{rolls:,}",
            target=f"{TARGET_P99_MS:g}",
            verdict=verdict,
        )
    )
    return 0 if worst <= TARGET_P99_MS else 1
