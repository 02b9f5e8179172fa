"""Beam Me Up: the rules engine (rulings B1-B12 in the project's RULINGS.md).

Modules: ``options`` reads a roll (B3-B5), ``board`` holds the board layouts
(B1, B2; the printed boards A..D are in ``layouts.json``), ``game`` runs a
game (B6-B12), ``randomplay`` plays random legal games (tests, benchmark).

Settings::

    {"players": [{"name": "Ann", "board": "A"},
                 {"name": "Ben", "layout": {...}}, ...]}

2 to 4 players; list order is turn order and the first player starts.
"board" is one of A..D, "layout" a full layout (see ``board``); with neither,
seats get boards A, B, C, D in order. To carry over a game already under
way on the table, a player may also give "counters" (``{"2": 5, "3": 1}``,
rows by column, others on row 0), and ``"advantage": false`` skips the
starting player's advantage. ``"table": true`` marks a seat played by the
table itself (``autoplay`` chooses its moves, ``tablepi.table_player`` makes
them through the same commands); the rules treat it like any other seat.

Commands (``game.push(command)``); the table, the web pages and the camera
all use exactly these:

``{"type": "advantage", "columns": ["1", "5"]}``
    Set-up only (B10): the due player (2nd, 3rd, 4th in turn order, in that
    order) moves k counters up one square in k different columns, k = 1, 2,
    3. No rockets, no cool downs.
``{"type": "roll", "dice": [2, 2, 4, 4, 6], "kept": [2, 2]}``
    A roll of the active player. "kept" (optional) lists the values set aside
    from the previous roll; they must be in both that roll and this one. At
    most three rolls a turn (B11).
``{"type": "choose", "option": 0}``
    Play option 0 of the current roll (its list is in the public view). This
    ends the rolling. If one of the player's counters stands on a blue star
    now, the wildcard (B9) holds for the whole move.
``{"type": "move", "part": 1, "column": "4"}``
    Apply part 1 of the chosen option, in any order the player likes (B8).
    "column" may differ from the part's own column only with the wildcard.
    Squares past the top are forfeited (B6); 2 squares or more moved cool
    down the other players' counters in that column (B7); ending exactly on
    a rocket owes a bonus square (B8). The turn ends by itself when every
    part is used and no bonus is owed.
``{"type": "bonus", "column": "3"}``
    Place an owed rocket bonus square on any counter that can still climb; a
    bonus square ending on a rocket owes another (B8). While a bonus is owed,
    every other command is refused.
``{"type": "end_turn"}``
    Leave the remaining parts unused (B5), or pass after a roll with no
    option (B4). Needs at least one roll.

The win (B12) is checked after every part and bonus square: 4 counters in
space (5 with two players) and none on row 0. ``game.pop()`` takes back the
last command. An illegal or malformed command raises ``RuleError`` whose
``rule`` is a ruling ("B8") or a short name ("command", "dice-count",
"dice-value", "phase", "settings") and leaves the game as it was.

Readings the rulebook leaves open, as this engine settles them:
- a roll makes at most one option, using every die that can score (a
  triplet is not also offered as a pair); parts may be left unused (B5);
- a part whose counter reaches the top with squares forfeited still counts
  as landing on the top square (a rocket there pays), but only the squares
  actually moved count toward a cool down (B7).
"""

from tablepi.games.beam_me_up.board import Layout, LayoutError, default_layouts, load_layout
from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.options import COLUMNS, Option, describe, options
from tablepi.games.errors import RuleError

__all__ = [
    "COLUMNS",
    "BeamMeUp",
    "Layout",
    "LayoutError",
    "Option",
    "RuleError",
    "default_layouts",
    "describe",
    "load_layout",
    "options",
]
