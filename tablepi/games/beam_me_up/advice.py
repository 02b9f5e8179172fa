"""Which dice to keep: every distinct keep of a roll ranked by the expected
value of the turn's best final choice on the player's own board.

The turn is played out exactly: every keep, every re-roll outcome (weighted
by its chance), the best of stopping or keeping again in the rolls left, and
at the end the best way to play the roll's option (which parts, in which
order, in which columns with the wildcard B9, and where rocket bonus squares
go, B8), with the cool downs (B7) and the win check after every step (B12)
as the engine applies them.

The value of a final choice is the change it makes, scored by a simple
potential. For each counter of a player, by the row r it stands on::

    min(r, space row)          squares toward space            1 each
    r >= space row             a counter in space              +2
    r > 0                      off the start row (B12 needs)   +0.5
    r - space row (if above)   spare squares in space          0.2 each
    on a pink or blue star     safe from cool downs            +0.3
    on a blue star             the wildcard next turn          +0.3 more

A play is worth the player's own potential gained plus, for each other
player, the potential it cools away times that player's weight
``0.5 + counters in space / counters needed`` (the leaders count most).
Rockets count through the bonus squares they give, placed as well as
possible. A play that wins is worth ``WIN_VALUE`` (1000) and nothing else
(the game ends at once, B12), so a keep with a better chance to win this
turn outranks everything else, and a win in hand is never re-rolled.

All of it is pure arithmetic over the game's plain data; a turn's figures
take a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tablepi.games.beam_me_up.board import Layout, layout_from_dict
from tablepi.games.beam_me_up.game import MAX_ROLLS, BeamMeUp
from tablepi.games.beam_me_up.odds import MAX_ROLLS_LEFT, SUB_KEEPS, TRANSITIONS, Roll
from tablepi.games.beam_me_up.options import COLUMNS, SORTED_ROLLS, TABLE, Option, check_dice
from tablepi.games.errors import RuleError
from tablepi.i18n import N_

WIN_VALUE = 1000.0
# Values closer than this are equal (sums of chances are not exact in floating point).
TIE = 1e-9
# OFF_START was 1: a counter's first square then counted double, and the
# advice threw away four of a kind, say, to spread squares over columns. With
# 0.5 it won 1,074 of 2,000 games (53.7%) against itself with 1 (0 did as
# well: 1,077), boards rotated and seats alternated.
SQUARE, IN_SPACE, OFF_START, SPARE, STAR, BLUE = 1.0, 2.0, 0.5, 0.2, 0.3, 0.3
_INDEX = {column: i for i, column in enumerate(COLUMNS)}

# The rolls left are worked out as matrix products over the 252 sorted rolls:
# _CHANCES[k, r] is the chance that keeping keep k and re-rolling the rest
# gives sorted roll r, and row r of _SUB_INDEX lists the keeps of roll r
# (padded by repeating the first).
_ROLL_INDEX = {roll: i for i, roll in enumerate(SORTED_ROLLS)}
_KEEP_INDEX = {keep: i for i, keep in enumerate(TRANSITIONS)}
_CHANCES = np.zeros((len(TRANSITIONS), len(SORTED_ROLLS)))
for _keep, _moves in TRANSITIONS.items():
    for _roll, _weight in _moves:
        _CHANCES[_KEEP_INDEX[_keep], _ROLL_INDEX[_roll]] = _weight / 6**5
_WIDEST = max(len(keeps) for keeps in SUB_KEEPS.values())
_SUB_INDEX = np.array(
    [
        [_KEEP_INDEX[k] for k in keeps] + [_KEEP_INDEX[keeps[0]]] * (_WIDEST - len(keeps))
        for keeps in (SUB_KEEPS[roll] for roll in SORTED_ROLLS)
    ]
)
_ROWS = np.arange(len(SORTED_ROLLS))


@dataclass(frozen=True)
class Position:
    """What the advice needs of a game: every player's rows (by column, in
    COLUMNS order), their boards, whose turn it is and the counters to win."""

    rows: tuple[tuple[int, ...], ...]
    layouts: tuple[Layout, ...]
    seat: int
    need: int

    @classmethod
    def from_public(cls, state: dict[str, Any]) -> Position:
        """From a game's public state as the table publishes it (the player to move)."""
        players = state["players"]
        return cls(
            rows=tuple(tuple(int(p["counters"][c]) for c in COLUMNS) for p in players),
            layouts=tuple(layout_from_dict(p["layout"]) for p in players),
            seat=int(state["turn"]["index"]),
            need=5 if len(players) == 2 else 4,
        )

    @classmethod
    def from_game(cls, game: BeamMeUp, seat: int | None = None) -> Position:
        players = range(len(game.players))
        return cls(
            rows=tuple(tuple(game.counters(s).values()) for s in players),
            layouts=tuple(game.layout(s) for s in players),
            seat=game.active if seat is None else seat,
            need=5 if len(game.players) == 2 else 4,
        )


