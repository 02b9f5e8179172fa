"""Command-stack mechanics shared by games whose whole state is plain JSON.

Such a game changes only through ``_step(state, command)``, which returns the
new state and the record kept of the command. Undo, saving and restoring then
come for free and stay the same for every game built this way.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tablepi.games.errors import RuleError
from tablepi.games.names import clean_name


def clone(data: Any) -> Any:
    """A deep copy of plain JSON data (several times faster than copy.deepcopy)."""
    return json.loads(json.dumps(data))


def player_names(settings: Any) -> list[str]:
    """The players' names from a game's settings: a list of distinct names
    (compared without case) in the form the table keeps (see
    ``tablepi.games.names``). The player count is each game's own rule."""
    if not isinstance(settings, dict):
        raise RuleError("settings", "settings must be an object")
    players = settings.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RuleError("settings", "players must be a list of names")
    names = [clean_name(p, f"player {seat}") for seat, p in enumerate(players, start=1)]
    if len({name.casefold() for name in names}) != len(names):
        raise RuleError("settings", "player names must be different")
    return names


# How much of its past a game keeps in memory: enough for any run of
# takebacks at a table; the table replays from its stored snapshots for more.
# Without a bound a long game's memory and per-command cost grow with it.
UNDO_STATES = 16
KEPT_COMMANDS = 64


class NotRemembered(LookupError):
    """The game no longer holds what taking back its last command needs
    (the table then rebuilds that state from its log)."""


class RecordedGame:
    """Base for a game held as ``settings`` + ``state`` + the commands pushed.

    Subclasses set ``self._settings`` before calling ``__init__`` here and
    provide ``_initial_state()`` and ``_step(state, command)``; ``_step`` works
    on its own copy of the state and raises ``RuleError`` for an illegal
    command, so a refused command changes nothing.

    Only the latest ``KEPT_COMMANDS`` commands and ``UNDO_STATES`` earlier
    states are kept; ``depth`` counts every command in effect.
    """

    def __init__(self) -> None:
        self._state: dict[str, Any] = self._initial_state()
        self._stack: list[dict[str, Any]] = []
        self._depth = 0
        # States before the latest commands, in memory only (never mutated
        # once kept: _step works on a copy). A game loaded from its saved form
        # replays its commands to take one back instead.
        self._before: list[dict[str, Any]] = []

    def _initial_state(self) -> dict[str, Any]:
        raise NotImplementedError

    def _step(self, state: dict[str, Any], command: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        raise NotImplementedError

    @property
    def depth(self) -> int:
        """How many commands are in effect (pushed and not taken back)."""
        return self._depth

    def push(self, command: dict[str, Any]) -> None:
        state, record = self._step(clone(self._state), command)
        self._before.append(self._state)
        self._state = state
        self._stack.append(record)
        self._depth += 1
        # Trimmed in batches, so that each push stays cheap.
        if len(self._before) >= 2 * UNDO_STATES:
            del self._before[:UNDO_STATES]
        if len(self._stack) >= 2 * KEPT_COMMANDS:
            del self._stack[:KEPT_COMMANDS]

    def pop(self) -> dict[str, Any]:
        if self._depth <= 0:
            raise RuleError("undo", "there is nothing to take back")
        if not self._stack:
            raise NotRemembered("the command to take back is no longer in memory")
        if self._before:
            self._state = self._before.pop()
        elif len(self._stack) == self._depth:
            state = self._initial_state()
            for command in self._stack[:-1]:
                state, _ = self._step(state, command)
            self._state = state
        else:
            raise NotRemembered("the state before that command is no longer in memory")
        self._depth -= 1
        return self._stack.pop()

    def fork(self) -> RecordedGame:
        """An independent copy, cheaply: kept states are never changed in place."""
        twin = copy.copy(self)
        twin._stack = list(self._stack)
        twin._before = list(self._before)
        return twin

    def _load_commands(self, data: dict[str, Any]) -> None:
        """The commands and depth of a saved game (``from_dict``)."""
        commands = data["commands"]
        if not isinstance(commands, list):
            raise TypeError("commands must be a list")
        depth = data.get("depth", len(commands))
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < len(commands):
            raise ValueError("depth must be a whole number of at least the commands kept")
        self._stack = clone(commands)
        self._depth = depth

    def to_dict(self) -> dict[str, Any]:
        data = {
            "settings": clone(self._settings),
            "state": clone(self._state),
            "commands": clone(self._stack),
        }
        if self._depth != len(self._stack):
            data["depth"] = self._depth
        return data
