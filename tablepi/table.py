"""The hub: the one place game state changes.

Inputs (buttons, camera readings, web, CLI) become commands; the table
validates each against the active game's rules, stores it durably, applies it
and publishes events. Outputs (OLED, web pages, buzzer) render events and the
public state.

Interface (the web and the controllers build on it):

    table = Table(store, clock=time.time, events=None)
    table.start_game(kind, settings, source="web") -> dict     # public state
    table.check_new_game(command)   # raises as submitting the new_game would; changes nothing
    table.submit(command, source="web", expect=None) -> dict   # public state after commit
        # raises RuleError (illegal by the rules; .rule names it) or
        # CommandError (malformed / no game, or the table is no longer at
        # ``expect`` = (game id, seq)); nothing changes then
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
    table.show_refused(reading)   # a camera reading of a throw the table did not play
        # ({"dice", "problem", "kept"}), or None: public state as the game's
        # "refused_reading" until the table moves on or it is replaced
    table.turn_guard = callable(command, source) -> str | None
        # asked before a game's own command is played; a reason refuses it
        # (RuleError, rule "table-turn"): in a turn the table plays, people's
        # commands do not play for it (tablepi.table_player)

    Event(id: int, type: str, data: dict)   # types: "state", "rolling", "reading",
                                            # "timer", "camera", "error", "display", "missed"

Table-level commands, besides each game's own (see the game modules):
``{"type": "new_game", "kind": ..., "settings": {...}}``, ``{"type":
"end_game"}`` (take the current game off the table), ``{"type": "resume_game",
"game": ID}`` (put an abandoned game back where it was left) and ``{"type":
"undo"}`` (take back the last command; logged, so a replay takes it back too).

Every command is stamped with ``"at"`` (the table's clock) and logged with
it; games whose rules read time get the stamp too (``store.game_command``).
A command with ``"manual": true`` (a roll typed in by hand) keeps that flag
in the log and in ``last``; the rules never see it.
"""

from __future__ import annotations

import bisect
import logging
import sqlite3
import threading
import time
from array import array
from collections.abc import Callable
from typing import Any

from tablepi.events import Event, EventBus, Subscription
from tablepi.games import KINDS, RuleError, load_game, new_game, roll_facts, winner_words
from tablepi.games.names import clean_settings
from tablepi.games.recorded import NotRemembered
from tablepi.i18n import N_, Text
from tablepi.store import SNAPSHOT_EVERY, Store, StoreError, apply_logged, effective, game_command

log = logging.getLogger(__name__)

# "table": a seat played by the table itself (tablepi.table_player).
SOURCES = ("button", "camera", "web", "cli", "table")
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
TABLE_COMMANDS = ("new_game", "end_game", "resume_game", "undo")


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


def _seen_problem(seen: Any) -> str | None:
    """Why a roll's camera readings cannot be kept; None if they can."""
    if not isinstance(seen, list):
        return '"seen" must be a list of the dice as the camera read them'
    for i, die in enumerate(seen, start=1):
        if not isinstance(die, dict) or type(die.get("value")) is not int:
            return f'"seen" die {i} must be an object with a "value"'
        confidence = die.get("confidence")
        if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
            return f'"seen" die {i} needs a "confidence" number'
        box = die.get("box")
        if box is not None and not (
            isinstance(box, list)
            and len(box) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)
        ):
            return f'"seen" die {i} has a "box" that is not four numbers'
    return None