@dataclass(frozen=True)
class KeepAdvice:
    """One keep: the dice set aside (sorted) and what the turn is worth after it.
    ``stop`` means keeping everything: choose an option of this roll now."""

    keep: Roll
    stop: bool
    value: float
    win: float  # chance to win this turn with the best play after the keep

    def to_dict(self) -> dict[str, Any]:
        return {"keep": list(self.keep), "stop": self.stop, "value": round(self.value, 4), "win": self.win}


@dataclass(frozen=True)
class Advice:
    """Every distinct keep of ``dice``, best first, and the best way to play
    the roll if the player stops now (``play``: game commands, from choose)."""

    dice: Roll
    rolls_left: int
    keeps: tuple[KeepAdvice, ...]
    play: tuple[dict[str, Any], ...]
    play_value: float

    @property
    def best(self) -> KeepAdvice:
        return self.keeps[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "rolls_left": self.rolls_left,
            "keeps": [k.to_dict() for k in self.keeps],
            "play": [dict(c) for c in self.play],
            "play_value": round(self.play_value, 4),
        }


class Advisor:
    """The advice for one turn of one player (the board does not change while
    the player rolls, so the figures are worked out once and shared)."""

    def __init__(self, position: Position) -> None:
        self.position = position
        seat = position.seat
        self._n = len(position.rows)
        self._own0 = position.rows[seat]
        self._opps0 = tuple(position.rows[s] for s in range(self._n) if s != seat)
        layouts = [position.layouts[s] for s in range(self._n) if s != seat]
        self._cells = _cell_values(position.layouts[seat])
        self._opp_cells = [_cell_values(lay) for lay in layouts]
        self._opp_safe = [_safe(lay) for lay in layouts]
        own = position.layouts[seat]
        self._rockets = {(_INDEX[c], r) for c, r in own.rockets}
        self._top = own.top_row
        self._space = own.space_row
        self._need = position.need
        self._weights = [
            0.5 + sum(r >= lay.space_row for r in rows) / position.need
            for rows, lay in zip(self._opps0, layouts, strict=True)
        ]
        blue = {(_INDEX[c], r) for c, r in own.blue_stars}
        self.wildcard = any((c, r) in blue for c, r in enumerate(self._own0))
        self._option_values: dict[Any, float] = {}
        self._final: np.ndarray | None = None
        self._levels: list[np.ndarray] = []

    # -- one final choice ---------------------------------------------------------------

    def _won(self, own: tuple[int, ...]) -> bool:
        return 0 not in own and sum(r >= self._space for r in own) >= self._need

    # The potential is followed step by step (``value`` is the change so far):
    # a move changes one column of the player and the cooled counters of others.

    def _search(self, own, opps, value: float, parts, left: tuple[int, ...]) -> tuple[float, list]:
        """Best (value, steps) from here with the parts ``left`` still to play;
        steps are ("move", part, column index) and ("bonus", column index)."""
        best = (value, [])
        cells = self._cells
        for i in left:
            own_column, squares = parts[i]
            rest = tuple(j for j in left if j != i)
            for c in range(len(COLUMNS)) if self.wildcard else (own_column,):
                old = own[c]
                new = min(old + squares, self._top)
                if new == old:
                    continue  # nothing moves: the same as leaving the part unused
                moved_own = own[:c] + (new,) + own[c + 1 :]
                gained = value + cells[c][new] - cells[c][old]
                moved_opps = opps
                if new - old >= 2:  # B7, counted after forfeiting at the top
                    cooled = []
                    for rows, safe, table, weight in self._opponents(opps):
                        r = rows[c]
                        if r == 0 or (c, r) in safe:
                            cooled.append(rows)
                        else:
                            cooled.append(rows[:c] + (r - 1,) + rows[c + 1 :])
                            gained += weight * (table[c][r] - table[c][r - 1])
                    moved_opps = tuple(cooled)
                step = ("move", i, c)
                if self._won(moved_own):
                    found = (WIN_VALUE, [step])  # the game ends at once (B12): nothing after counts
                elif (c, new) in self._rockets:
                    total, steps = self._bonus(moved_own, moved_opps, gained, parts, rest)
                    found = (total, [step, *steps])
                else:
                    total, steps = self._search(moved_own, moved_opps, gained, parts, rest)
                    found = (total, [step, *steps])
                if found[0] > best[0]:
                    best = found
        return best

    def _opponents(self, opps):
        return zip(opps, self._opp_safe, self._opp_cells, self._weights, strict=True)

    def _bonus(self, own, opps, value: float, parts, left) -> tuple[float, list]:
        """A rocket's bonus square is owed (B8): it must be placed first."""
        best: tuple[float, list] | None = None
        cells = self._cells
        for c, row in enumerate(own):
            if row >= self._top:
                continue
            moved = own[:c] + (row + 1,) + own[c + 1 :]
            gained = value + cells[c][row + 1] - cells[c][row]
            if self._won(moved):
                found = (WIN_VALUE, [("bonus", c)])
            elif (c, row + 1) in self._rockets:
                total, steps = self._bonus(moved, opps, gained, parts, left)
                found = (total, [("bonus", c), *steps])
            else:
                total, steps = self._search(moved, opps, gained, parts, left)
                found = (total, [("bonus", c), *steps])
            if best is None or found[0] > best[0]:
                best = found
        return best if best is not None else self._search(own, opps, value, parts, left)

    def _option_parts(self, option: Option) -> tuple[tuple[int, int], ...]:
        return tuple((_INDEX[column], squares) for column, squares in option.parts)

    def option_value(self, option: Option) -> float:
        """The value of playing an option as well as possible (0: leave it unused)."""
        parts = self._option_parts(option)
        # With the wildcard only the squares matter, not the columns.
        key = tuple(sorted(s for _, s in parts)) if self.wildcard else parts
        value = self._option_values.get(key)
        if value is None:
            value = self._search(self._own0, self._opps0, 0.0, parts, tuple(range(len(parts))))[0]
            self._option_values[key] = value
        return value

    def play(self, dice: Roll) -> tuple[float, tuple[dict[str, Any], ...]]:
        """The value of stopping on ``dice`` and the game commands that play it
        (choose, moves, bonus squares, and end_turn if a part is left unused;
        just end_turn when no option is worth playing)."""
        best_value, commands = 0.0, ({"type": "end_turn"},)
        for index, option in enumerate(TABLE[check_dice(dice)]):
            parts = self._option_parts(option)
            value, steps = self._search(self._own0, self._opps0, 0.0, parts, tuple(range(len(parts))))
            if value <= best_value or not steps:
                continue
            best_value = value
            commands = ({"type": "choose", "option": index}, *_commands(steps, len(parts), value))
        return best_value, commands

    def finish(
        self, parts: tuple[tuple[str, int], ...], left: tuple[int, ...], bonus_owed: bool = False
    ) -> tuple[dict[str, Any], ...]:
        """The best way to play on once an option is chosen and some of it is
        played: ``parts`` are the option's (column, squares), ``left`` the
        parts not used yet, with a rocket's bonus square owed first when
        ``bonus_owed``. Game commands (moves, bonus squares, and end_turn if a
        part is best left unused); the position is this advisor's, so the
        wildcard (set at the choice, B9) is ``self.wildcard``, which a caller
        may set from the game."""
        found = tuple((_INDEX[column], squares) for column, squares in parts)
        if bonus_owed:
            value, steps = self._bonus(self._own0, self._opps0, 0.0, found, tuple(left))
        else:
            value, steps = self._search(self._own0, self._opps0, 0.0, found, tuple(left))
        return _commands(steps, len(left), value)

    # -- the rolls left -----------------------------------------------------------------

    def _final_values(self) -> np.ndarray:
        """Value and win (0 or 1) of stopping on each sorted roll, shape (252, 2)."""
        if self._final is None:
            final = np.zeros((len(SORTED_ROLLS), 2))
            for i, roll in enumerate(SORTED_ROLLS):
                value = max((self.option_value(option) for option in TABLE[roll]), default=0.0)
                if value > 0:
                    final[i] = (value, value >= WIN_VALUE)
            self._final = final
        return self._final

    def _roll_values(self, left: int) -> np.ndarray:
        """Value and win chance of each sorted roll with ``left`` rolls left and
        the best play, shape (252, 2)."""
        if left == 0:
            return self._final_values()
        while len(self._levels) < left:
            after_keep = _CHANCES @ self._roll_values(len(self._levels))
            # Among a roll's keeps (the whole roll is one: a wasted roll, never
            # the best) take the best value, and its win chance with it.
            candidates = after_keep[_SUB_INDEX, 0]
            choice = _SUB_INDEX[_ROWS, candidates.argmax(axis=1)]
            best = after_keep[choice]
            final = self._final_values()
            # Stopping wins ties: rounding must not make a re-roll look better than a sure thing.
            stop = final[:, 0] >= best[:, 0] - TIE
            self._levels.append(np.where(stop[:, None], final, best))
        return self._levels[left - 1]

    def best_option(self, roll: Roll) -> Option | None:
        """The option of a sorted roll worth most to play (None: none is worth playing)."""
        best, best_value = None, 0.0
        for option in TABLE[roll]:
            value = self.option_value(option)
            if value > best_value + TIE:
                best, best_value = option, value
        return best

    def aim(self, keep: Roll, rolls_left: int, now: float = 0.0) -> str:
        """What keeping ``keep`` plays for, in a few words ("a small straight
        with a pair"): the option kind that brings most of what the keep
        gains over ``now`` (the worth of playing the roll now), judged by the
        best option of each roll the next throw can give, weighted by its
        chance and by how much more than ``now`` that roll is worth with the
        rolls left after it."""
        chances = _CHANCES[_KEEP_INDEX[keep]]
        worth = self._roll_values(max(0, rolls_left - 1))[:, 0]
        brought: dict[str, float] = {}
        for i in np.nonzero((chances > 0) & (worth > now + TIE))[0]:
            option = self.best_option(SORTED_ROLLS[i])
            if option is not None:
                goal = goal_words(option)
                brought[goal] = brought.get(goal, 0.0) + float(chances[i] * (worth[i] - now))
        return max(brought, key=brought.__getitem__) if brought else N_("any option")

    def floor(self, keep: Roll, rolls_left: int) -> float:
        """The least a keep is worth after the next throw, whatever it shows
        (with the turn's last throw: the least it ends up worth)."""
        chances = _CHANCES[_KEEP_INDEX[keep]]
        worth = self._roll_values(max(0, rolls_left - 1))[:, 0]
        return float(worth[chances > 0].min())

    def advise(self, dice: Roll | list[int], rolls_left: int) -> Advice:
        """Every distinct keep of the roll, best first (ties: stopping, then
        more dice kept), and the best play if the player stops now."""
        roll = check_dice(dice)
        if type(rolls_left) is not int or not 0 <= rolls_left <= MAX_ROLLS_LEFT:
            raise RuleError("B11", N_("rolls left is 0, 1 or 2, not {n}").format(n=repr(rolls_left)))
        play_value, play = self.play(roll)
        stop_win = float(self._final_values()[_ROLL_INDEX[roll], 1])
        keeps = [KeepAdvice(roll, True, play_value, stop_win)]
        if rolls_left:
            proper = SUB_KEEPS[roll][:-1]  # keeping all five re-rolls nothing: that is stopping
            after = _CHANCES[[_KEEP_INDEX[k] for k in proper]] @ self._roll_values(rolls_left - 1)
            keeps += [
                KeepAdvice(k, False, float(v), float(w)) for k, (v, w) in zip(proper, after, strict=True)
            ]
        keeps.sort(key=lambda k: (-round(k.value / TIE), not k.stop, -len(k.keep)))
        return Advice(roll, rolls_left, tuple(keeps), play, play_value)


