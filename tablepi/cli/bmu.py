"""`tablepi bmu`: Beam Me Up from the command line.

tablepi bmu options 1 2 3 4 4         the options of a roll, in plain words
tablepi bmu options --json 2 2 2 4 6  the same as JSON
tablepi bmu options --all --json      every sorted roll (252) and its options
tablepi bmu layout my-board.json      check a board layout file (or A..D)
tablepi bmu odds 1 2 3 4 4 --rolls-left 2 --target big-straight [--keep 1 2 3 4] [--json]
                                      (--keep before the roll: --keep 1 2 3 4 1 2 3 4 4)
                                      exact chance of a target with the best keeps
                                      (without --target: every target)
tablepi bmu advise 5 5 5 2 3 --rolls-left 2 --board A --counters 1=6 5=3 [--opponent 1=4 ...] [--json]
tablepi bmu advise --game saved.json  the keeps for the player to roll in a saved game, ranked
tablepi bmu duel --games 1000         the advice against "keep the most frequent value"
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tablepi.cli import say, say_text
from tablepi.i18n import N_

# Every target of beam_me_up.odds.TARGETS (a test holds the two together;
# the odds module is not imported here, so that `tablepi` starts fast).
TARGET_HELP = N_(
    "one of pair, triplet, four, five (of any value), pair:N, triplet:N, four:N, five:N"
    " (of the value N, 1..6), two-pairs, full-house, small-straight, big-straight"
    " (default: every target)"
)
KEEP_HELP = N_(
    "the dice set aside for the first re-roll: after the roll (1 1 3 4 6 --keep 3 4), as one"
    ' argument (--keep "3 4" or --keep 3,4), or before the roll, which is then its last five'
    " values (--keep 3 4 1 1 3 4 6); --keep alone sets nothing aside"
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bmu", help=N_("Beam Me Up: a roll's options, odds and advice, the advice's duel, board layouts")
    )
    which = parser.add_subparsers(dest="bmu", required=True, metavar="WHAT")

    opts = which.add_parser("options", help=N_("the options of a roll of five dice"))
    opts.add_argument("dice", nargs="*", metavar="DIE", help=N_("five die values, 1..6"))
    opts.add_argument("--json", action="store_true", help=N_("print JSON"))
    opts.add_argument("--all", action="store_true", help=N_("every sorted roll and its options"))
    opts.set_defaults(func=_options)

    lay = which.add_parser("layout", help=N_("check a board layout (a JSON file, or A..D) and show it"))
    lay.add_argument("source", metavar="FILE|BOARD")
    lay.add_argument("--json", action="store_true", help=N_("print the layout as JSON"))
    lay.set_defaults(func=_layout)

    odds = which.add_parser(
        "odds",
        help=N_("exact chance of reaching a target in the rolls left"),
        epilog=N_("example: tablepi bmu odds 1 1 3 4 6 --keep 3 4 --target small-straight"),
    )
    odds.add_argument("dice", nargs="*", metavar="DIE", help=N_("five die values, 1..6"))
    odds.add_argument("--rolls-left", type=int, default=2, help=N_("re-rolls left, 0..2 (default 2)"))
    odds.add_argument("--target", help=TARGET_HELP)
    odds.add_argument("--keep", nargs="*", metavar="DIE", help=KEEP_HELP)
    odds.add_argument("--json", action="store_true", help=N_("print JSON"))
    odds.set_defaults(func=_odds)

    adv = which.add_parser("advise", help=N_("rank every keep of a roll by the turn's expected value"))
    adv.add_argument("dice", nargs="*", metavar="DIE", help=N_("five die values, 1..6 (not with --game)"))
    adv.add_argument("--game", type=Path, help=N_("a saved game (game JSON or `tablepi games export`)"))
    adv.add_argument("--rolls-left", type=int, default=2, help=N_("re-rolls left, 0..2 (default 2)"))
    adv.add_argument("--board", default="A", help=N_("the player's board, A..D (default A)"))
    adv.add_argument("--counters", nargs="*", default=[], metavar="COL=ROW", help=N_("the player's counters"))
    adv.add_argument(
        "--opponent",
        nargs="*",
        action="append",
        metavar="COL=ROW",
        help=N_("another player's counters (repeat)"),
    )
    adv.add_argument("--top", type=int, default=5, help=N_("how many keeps to show (default 5, 0: all)"))
    adv.add_argument("--json", action="store_true", help=N_("print JSON"))
    adv.set_defaults(func=_advise)

    duel = which.add_parser(
        "duel", help=N_("two-player games: the advice against keeping the most frequent value")
    )
    duel.add_argument("--games", type=int, default=1000, help=N_("games to play (default 1000)"))
    duel.add_argument("--seed", type=int, default=1, help=N_("random seed"))
    duel.add_argument("--json", action="store_true", help=N_("print JSON"))
    duel.set_defaults(func=_duel)


def _fail(message: str) -> int:
    """``message`` (already in the reader's language) on standard error; exit code 2."""
    print(f"tablepi bmu: {message}", file=sys.stderr)
    return 2


def _options(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.options import SORTED_ROLLS, TABLE, options, roll_key
    from tablepi.games.errors import RuleError

    if args.all:
        if args.dice:
            return _fail(say(N_("give either --all or five dice, not both")))
        if args.json:
            table = {roll_key(roll): [o.to_dict() for o in TABLE[roll]] for roll in SORTED_ROLLS}
            print(json.dumps(table, indent=1))
        else:
            for roll in SORTED_ROLLS:
                texts = [say_text(o.text) for o in TABLE[roll]] or [say(N_("no option"))]
                print(f"{roll_key(roll)}: {' | '.join(texts)}")
        return 0
    dice = []
    for word in args.dice:
        try:
            dice.append(int(word))
        except ValueError:
            return _fail(say(N_("{word} is not a die value; give five numbers 1..6"), word=repr(word)))
    try:
        found = options(dice)
    except RuleError as exc:
        return _fail(say_text(exc.message))
    if args.json:
        print(json.dumps([o.to_dict() for o in found]))
    elif found:
        for option in found:
            print(say_text(option.text))
    else:
        print(say(N_("no option: the turn passes (B4)")))
    return 0


def _layout(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.board import default_layouts, load_layout
    from tablepi.games.errors import RuleError

    try:
        layout = default_layouts().get(args.source) or load_layout(args.source)
    except RuleError as exc:
        return _fail(say_text(exc.message))
    data = layout.to_dict()
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    print(
        say(
            N_("{name}: rows 0..{top}, space from row {space}"),
            name=say_text(layout.name),
            top=layout.top_row,
            space=layout.space_row,
        )
    )
    for kind, what in (
        ("rockets", N_("rockets")),
        ("pink_stars", N_("pink stars")),
        ("blue_stars", N_("blue stars")),
    ):
        squares = ", ".join(f"{s['column']}:{s['row']}" for s in data[kind]) or say(N_("none"))
        print(f"  {say(what)}: {squares}")
    return 0


def _dice_values(words: list[str]) -> list[int]:
    values = []
    for word in words:
        try:
            values.append(int(word))
        except ValueError:
            raise ValueError(
                say(N_("{word} is not a die value; give numbers 1..6"), word=repr(word))
            ) from None
    return values


def _values(words: list[str]) -> list[int]:
    """Die values from words that may each hold several ("3 4", "3,4")."""
    return _dice_values([v for word in words for v in word.replace(",", " ").split()])


def _roll_and_keep(dice: list[str], keep: list[str] | None) -> tuple[list[int], list[int] | None]:
    """The roll and the dice set aside, however they were written (see KEEP_HELP):
    ``--keep`` before the roll takes the roll's values too, so the roll is
    made of the last values given, five in all."""
    values = _values(dice)
    kept = None if keep is None else _values(keep)
    if kept is not None and len(values) < 5 <= len(values) + len(kept):
        missing = 5 - len(values)
        kept, values = kept[:-missing], kept[-missing:] + values
    return values, kept


def _odds(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.odds import TARGETS, probability
    from tablepi.games.beam_me_up.options import check_dice
    from tablepi.games.errors import RuleError

    try:
        dice, keep = _roll_and_keep(args.dice, args.keep)
        if len(dice) != 5 and keep:
            given = len(dice) + len(keep)
            return _fail(
                say(
                    N_("a roll has five dice: give them after the dice set aside ({given} values in all)"),
                    given=given,
                )
            )
        dice = list(check_dice(dice))
        targets = TARGETS if args.target is None else (args.target,)
        chances = {target: probability(dice, args.rolls_left, target, keep) for target in targets}
    except ValueError as exc:  # RuleError is a ValueError
        return _fail(say_text(exc.message) if isinstance(exc, RuleError) else str(exc))

    def entry(chance) -> dict:
        return {"probability": str(chance), "decimal": float(chance)}

    if args.json:
        data: dict = {
            "dice": dice,
            "rolls_left": args.rolls_left,
            "keep": None if keep is None else sorted(keep),
        }
        if args.target is None:
            data["targets"] = {target: entry(chance) for target, chance in chances.items()}
        else:
            data.update(target=args.target, **entry(chances[args.target]))
        print(json.dumps(data))
        return 0
    print(_odds_head(dice, args.rolls_left, keep))
    shown = {target: _target_shown(target) for target in chances}
    width = max(map(len, shown.values()))
    for target, chance in chances.items():
        print(f"  {shown[target]:<{width}}  {str(chance):>17}  = {float(chance):.4f}")
    return 0


# The targets' names as `bmu odds` shows them; in English as they are typed with --target
# (pair, triplet, four and five are marked with the hints' words in games/beam_me_up/advice.py).
TARGET_WORDS = (N_("two-pairs"), N_("full-house"), N_("small-straight"), N_("big-straight"))


def _target_shown(target: str) -> str:
    # "pair:4" keeps the value as typed: "Pärchen:4".
    kind, colon, value = target.partition(":")
    return say(kind) + colon + value


def _rolls_left(n: int) -> str:
    return say(N_("{n} roll left") if n == 1 else N_("{n} rolls left"), n=n)


def _odds_head(dice: list[int], rolls_left: int, keep: list[int] | None) -> str:
    shown, rolls = " ".join(map(str, dice)), _rolls_left(rolls_left)
    if keep is None:
        return f"{shown}, {rolls}:"
    if not keep:
        return say(N_("{dice}, {rolls}, keeping nothing first:"), dice=shown, rolls=rolls)
    kept = " ".join(map(str, sorted(keep)))
    return say(N_("{dice}, {rolls}, keeping {kept} first:"), dice=shown, rolls=rolls, kept=kept)


def _counters(words: list[str]) -> dict[str, int]:
    found = {}
    for word in words:
        column, _, row = word.partition("=")
        try:
            found[column] = int(row)
        except ValueError:
            raise ValueError(
                say(N_("counters are COLUMN=ROW, such as 3=2 or straight=1, not {word}"), word=repr(word))
            ) from None
    return found


def _saved_game(path: Path):
    from tablepi.games.beam_me_up.game import BeamMeUp

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(
            say(N_("cannot read the saved game {path}: {error}"), path=path, error=exc)
        ) from None
    if isinstance(data, dict) and "final_state" in data:  # an export from `tablepi games export`
        data = data["final_state"]
    return BeamMeUp.from_dict(data)


def _advise(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.advice import Advisor, Position, advise
    from tablepi.games.beam_me_up.game import MAX_ROLLS, BeamMeUp
    from tablepi.games.errors import RuleError

    try:
        if args.game is not None:
            if args.dice:
                raise ValueError(say(N_("give a saved game or five dice, not both")))
            game = _saved_game(args.game)
            advice = advise(game)
            who = game.players[game.active]
        else:
            dice = _dice_values(args.dice)
            others = args.opponent or [[]]
            players = [{"name": "you", "board": args.board, "counters": _counters(args.counters)}]
            for i, words in enumerate(others):
                players.append(
                    {"name": f"player {i + 2}", "board": "ABCD"[(i + 1) % 4], "counters": _counters(words)}
                )
            game = BeamMeUp.from_settings({"players": players, "advantage": False})
            advice = Advisor(Position.from_game(game, 0)).advise(dice, args.rolls_left)
            who = "you"
    except ValueError as exc:  # RuleError is a ValueError
        return _fail(say_text(exc.message) if isinstance(exc, RuleError) else str(exc))
    shown = advice.keeps if args.top <= 0 else advice.keeps[: args.top]
    if args.json:
        data = advice.to_dict()
        data["keeps"] = [k.to_dict() for k in shown]
        data["player"] = who
        print(json.dumps(data))
        return 0
    print(
        say(
            N_("{player}: {dice}, {rolls} (roll {roll} of {rolls_in_all})"),
            player=say(N_("you")) if args.game is None else who,
            dice=" ".join(map(str, advice.dice)),
            rolls=_rolls_left(advice.rolls_left),
            roll=MAX_ROLLS - advice.rolls_left,
            rolls_in_all=MAX_ROLLS,
        )
    )
    for k in shown:
        if k.stop:
            what = say(N_("stop and play this roll"))
        elif k.keep:
            what = say(N_("keep {dice}"), dice=" ".join(map(str, k.keep)))
        else:
            what = say(N_("keep nothing"))
        value = f"{k.value:7.3f}"
        if k.win:
            worth = say(
                N_("expected value {value}, wins this turn {share}"), value=value, share=f"{k.win:.1%}"
            )
        else:
            worth = say(N_("expected value {value}"), value=value)
        print(f"  {what:<28} {worth}")
    steps = ", ".join(_step_text(c) for c in advice.play)
    print(say(N_("playing this roll now: {steps}"), steps=steps))
    return 0


def _step_text(command: dict) -> str:
    kind = command["type"]
    if kind == "choose":
        return say(N_("choose it"))
    if kind == "move":
        return say(N_("part {part} in {column}"), part=command["part"] + 1, column=_column(command["column"]))
    if kind == "bonus":
        return say(N_("bonus square in {column}"), column=_column(command["column"]))
    return say(N_("end the turn"))


def _column(column: str) -> str:
    """A column as the game names it: 1..6, or straight in the reader's words."""
    return say(N_("straight")) if column == "straight" else column


def _duel(args: argparse.Namespace) -> int:
    from tablepi.games.beam_me_up.duel import duel

    result = duel(max(1, args.games), args.seed)
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        say(
            N_(
                "{games} two-player games, seats and boards alternating: the advice player won "
                "{wins} ({share}) against keeping the most frequent value; "
                "a game lasted {turns} turns on average ({rounds} rounds)"
            ),
            games=result["games"],
            wins=result["advice_wins"],
            share=f"{result['advice_win_rate']:.1%}",
            turns=f"{result['average_turns']:.1f}",
            rounds=f"{result['average_rounds']:.1f}",
        )
    )
    return 0
