"""`tablepi bench WHAT`: the project's speed and memory figures.

Each benchmark lives beside what it measures and exposes
``add_arguments(parser)`` (optional) and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib

from tablepi.cli import say
from tablepi.i18n import N_

BENCHMARKS = {
    "rules": ("tablepi.bench.rules", N_("Beam Me Up rolls read and random games played per second")),
    "dice": (
        "vision.bench",
        N_("dice reader ms per real test photo, 8 MP frame, rendered frame and table roll"),
    ),
    "table": ("tablepi.bench.table", N_("commands per second through validate, store, apply, publish")),
    "advise": (
        "tablepi.bench.advise",
        N_("Beam Me Up keep advice: ms per roll with 2 rolls left (median, p99)"),
    ),
    "web": ("web.bench", N_("live SSE clients under a steady command load: loss, delay, memory")),
    "venue": (
        "tablepi.bench.venue",
        N_("30 tables through one MQTT broker to the venue board: delay, memory"),
    ),
    "stats": ("tablepi.bench.stats", N_("GET /stats with 100,000 rolls stored: median and p99 ms")),
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help=N_("print benchmark figures"))
    which = parser.add_subparsers(dest="bench", required=True, metavar="WHAT")
    for name, (module_name, help_text) in BENCHMARKS.items():
        p = which.add_parser(name, help=help_text)
        # The benchmarks say their lines through args.say (the dice reader imports nothing of tablepi).
        p.set_defaults(func=_runner(module_name), say=say)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        add_arguments = getattr(module, "add_arguments", None)
        if add_arguments is not None:
            add_arguments(p)


def _runner(module_name: str):
    def run(args: argparse.Namespace) -> int:
        module = importlib.import_module(module_name)
        return int(module.run(args) or 0)

    return run