def goal_words(option: Option) -> str:
    """An option as a goal, in a few words: "a triplet of 5s", "a small straight with a pair"."""
    name = option.name
    column = option.parts[0][0]
    if name == "pair":
        return N_("a pair of {column}s").format(column=column)
    if name == "triplet":
        return N_("a triplet of {column}s").format(column=column)
    if name == "four of a kind":
        return N_("four {column}s").format(column=column)
    if name == "five of a kind":
        return N_("five {column}s").format(column=column)
    if name == "small straight" and len(option.parts) == 2:
        return N_("a small straight with a pair")
    return {
        "two pairs": N_("two pairs"),
        "full house": N_("a full house"),
        "small straight": N_("a small straight"),
        "big straight": N_("a big straight"),
    }.get(name, name)


def reasons(advice: Advice, advisor: Advisor, count: int = 3) -> list[str]:
    """Why each of the first ``count`` keeps of ``advice`` ranks where it does,
    in a few words: what a keep aims at and what it is worth on average
    against playing the roll now (and "never less" when the turn's last throw
    cannot make it worth less), or what playing now is worth against the best
    re-roll.
    Values are the advice's, in squares' worth."""
    now = advice.play_value
    best_keep = next((k for k in advice.keeps if not k.stop), None)
    said = []
    for k in advice.keeps[:count]:
        if k.stop:
            option = advisor.best_option(advice.dice)
            if option is None:
                said.append(N_("nothing in this roll is worth playing"))
                continue
            goal = goal_words(option)
            if now >= WIN_VALUE:
                said.append(N_("{goal} wins the game now").format(goal=goal))
            elif best_keep is None:
                said.append(N_("{goal} now: {now}").format(goal=goal, now=f"{now:.1f}"))
            elif best_keep.win >= 0.005:
                said.append(
                    N_("{goal} now: {now}; a re-roll may win this turn").format(goal=goal, now=f"{now:.1f}")
                )
            else:
                said.append(
                    N_("{goal} now: {now}; a re-roll averages {best} at best").format(
                        goal=goal, now=f"{now:.1f}", best=f"{best_keep.value:.1f}"
                    )
                )
            continue
        aim = advisor.aim(k.keep, advice.rolls_left, now)
        if k.win >= 0.005:
            said.append(N_("aims at {aim}, to win this turn").format(aim=aim))
            continue
        value = f"{k.value:.1f}"
        # Said of the last throw only: before it, what follows is a chance too.
        never_less = now > 0 and advice.rolls_left == 1 and advisor.floor(k.keep, 1) >= now - TIE
        if now <= 0:
            words = N_("aims at {aim}: {value} on average against nothing now")
        elif never_less:
            words = N_("aims at {aim}: {value} on average against {now} now, never less")
        else:
            words = N_("aims at {aim}: {value} on average against {now} now")
        said.append(words.format(aim=aim, value=value, now=f"{now:.1f}"))
    return said


