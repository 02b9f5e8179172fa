"""The hub: the one place game state changes.

Inputs (buttons, camera readings, web, CLI) become commands; the table
validates each against the active game's rules, stores it durably, applies it
and publishes events. Outputs (OLED, web pages, buzzer) render events and the
public state.

Interface (the web and the controllers build on it):

    table = Table(store, clock=time.time, events=None)
    table.start_game(kind, settings, source="web") -> dict     # public state
    table.submit(command, source="web") -> dict                # public state after commit
        # raises RuleError (illegal by the rules; .rule names it) or
        # CommandError (malformed / no game); nothing changes then
    table.public_state() -> dict
        # {"seq": int, "game": None | {"id": int, "kind": str, "finished": bool,
        #   "state": game.public_view(now),
        #   "last": None | {"seq", "type", "source", "manual", "at"},
        #   "last_roll": None | the same for the roll still in effect}}
    table.subscribe(maxsize=1000) -> Subscription
        # sub.get(timeout) -> Event | None; sub.close()
        # a full queue drops events and the next get() returns
        # Event(type="missed") so the viewer re-reads the state
    table.events_since(event_id) -> list[Event] | None   # None: too old, re-read state
    table.publish(type, data)   # device events ("rolling", "camera", "error"); never secrets

    Event(id: int, type: str, data: dict)   # types: "state", "rolling", "reading",
                                            # "timer", "camera", "error", "display", "missed"

Table-level commands, besides each game's own (see the game modules):
``{"type": "new_game", "kind": ..., "settings": {...}}``, ``{"type":
"end_game"}`` (take the current game off the table) and ``{"type": "undo"}``
(take back the last command; logged, so a replay takes it back too).

Every command is stamped with ``"at"`` (the table's clock) and logged with
it; games whose rules read time get the stamp too (``store.game_command``).
A command with ``"manual": true`` (a roll typed in by hand) keeps that flag
in the log and in ``last``; the rules never see it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from tablepi.events import Event, EventBus, Subscription
from tablepi.games import KINDS, RuleError, load_game, new_game
from tablepi.store import SNAPSHOT_EVERY, LoggedCommand, Store, StoreError, apply_logged, game_command

log = logging.getLogger(__name__)

SOURCES = ("button", "camera", "web", "cli")
# Names of hidden information (the danger coin, team cards, hands, secret
# collections' contents). No game's command carries them, and a command that
# does is refused before any game sees it or the log could keep it.
SECRET_FIELDS = frozenset(
    {
        "coin",
        "coin_result",
        "flip",
        "role",
        "roles",
        "team",
        "teams",
        "team_cards",
        "hand",
        "hands",
        "deck",
        "secret_cards",
        "secret_contents",
    }
)
TABLE_COMMANDS = ("new_game", "end_game", "undo")


class CommandError(ValueError):
    """A command the table cannot take: malformed, or no game to take it."""

    rule = "command"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"error": self.message, "rule": self.rule}


def public_game_state(
    game: Any, game_id: int, kind: str, now: float, last: dict | None, last_roll: dict | None = None
) -> dict[str, Any]:
    """What any viewer may see of one game: the game's own secret-free view
    plus the table's bookkeeping (the last command, and how the roll in
    play was entered: by the camera, or by hand)."""
    return {
        "id": game_id,
        "kind": kind,
        "finished": bool(game.finished),
        "state": game.public_view(now),
        "last": last,
        "last_roll": last_roll,
    }


def _entry(seq: int, command: dict[str, Any], source: str, manual: bool) -> dict[str, Any]:
    return {
        "seq": seq,
        "type": command.get("type"),
        "source": source,
        "manual": bool(manual),
        "at": command.get("at"),
    }


class Table:
    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        events: EventBus | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.store = store
        self.clock = clock
        self.events = events if events is not None else EventBus()
        self.snapshot_every = max(1, snapshot_every)
        self.problem: str | None = None
        self._lock = threading.RLock()
        self._game: Any = None
        self._game_id: int | None = None
        self._kind: str | None = None
        self._seq = 0
        self._last: dict[str, Any] | None = None
        # What each command still in effect was (undo takes the top off).
        self._played: list[dict[str, Any]] = []
        self._resume()

    # -- reading -------------------------------------------------------------

    @property
    def kind(self) -> str | None:
        """The kind of game on the table, or None."""
        return self._kind

    @property
    def game_id(self) -> int | None:
        return self._game_id

    @property
    def seq(self) -> int:
        return self._seq

    def public_state(self) -> dict[str, Any]:
        with self._lock:
            return self._public_state()

    def _public_state(self) -> dict[str, Any]:
        if self._game is None:
            return {"seq": 0, "game": None}
        return {
            "seq": self._seq,
            "game": public_game_state(
                self._game, self._game_id, self._kind, self.clock(), self._last, self._last_roll()
            ),
        }

    # -- events --------------------------------------------------------------

    def subscribe(self, maxsize: int = 1000) -> Subscription:
        return self.events.subscribe(maxsize)

    def events_since(self, event_id: int) -> list[Event] | None:
        return self.events.events_since(event_id)

    def publish(self, type: str, data: dict[str, Any] | None = None) -> Event:
        return self.events.publish(type, data)

    # -- commands ------------------------------------------------------------

    def start_game(self, kind: str, settings: dict[str, Any] | None = None, source: str = "web") -> dict:
        return self.submit({"type": "new_game", "kind": kind, "settings": settings or {}}, source)

    def submit(self, command: Any, source: str = "web") -> dict[str, Any]:
        """Validate, store durably, apply and publish one command; returns the
        public state once the command is committed."""
        if not isinstance(command, dict):
            raise CommandError('a command must be a JSON object with a "type"')
        ctype = command.get("type")
        if not isinstance(ctype, str) or not ctype:
            raise CommandError('the command has no "type"')
        if source not in SOURCES:
            raise CommandError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")
        if "manual" in command and not isinstance(command["manual"], bool):
            raise CommandError('"manual" must be true or false')
        secret = SECRET_FIELDS.intersection(command)
        if secret:
            raise CommandError(
                f"{', '.join(sorted(secret))}: secret information is never recorded; leave it out"
            )
        with self._lock:
            if ctype == "new_game":
                return self._new_game(command)
            if ctype == "end_game":
                return self._end_game()
            if self._game is None:
                raise CommandError("there is no game on the table; start one first (new_game)")
            if ctype == "undo":
                return self._undo(source)
            return self._play(command, source)

    def _new_game(self, command: dict[str, Any]) -> dict[str, Any]:
        kind = command.get("kind")
        settings = command.get("settings", {})
        if not isinstance(kind, str) or kind not in KINDS:
            raise CommandError(f"unknown game {kind!r}; choose one of {', '.join(KINDS)}")
        if not isinstance(settings, dict):
            raise CommandError('"settings" must be an object')
        try:
            game = new_game(kind, settings)
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise CommandError(f"bad settings for {kind}: {exc}") from exc
        game_id = self.store.create_game(kind, settings, game.to_dict())
        self._game, self._game_id, self._kind, self._seq, self._last = game, game_id, kind, 0, None
        self._played = []
        log.info("new game %d: %s", game_id, kind)
        return self._published()

    def _end_game(self) -> dict[str, Any]:
        if self._game is None:
            raise CommandError("there is no game on the table to end")
        self.store.end_game(self._game_id)
        log.info("game %d taken off the table", self._game_id)
        self._game, self._game_id, self._kind, self._seq, self._last = None, None, None, 0, None
        self._played = []
        return self._published()

    def _stamp(self, command: dict[str, Any]) -> dict[str, Any]:
        stamped = dict(command)
        stamped["at"] = self.clock()
        return stamped

    def _play(self, command: dict[str, Any], source: str) -> dict[str, Any]:
        stamped = self._stamp(command)
        game = self._game
        try:
            game.push(game_command(game, stamped))
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise CommandError(f"malformed {command['type']!r} command: {exc}") from exc
        seq = self._seq + 1
        try:
            self._record(seq, stamped, source)
        except BaseException:
            # Not stored means not accepted: take it back from the game too.
            game.pop()
            raise
        return self._published()

    def _undo(self, source: str) -> dict[str, Any]:
        stamped = self._stamp({"type": "undo"})
        game = self._take_back()
        seq = self._seq + 1
        self._record(seq, stamped, source, game)
        self._game = game
        return self._published()

    def _take_back(self) -> Any:
        """The game with its last command taken back, leaving the current one
        untouched (so a failed commit changes nothing)."""
        copy = load_game(self._kind, self._game.to_dict())
        try:
            copy.pop()
            return copy
        except (IndexError, KeyError, ValueError, AttributeError, RuleError):
            pass
        # A game restored from a snapshot may not remember how it got there:
        # rebuild it from the start of the log, which does.
        game = self._rebuild(self._game_id)
        try:
            game.pop()
        except (IndexError, KeyError, ValueError, AttributeError, RuleError) as exc:
            raise CommandError("there is nothing to take back") from exc
        return game

    def _record(self, seq: int, stamped: dict[str, Any], source: str, game: Any = None) -> None:
        game = game if game is not None else self._game
        finished = bool(game.finished)
        snapshot = game.to_dict() if finished or seq % self.snapshot_every == 0 else None
        self.store.append(
            self._game_id, seq, stamped, source, bool(stamped.get("manual", False)), finished, snapshot
        )
        self._seq = seq
        self._last = _entry(seq, stamped, source, bool(stamped.get("manual", False)))
        self._track(self._last)

    def _track(self, entry: dict[str, Any]) -> None:
        if entry["type"] == "undo":
            if self._played:
                self._played.pop()
        else:
            self._played.append(entry)

    def _last_roll(self) -> dict[str, Any] | None:
        for entry in reversed(self._played):
            if entry["type"] == "roll":
                return entry
        return None

    def _published(self) -> dict[str, Any]:
        state = self._public_state()
        # Published under the lock so events come out in commit order.
        self.events.publish("state", state)
        return state

    # -- resuming ------------------------------------------------------------

    def _rebuild(self, game_id: int) -> Any:
        record = self.store.game(game_id)
        initial = self.store.initial_snapshot(game_id)
        if initial is not None:
            game = load_game(record.kind, initial)
        else:
            game = new_game(record.kind, record.settings)
        for entry in self.store.commands(game_id):
            apply_logged(game, entry)
        return game

    def _resume(self) -> None:
        game_id = self.store.current_game_id()
        if game_id is None:
            return
        record = self.store.game(game_id)
        if record is None:
            return
        commands = self.store.commands(game_id)
        try:
            game = self._restore(game_id, record.kind, commands)
        except (StoreError, RuleError, KeyError, TypeError, ValueError) as exc:
            self.problem = f"game {game_id} could not be resumed: {exc}"
            log.error("%s", self.problem)
            return
        self._game, self._game_id, self._kind = game, game_id, record.kind
        self._seq = commands[-1].seq if commands else 0
        self._played = []
        for entry in commands:
            self._last = _entry(entry.seq, entry.command, entry.source, entry.manual)
            self._track(self._last)
        log.info("resumed game %d (%s) at command %d", game_id, record.kind, self._seq)

    def _restore(self, game_id: int, kind: str, commands: list[LoggedCommand]) -> Any:
        snap = self.store.latest_snapshot(game_id)
        if snap is not None and snap[0] > 0:
            try:
                game = load_game(kind, snap[1])
                for entry in commands:
                    if entry.seq > snap[0]:
                        apply_logged(game, entry)
                return game
            except (StoreError, RuleError, KeyError, TypeError, ValueError):
                # An undo reaching back past the snapshot: replay from the start.
                pass
        return self._rebuild(game_id)
