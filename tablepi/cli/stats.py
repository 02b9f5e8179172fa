"""`tablepi stats`: are the dice fair? Counts of every Beam Me Up die thrown,
over all games kept, one game, one player or since a date."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablepi.store import LoggedCommand


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="are the dice fair? face counts and a test against a fair die")
    p.add_argument("--game", type=int, help="one game's number (see `tablepi games list`)")
    p.add_argument("--player", help="only the dice this player threw")
    p.add_argument("--since", help="only games started on or after this date (YYYY-MM-DD)")
    p.add_argument("--data-dir", type=Path, help="where the games are kept (default from config)")
    p.add_argument("--config", type=Path, help="a config file read after the system and user ones")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def first_roll_scores() -> float:
    """The exact chance that a first roll of five dice has any scoring option."""
    from tablepi.games.beam_me_up.odds import _multinomial
    from tablepi.games.beam_me_up.options import SORTED_ROLLS, TABLE

    return sum(_multinomial(roll) for roll in SORTED_ROLLS if TABLE[roll]) / 6**5


def thrown(
    settings: dict[str, Any], entries: list[LoggedCommand]
) -> list[tuple[str, list[int], list[int] | None]]:
    """(player, dice thrown, the whole roll if it was the turn's first, else None)
    for each roll still in effect in a Beam Me Up game's log."""
    from tablepi.games import new_game
    from tablepi.store import apply_logged, effective

    in_effect = set(effective((e.seq, str(e.command.get("type"))) for e in entries))
    game = new_game("beam_me_up", settings)
    rolls = []
    for entry in entries:
        if entry.seq not in in_effect:
            continue
        if entry.command.get("type") == "roll":
            # Dice set aside were not thrown again.
            fresh = Counter(entry.command.get("dice", [])) - Counter(entry.command.get("kept", []))
            first = list(entry.command.get("dice", [])) if game.roll_number == 0 else None
            rolls.append((game.players[game.active], sorted(fresh.elements()), first))
        apply_logged(game, entry)
    return rolls


def run(args: argparse.Namespace) -> int:
    from tablepi.cli.games import _store
    from tablepi.games.beam_me_up.options import TABLE
    from tablepi.stats import chi_square, dice_needed, face_counts, fairness_words, luck_words

    since = None
    if args.since is not None:
        try:
            since = datetime.datetime.strptime(args.since, "%Y-%m-%d").timestamp()
        except ValueError:
            print(f"tablepi stats: --since is a date such as 2026-11-28, not {args.since!r}", file=sys.stderr)
            return 2
    store = _store(args)
    try:
        games = [g for g in store.games() if g.kind == "beam_me_up"]
        if args.game is not None:
            games = [g for g in games if g.id == args.game]
            if not games:
                print(f"tablepi stats: no game of Beam Me Up numbered {args.game}", file=sys.stderr)
                return 2
        if since is not None:
            games = [g for g in games if g.created_at >= since]
        dice: list[int] = []
        firsts: dict[str, list[int]] = {}  # per player: [first rolls, of which scored]
        for g in games:
            try:
                rolls = thrown(g.settings, store.commands(g.id))
            except Exception as exc:  # a game that no longer replays is left out, and said so
                print(f"tablepi stats: game {g.id} left out: {exc}", file=sys.stderr)
                continue
            for player, values, first in rolls:
                if args.player not in (None, player):
                    continue
                dice += values
                if first is not None:
                    tally = firsts.setdefault(player, [0, 0])
                    tally[0] += 1
                    tally[1] += bool(TABLE[tuple(sorted(first))])
    finally:
        store.close()
    counts = face_counts(dice)
    statistic, p = chi_square(counts)
    chance = first_roll_scores()
    summary = {
        "games": len(games),
        "dice": len(dice),
        "counts": dict(zip("123456", counts, strict=True)),
        "chi_square": statistic,
        "p_value": p,
        "dice_needed": dice_needed(),
        "words": fairness_words(counts),
        "luck": [
            {"player": name, "first_rolls": n, "scored": hits, "words": luck_words(name, hits, n, chance)}
            for name, (n, hits) in sorted(firsts.items())
        ],
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{len(dice):,} dice thrown in {len(games)} game{'s' * (len(games) != 1)}")
    total = max(len(dice), 1)
    for face, count in zip(range(1, 7), counts, strict=True):
        print(f"  {face}: {count:>6,}  {count / total:6.1%}  {'#' * round(60 * count / total)}")
    print(f"chi-square {statistic:.2f} (5 degrees of freedom), p = {p:.3g}")
    print(summary["words"])
    for row in summary["luck"]:
        print(row["words"])
    return 0