def _cell_values(layout: Layout) -> list[list[float]]:
    """The potential of a counter on each square of a board, by column and row."""
    space = layout.space_row
    stars = layout.pink_stars | layout.blue_stars
    table = []
    for column in COLUMNS:
        cells = []
        for r in range(layout.top_row + 1):
            value = SQUARE * min(r, space) + OFF_START * (r > 0)
            if r >= space:
                value += IN_SPACE + SPARE * (r - space)
            if (column, r) in stars:
                value += STAR + BLUE * ((column, r) in layout.blue_stars)
            cells.append(value)
        table.append(cells)
    return table


def _safe(layout: Layout) -> set[tuple[int, int]]:
    """Squares (column index, row) where a counter is safe from cool downs (B7)."""
    return {(_INDEX[c], r) for c, r in layout.pink_stars | layout.blue_stars}


def advise(game: BeamMeUp) -> Advice:
    """The advice for the active player's current roll; RuleError("phase")
    unless the player has rolled and not yet chosen."""
    if game.phase != "rolling" or game.dice is None:
        raise RuleError("phase", N_("advice is for a player who has rolled and not yet chosen an option"))
    return Advisor(Position.from_game(game)).advise(game.dice, MAX_ROLLS - game.roll_number)


# The option kinds a hint gives the chance of, in the order players think of them.
HINT_KINDS = ("pair", "two-pairs", "triplet", "full-house", "four", "five", "small-straight", "big-straight")
# Their names as the pages write them ("-" as a space), for the catalogs.
HINT_KIND_WORDS = (
    N_("pair"),
    N_("two pairs"),
    N_("triplet"),
    N_("full house"),
    N_("four"),
    N_("five"),
    N_("small straight"),
    N_("big straight"),
)