def _bad_text(value: Any, where: str = "the command", depth: int = 0) -> str | None:
    """Where in ``value`` a string is that cannot be written as UTF-8 (a lone
    surrogate from a JSON escape), or None: every page and file must hold it."""
    if depth > 32:
        return None  # deeper than any command; the game refuses it anyway
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _bad_text(key, f"a field name in {where}", depth + 1) or _bad_text(
                item, f"{where}.{key}" if isinstance(key, str) and key.isascii() else where, depth + 1
            )
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _bad_text(item, where, depth + 1)
            if found:
                return found
    return None


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
        # The seqs of the commands still in effect (undo takes the top off),
        # and which of them are rolls: compact, as a long game has thousands.
        self._effective = array("q")
        self._is_roll = bytearray()
        self._roll_entry: dict[str, Any] | None = None
        self._undo_cache: tuple[tuple[int | None, int], dict[str, Any]] | None = None
        # How many commands were in effect at each snapshot written or found.
        self._snapshot_depth: dict[int, int] = {0: 0}
        self.turn_guard: Callable[[dict[str, Any], str], str | None] | None = None
        # A refused camera reading, and the (game id, seq) it was refused at.
        self._refused: tuple[tuple[int | None, int], dict[str, Any]] | None = None
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
        game = public_game_state(
            self._game, self._game_id, self._kind, self.clock(), self._last, self._last_roll()
        )
        # What an undo would take back now (None: nothing), so pages offer it only then.
        game["undo"] = self._undoable()
        game["refused_reading"] = self._refused_now()
        return {"seq": self._seq, "game": game}

    def _refused_now(self) -> dict[str, Any] | None:
        refused = self._refused
        if refused is None or refused[0] != (self._game_id, self._seq):
            return None
        return refused[1]

    @property
    def refused_reading(self) -> dict[str, Any] | None:
        """The camera reading refused where the table stands now, or None."""
        with self._lock:
            return self._refused_now()

    def show_refused(self, reading: dict[str, Any] | None) -> None:
        """Show every viewer the camera reading of a throw that was not played
        (the dice seen and why), until a move is played or another reading
        replaces it; None takes it away. Published only when it changes."""
        with self._lock:
            if self._game is None or reading == self._refused_now():
                return
            self._refused = None if reading is None else ((self._game_id, self._seq), dict(reading))
            self._published()

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

    def submit(
        self, command: Any, source: str = "web", expect: tuple[int | None, int] | None = None
    ) -> dict[str, Any]:
        """Validate, store durably, apply and publish one command; returns the
        public state once the command is committed. With ``expect`` (game id,
        seq), only if the table is still there: a move chosen from a state that
        someone else has changed since is refused, not played on the new one."""
        if not isinstance(command, dict):
            raise CommandError(N_('a command must be a JSON object with a "type"'))
        ctype = command.get("type")
        if not isinstance(ctype, str) or not ctype:
            raise CommandError(N_('the command has no "type"'))
        if source not in SOURCES:
            raise CommandError(
                N_("unknown source {source}; expected one of {list}").format(
                    source=repr(source), list=", ".join(SOURCES)
                )
            )
        if "manual" in command and not isinstance(command["manual"], bool):
            raise CommandError(N_('"manual" must be true or false'))
        if "seen" in command:
            problem = _seen_problem(command["seen"])
            if problem is not None:
                raise CommandError(problem)
        bad = _bad_text(command)
        if bad is not None:
            raise CommandError(
                N_("{bad} is not valid text (it holds a lone UTF-16 surrogate)").format(bad=bad)
            )
        secret = SECRET_FIELDS.intersection(command)
        if secret:
            raise CommandError(
                N_("{list}: secret information is never recorded; leave it out").format(
                    list=", ".join(sorted(secret))
                )
            )
        # A table whose database is gone takes nothing, legal or not.
        check_file = getattr(self.store, "check_file", None)
        if check_file is not None:
            check_file()
        with self._lock:
            if expect is not None and (self._game_id, self._seq) != tuple(expect):
                raise CommandError(N_("the table has moved on since; nothing changed"))
            if ctype == "new_game":
                return self._new_game(command)
            if ctype == "end_game":
                return self._end_game()
            if ctype == "resume_game":
                return self._resume_abandoned(command)
            if self._game is None:
                raise CommandError(N_("there is no game on the table; start one first (new_game)"))
            if ctype == "undo":
                return self._undo(source, command.get("seq"))
            if self.turn_guard is not None:
                refusal = self.turn_guard(command, source)
                if refusal is not None:
                    raise RuleError("table-turn", refusal)
            return self._play(command, source)

    def check_new_game(self, command: dict[str, Any]) -> None:
        """Raise what ``command`` (a new_game) would raise if submitted now,
        changing nothing: the set-up page checks a game before it asks
        whether to set the one in progress aside."""
        if command.get("type") != "new_game":
            raise CommandError(N_("only a new_game command can be checked"))
        self._game_for(command)

    @staticmethod
    def _game_for(command: dict[str, Any]) -> Any:
        kind = command.get("kind")
        settings = command.get("settings", {})
        if not isinstance(kind, str) or kind not in KINDS:
            raise CommandError(
                N_("unknown game {kind}; choose one of {list}").format(kind=repr(kind), list=", ".join(KINDS))
            )
        if not isinstance(settings, dict):
            raise CommandError(N_('"settings" must be an object'))
        try:
            return new_game(kind, settings)
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise CommandError(N_("bad settings for {kind}: {exc}").format(kind=kind, exc=exc)) from exc

    def _new_game(self, command: dict[str, Any]) -> dict[str, Any]:
        kind = command["kind"]
        game = self._game_for(command)
        # The names as the game keeps them (normalised), for the history.
        settings = clean_settings(command.get("settings", {}))
        game_id = self.store.create_game(kind, settings, game.to_dict())
        self._game, self._game_id, self._kind, self._seq, self._last = game, game_id, kind, 0, None
        self._forget_played()
        log.info(N_("new game %d: %s"), game_id, kind)
        return self._published()

    def _end_game(self) -> dict[str, Any]:
        if self._game is None:
            raise CommandError(N_("there is no game on the table to end"))
        self.store.end_game(self._game_id)
        log.info(N_("game %d taken off the table"), self._game_id)
        self._game, self._game_id, self._kind, self._seq, self._last = None, None, None, 0, None
        self._forget_played()
        return self._published()

    def _resume_abandoned(self, command: dict[str, Any]) -> dict[str, Any]:
        """Put an abandoned game back on the table where it was left; the game
        on the table now is set aside in its place (and can come back the same way)."""
        game_id = command.get("game")
        if isinstance(game_id, bool) or not isinstance(game_id, int):
            raise CommandError(N_('"game" must be the number of an abandoned game (see the set-up page)'))
        record = self.store.game(game_id)
        if record is None:
            raise CommandError(N_("there is no game {game_id}").format(game_id=game_id))
        if record.status != "abandoned":
            raise CommandError(
                N_("game {game_id} is {status}; only an abandoned game can be resumed").format(
                    game_id=game_id, status=record.status
                )
            )
        self.store.resume_game(game_id)
        self._last = None
        try:
            self._resume_game(game_id)
        except (StoreError, RuleError, KeyError, TypeError, ValueError, IndexError, sqlite3.Error) as exc:
            self._resume()  # sets the unreadable game aside again and leaves the table empty
            raise CommandError(
                N_("game {game_id} could not be resumed: {exc}").format(game_id=game_id, exc=exc)
            ) from exc
        log.info(N_("game %d resumed from the history"), game_id)
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
            raise CommandError(
                N_("malformed {command} command: {exc}").format(command=repr(command["type"]), exc=exc)
            ) from exc
        seq = self._seq + 1
        try:
            self._record(seq, stamped, source)
        except BaseException:
            # Not stored means not accepted: take it back from the game too.
            game.pop()
            raise
        return self._published()

    def _undo(self, source: str, expected: Any = None) -> dict[str, Any]:
        """Take back the last command in effect. With ``expected`` (the seq of
        the command the player means, as a correction of a roll sends it),
        only that command: never the one before it, if it was taken back already."""
        undoing = self._undoable()
        if expected is not None:
            if isinstance(expected, bool) or not isinstance(expected, int):
                raise CommandError(N_('"seq" must be the number of the command to take back'))
            if undoing is None or undoing["seq"] != expected:
                raise CommandError(
                    N_("that was taken back already, or something was played after it; nothing changed")
                )
        stamped = self._stamp({"type": "undo"})
        game = self._take_back()
        seq = self._seq + 1
        self._record(seq, stamped, source, game)
        self._game = game
        if undoing is not None and self._last is not None:
            self._last["undid"] = undoing
        return self._published()

    def _undoable(self) -> dict[str, Any] | None:
        """The command an undo would take back: its seq, type, source and
        manual flag (read from the log once per command, then remembered)."""
        if not self._effective:
            return None
        seq = self._effective[-1]
        cached = self._undo_cache
        if cached is not None and cached[0] == (self._game_id, seq):
            return dict(cached[1])
        found = self.store.commands_between(self._game_id, seq - 1, seq)
        if not found:
            return None
        e = found[0]
        entry = {"seq": e.seq, "type": e.command.get("type"), "source": e.source, "manual": e.manual}
        self._undo_cache = ((self._game_id, seq), entry)
        return dict(entry)

    def _take_back(self) -> Any:
        """The game with its last command taken back, leaving the current one
        untouched (so a failed commit changes nothing)."""
        if not self._effective:
            raise CommandError(N_("there is nothing to take back"))
        fork = getattr(self._game, "fork", None)
        try:
            copy = fork() if fork is not None else load_game(self._kind, self._game.to_dict())
            copy.pop()
            return copy
        except (IndexError, KeyError, ValueError, AttributeError, RuleError, NotRemembered):
            pass
        # A game restored from a snapshot, or taken back further than it
        # remembers: rebuild the state from the nearest snapshot before it.
        target = self._effective[:-1]
        try:
            return self._state_at(self._game_id, self._kind, target, self._effective[-1] - 1)
        except (StoreError, RuleError, KeyError, TypeError, ValueError) as exc:
            raise CommandError(N_("the last command cannot be taken back: {exc}").format(exc=exc)) from exc

    def _state_at(self, game_id: int, kind: str, in_effect: Any, position: int) -> Any:
        """The game as it was at log ``position``, when exactly the commands
        ``in_effect`` (ascending seqs) were in effect: the nearest snapshot
        whose commands are all still in effect, plus the ones after it. Never
        more than the commands between two kept snapshots are replayed."""
        for snap_seq in self.store.snapshot_seqs(game_id, position):
            depth = self._depth_at(game_id, snap_seq)
            kept = bisect.bisect_right(in_effect, snap_seq)
            if depth != kept:
                continue  # commands in effect at the snapshot were taken back later
            data = self.store.snapshot_at(game_id, snap_seq)
            if data is None:
                continue
            game = load_game(kind, data)
            later = in_effect[kept:]
            if later:
                wanted = set(later)
                for entry in self.store.commands_between(game_id, snap_seq, later[-1]):
                    if entry.seq in wanted:
                        apply_logged(game, entry)
            return game
        raise StoreError(f"game {game_id} has no snapshot to rebuild it from")

    def _depth_at(self, game_id: int, seq: int) -> int:
        depth = self._snapshot_depth.get(seq)
        if depth is None:
            depth = len(effective(t for t in self.store.command_types(game_id) if t[0] <= seq))
            self._snapshot_depth[seq] = depth
        return depth

    def _record(self, seq: int, stamped: dict[str, Any], source: str, game: Any = None) -> None:
        game = game if game is not None else self._game
        finished = bool(game.finished)
        snapshot = game.to_dict() if finished or seq % self.snapshot_every == 0 else None
        ctype = stamped.get("type")
        self.store.append(
            self._game_id,
            seq,
            stamped,
            source,
            bool(stamped.get("manual", False)),
            finished,
            snapshot,
            # For the statistics: who threw a roll, who won, what an undo takes back.
            roll=roll_facts(game) if ctype == "roll" else None,
            winner=winner_words(self._kind, game) if finished else None,
            takes_back=self._effective[-1] if ctype == "undo" and self._effective else None,
        )
        self._seq = seq
        self._last = _entry(seq, stamped, source, bool(stamped.get("manual", False)))
        self._track(self._last)
        if snapshot is not None:
            self._snapshot_depth[seq] = len(self._effective)

    def _forget_played(self) -> None:
        self._effective = array("q")
        self._is_roll = bytearray()
        self._roll_entry = None
        self._snapshot_depth = {0: 0}

    def _track(self, entry: dict[str, Any]) -> None:
        if entry["type"] == "undo":
            if self._effective:
                self._effective.pop()
                self._is_roll.pop()
        else:
            self._effective.append(entry["seq"])
            self._is_roll.append(entry["type"] == "roll")
            if entry["type"] == "roll":
                self._roll_entry = entry

    def _last_roll(self) -> dict[str, Any] | None:
        index = self._is_roll.rfind(1)
        if index < 0:
            return None
        seq = self._effective[index]
        if self._roll_entry is None or self._roll_entry["seq"] != seq:
            # The roll in effect is an older one (a takeback): read it from the log.
            found = self.store.commands_between(self._game_id, seq - 1, seq)
            if not found:
                return None
            e = found[0]
            self._roll_entry = _entry(e.seq, e.command, e.source, e.manual)
        return self._roll_entry

    def _published(self) -> dict[str, Any]:
        state = self._public_state()
        # Published under the lock so events come out in commit order.
        self.events.publish("state", state)
        return state

    # -- resuming ------------------------------------------------------------

    def _resume(self) -> None:
        try:
            game_id = self.store.current_game_id()
        except (sqlite3.Error, ValueError) as exc:
            self.problem = N_("the current game could not be found in the database: {reason}").format(
                reason=exc
            )
            log.error("%s", self.problem)
            return
        if game_id is None:
            return
        try:
            self._resume_game(game_id)
        except (StoreError, RuleError, KeyError, TypeError, ValueError, IndexError, sqlite3.Error) as exc:
            # One unreadable row must not keep the table from starting: the
            # game is set aside (kept, abandoned) and the table starts empty.
            self._game, self._game_id, self._kind, self._seq, self._last = None, None, None, 0, None
            self._forget_played()
            self.problem = N_("game {game} could not be resumed and was set aside: {reason}").format(
                game=game_id, reason=exc
            )
            log.error("%s", self.problem)
            try:
                self.store.set_aside(game_id)
            except StoreError as aside:
                log.error(N_("game %d could not be set aside: %s"), game_id, Text(aside))

    def _resume_game(self, game_id: int) -> None:
        record = self.store.game(game_id)
        if record is None:
            return
        types = self.store.command_types(game_id)
        in_effect = effective(types)
        seq = types[-1][0] if types else 0
        self._forget_played()
        # How many commands were in effect at each snapshot, from the one pass
        # over the log (asking per snapshot would read the log again each time).
        snapshots = set(self.store.snapshot_seqs(game_id, seq))
        depth = 0
        for cseq, ctype in types:
            depth = depth - 1 if ctype == "undo" else depth + 1
            if cseq in snapshots:
                self._snapshot_depth[cseq] = depth
        self._kind, self._game_id = record.kind, game_id
        game = self._state_at(game_id, record.kind, array("q", in_effect), seq)
        self._game = game
        self._seq = seq
        self._effective = array("q", in_effect)
        kept = set(in_effect)
        self._is_roll = bytearray(ctype == "roll" for cseq, ctype in types if cseq in kept)
        if types:
            last = self.store.commands_between(game_id, seq - 1, seq)[0]
            self._last = _entry(last.seq, last.command, last.source, last.manual)
            before = effective(types[:-1]) if last.command.get("type") == "undo" else []
            if before:
                # What the last undo took back, as the pages said before the restart.
                undone = self.store.commands_between(game_id, before[-1] - 1, before[-1])[0]
                self._last["undid"] = {
                    "seq": undone.seq,
                    "type": undone.command.get("type"),
                    "source": undone.source,
                    "manual": undone.manual,
                }
        log.info(N_("resumed game %d (%s) at command %d"), game_id, record.kind, self._seq)