def hint(state: dict[str, Any], count: int = 3) -> dict[str, Any] | None:
    """For the player to move in a game's public state, the best ``count`` keeps
    of the roll on the table, each with its value, its chance to win this turn,
    the chance of each option kind when it is played and why it ranks there
    (``reasons``); None when there is no roll to advise on (no dice yet, or
    no rolls left)."""
    from tablepi.games.beam_me_up.odds import probability, reaches

    if state.get("phase") != "rolling" or not state.get("dice") or state.get("winner"):
        return None
    left = int(state["max_rolls"]) - int(state["roll"])
    if left <= 0:
        return None
    dice = list(state["dice"])
    advisor = Advisor(Position.from_public(state))
    advice = advisor.advise(dice, left)
    keeps = []
    for k, why in zip(advice.keeps[:count], reasons(advice, advisor, count), strict=True):
        if k.stop:
            chances = {kind: float(reaches(dice, kind)) for kind in HINT_KINDS}
        else:
            chances = {kind: float(probability(dice, left, kind, keep=k.keep)) for kind in HINT_KINDS}
        keeps.append(
            {
                "keep": list(k.keep),
                "stop": k.stop,
                "value": k.value,
                "win": k.win,
                "chances": chances,
                "why": why,
            }
        )
    return {"player": state["turn"]["name"], "rolls_left": left, "keeps": keeps}


def _commands(steps: tuple, parts: int, value: float) -> tuple[dict[str, Any], ...]:
    """A planned search's steps as game commands: moves and bonus squares, then
    end_turn when some of the ``parts`` are best left unused (a win ends the turn)."""
    commands: list[dict[str, Any]] = []
    used = 0
    for step in steps:
        if step[0] == "move":
            commands.append({"type": "move", "part": step[1], "column": COLUMNS[step[2]]})
            used += 1
        else:
            commands.append({"type": "bonus", "column": COLUMNS[step[1]]})
    if used < parts and value < WIN_VALUE:
        commands.append({"type": "end_turn"})
    return tuple(commands)
