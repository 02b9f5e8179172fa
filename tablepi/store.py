"""The table's memory: one SQLite database, crash-safe.

Every accepted command is appended to a per-game log (game id, seq, command
JSON with its "at" stamp, source, manual flag) in its own transaction, in WAL
mode with ``synchronous=FULL``: when ``append`` returns, the command survives
a power cut. Snapshots (``game.to_dict()``) are written now and then so that
resuming is snapshot + replay of the later commands; each game keeps its
starting snapshot and its latest one. Finished and abandoned
games stay in the history, each with its winner once it has one. Each roll
of dice is also indexed in ``rolls`` with its origin (camera, phone or by
hand), for a camera roll each die as read (value, box, confidence), who threw
it, its number in the turn, whether it offered an option, whether an undo
took it back, and how many of the dice thrown showed each face: the
statistics (``dice_tallies``, ``played_games``) add these up in SQL and never
replay a game. A store from before (schema 1 or 2) gets these built from its
log when first opened (one replay of each game, once), the log itself
unchanged; opened read-only, they are built in memory instead.

Nothing secret is ever stored: games' ``to_dict`` hold no secret and coin
flips are never commands.

A database that cannot be opened, fails its integrity check or is an empty
file is renamed aside (never deleted) and a fresh one is started;
``problem`` then says so.

SQLite drops, without a word, every commit after a damaged frame of the
write-ahead log. So each write also counts itself in ``meta`` and, once
committed, writes that count to a small file beside the database
(``tablepi.db-acked``). A database found at start-up with fewer writes than
that file, or another database in its place, has lost what was acknowledged:
a copy of the database and its log is kept (``tablepi.db.lost-*``) before
anything writes to them, and ``problem`` and ``lost_writes`` say so.

A write that fails (a read-only folder, a full disk) raises ``StoreError``
with the reason and leaves ``write_problem`` set until a write succeeds
again. If the database file is deleted or replaced while the table runs, the
store refuses every later write (``lost``): acknowledging a command that is
kept only by a file nobody can open again would lose it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablepi.i18n import N_, Text

log = logging.getLogger(__name__)

DB_NAME = "tablepi.db"
SCHEMA_VERSION = 3
SNAPSHOT_EVERY = 25
# Snapshots kept besides the start: the latest few (an undo or a resume
# replays at most this many intervals), and one in every KEEP_SNAPSHOT_EVERY
# commands further back (so a deep undo replays at most that many).
KEEP_LATEST_SNAPSHOTS = 8
KEEP_SNAPSHOT_EVERY = 1000
EXPORT_FORMAT = "tablepi-game"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,
    settings   TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'abandoned', 'imported')),
    created_at REAL NOT NULL,
    ended_at   REAL,
    winner     TEXT
);
CREATE TABLE IF NOT EXISTS commands (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    command TEXT NOT NULL,
    source  TEXT NOT NULL,
    manual  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    state   TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""
# Every roll of dice in the log, with where it came from, for the statistics:
# kept beside the log (which stays the truth) so they need no replay. "kept"
# are the dice set aside from the roll before (not thrown again); f1..f6 count
# the dice thrown that showed each face; player, turn_roll and scored are the
# game's facts of the roll (NULL when unknown); undone is 1 once an undo took
# the roll back.
ROLLS_TABLE = """
CREATE TABLE IF NOT EXISTS {schema}rolls (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seq       INTEGER NOT NULL,
    origin    TEXT NOT NULL,
    dice      TEXT NOT NULL,
    kept      TEXT NOT NULL,
    seen      TEXT,
    at        REAL,
    player    TEXT,
    turn_roll INTEGER,
    scored    INTEGER,
    undone    INTEGER NOT NULL DEFAULT 0,
    f1 INTEGER NOT NULL DEFAULT 0, f2 INTEGER NOT NULL DEFAULT 0, f3 INTEGER NOT NULL DEFAULT 0,
    f4 INTEGER NOT NULL DEFAULT 0, f5 INTEGER NOT NULL DEFAULT 0, f6 INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seq)
)"""
# The rolls in effect added up per game and player ('' when not known), kept
# up to date with each roll and undo: the statistics sum these few rows (a
# handful per game) instead of every roll. The dice of a seat the table plays
# are its own random numbers, not the table's dice, so they are left out.
TALLIES_TABLE = """
CREATE TABLE IF NOT EXISTS {schema}roll_tallies (
    game_id      INTEGER NOT NULL REFERENCES games(id),
    player       TEXT NOT NULL,
    rolls        INTEGER NOT NULL,
    first_rolls  INTEGER NOT NULL,
    first_scored INTEGER NOT NULL,
    f1 INTEGER NOT NULL, f2 INTEGER NOT NULL, f3 INTEGER NOT NULL,
    f4 INTEGER NOT NULL, f5 INTEGER NOT NULL, f6 INTEGER NOT NULL,
    PRIMARY KEY (game_id, player)
)"""
FACES = 6
_FACE_COLUMNS = ", ".join(f"f{i}" for i in range(1, FACES + 1))
_FACE_SUMS = ", ".join(f"SUM(f{i})" for i in range(1, FACES + 1))
_TALLY = (
    f"INSERT INTO {{schema}}roll_tallies(game_id, player, rolls, first_rolls, first_scored, {_FACE_COLUMNS}) "
    "SELECT game_id, COALESCE(player, ''), COUNT(*), COALESCE(SUM(turn_roll = 1), 0), "
    f"COALESCE(SUM(turn_roll = 1 AND scored), 0), {_FACE_SUMS} "
    "FROM {schema}rolls WHERE undone = 0 AND origin != 'table' {where} GROUP BY game_id, COALESCE(player, '')"
)


def _retally(conn: sqlite3.Connection, game_id: int) -> None:
    """Add up one game's rolls in effect again, after a roll or an undo."""
    conn.execute("DELETE FROM roll_tallies WHERE game_id=?", (game_id,))
    conn.execute(_TALLY.format(schema="", where="AND game_id = ?"), (game_id,))


# Where a roll came from: the camera's reading, a phone (entered or corrected
# there), the table's own dice for a seat it plays, or a hand entry elsewhere
# (the CLI, an import without a source).
ORIGINS = ("camera", "phone", "table", "manual")


def roll_origin(source: str, manual: bool) -> str:
    if source == "camera" and not manual:
        return "camera"
    if source == "table" and not manual:
        return "table"
    return "phone" if source == "web" else "manual"


class StoreError(Exception):
    """A store operation that cannot be done; the message is for the user."""


@dataclass(frozen=True)
class LoggedCommand:
    seq: int
    command: dict[str, Any]
    source: str
    manual: bool

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "command": self.command, "source": self.source, "manual": self.manual}


@dataclass(frozen=True)
class GameRecord:
    id: int
    kind: str
    settings: dict[str, Any]
    status: str
    created_at: float
    ended_at: float | None
    commands: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "settings": self.settings,
            "status": self.status,
            "created_at": self.created_at,
            "ended_at": self.ended_at,
            "commands": self.commands,
        }


@dataclass(frozen=True)
class RollRecord:
    """One roll: its values, the dice set aside in it, and for a camera roll
    each die as read (value, box in the frame, confidence)."""

    game_id: int
    seq: int
    origin: str
    dice: list[int]
    kept: list[int]
    seen: list[dict[str, Any]] | None
    at: float | None
    player: str | None = None
    turn_roll: int | None = None
    scored: bool | None = None
    undone: bool = False
    thrown: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "seq": self.seq,
            "origin": self.origin,
            "dice": self.dice,
            "kept": self.kept,
            "seen": self.seen,
            "at": self.at,
            "player": self.player,
            "turn_roll": self.turn_roll,
            "scored": self.scored,
            "undone": self.undone,
            "thrown": self.thrown,
        }


@dataclass(frozen=True)
class DiceTally:
    """The dice one player threw (``player`` None: rolls whose thrower is not
    known), rolls taken back left out: how many showed each face, and their
    turns' first rolls and how many of those offered an option."""

    player: str | None
    faces: tuple[int, ...]
    rolls: int
    first_rolls: int
    first_scored: int


@dataclass(frozen=True)
class PlayedGame:
    """One game of the history, as the list of games played shows it."""

    id: int
    kind: str
    players: list[str]
    status: str
    winner: str | None
    started: float
    last_move: float | None
    moves: int
    rolls: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "players": self.players,
            "status": self.status,
            "winner": self.winner,
            "started": self.started,
            "last_move": self.last_move,
            "moves": self.moves,
            "rolls": self.rolls,
        }


def player_names(settings: Any) -> list[str]:
    """The players' names in a game's settings (a name, or an object with one)."""
    players = settings.get("players", []) if isinstance(settings, dict) else []
    if not isinstance(players, list):
        return []
    return [str(p.get("name", "?")) if isinstance(p, dict) else str(p) for p in players]


def _is_face(value: Any) -> bool:
    return type(value) is int and 1 <= value <= FACES


def _roll_row(
    game_id: int,
    seq: int,
    command: dict[str, Any],
    source: str,
    manual: bool,
    facts: dict[str, Any] | None = None,
    undone: bool = False,
) -> tuple | None:
    """The ``rolls`` row for a logged command; None if it is not a roll of
    dice. ``facts`` are the game's (``tablepi.games.roll_facts``), if known."""
    if command.get("type") != "roll" or not isinstance(command.get("dice"), list):
        return None
    seen = command.get("seen")
    at = command.get("at")
    kept = command.get("kept") if isinstance(command.get("kept"), list) else []
    # The dice set aside were not thrown again.
    thrown = Counter(v for v in command["dice"] if _is_face(v)) - Counter(v for v in kept if _is_face(v))
    facts = facts or {}
    player, turn_roll, scored = facts.get("player"), facts.get("turn_roll"), facts.get("scored")
    return (
        game_id,
        seq,
        roll_origin(source, manual or bool(command.get("manual"))),
        _dumps(command["dice"]),
        _dumps(kept),
        _dumps(seen) if isinstance(seen, list) else None,
        float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else None,
        str(player) if player is not None else None,
        int(turn_roll) if isinstance(turn_roll, int) else None,
        int(bool(scored)) if scored is not None else None,
        int(bool(undone)),
        *(thrown[face] for face in range(1, FACES + 1)),
    )


_ROLL_COLUMNS = (
    "game_id, seq, origin, dice, kept, seen, at, player, turn_roll, scored, undone, f1, f2, f3, f4, f5, f6"
)
_INSERT_ROLL = f"INSERT OR REPLACE INTO rolls({_ROLL_COLUMNS}) VALUES ({', '.join('?' * 17)})"


def _derived_rows(
    conn: sqlite3.Connection, game_id: int, kind: str, settings: dict[str, Any]
) -> tuple[list[tuple], str | None]:
    """A game's ``rolls`` rows and its winner, worked out from its log by one
    replay. A log that no longer replays keeps its rolls, with the facts the
    replay reached before it stopped."""
    entries = [
        LoggedCommand(s, json.loads(c), src, bool(m))
        for s, c, src, m in conn.execute(
            "SELECT seq, command, source, manual FROM commands WHERE game_id=? ORDER BY seq", (game_id,)
        )
    ]
    try:
        in_effect = set(effective((e.seq, str(e.command.get("type"))) for e in entries))
    except StoreError:
        in_effect = {e.seq for e in entries}
    initial = conn.execute("SELECT state FROM snapshots WHERE game_id=? AND seq=0", (game_id,)).fetchone()
    facts: dict[int, dict[str, Any]] = {}
    winner = None
    try:
        from tablepi.games import winner_words

        game = replay(kind, settings, entries, json.loads(initial[0]) if initial else None, facts)
        winner = winner_words(kind, game)
    except StoreError as exc:
        log.warning(
            N_("game %d does not replay (%s): its rolls are kept without all their facts"), game_id, Text(exc)
        )
    rows = [
        _roll_row(game_id, e.seq, e.command, e.source, e.manual, facts.get(e.seq), e.seq not in in_effect)
        for e in entries
    ]
    return [r for r in rows if r is not None], winner


def _derive(conn: sqlite3.Connection, schema: str = "") -> None:
    """Build the rolls and the games' winners from the log: into the
    database (``schema`` "") or into temporary tables that stand in front of
    a read-only store's own (``schema`` "temp.")."""
    if schema:
        conn.execute(
            f"CREATE TABLE {schema}games AS SELECT id, kind, settings, status, created_at, ended_at, "
            "NULL AS winner FROM main.games"
        )
    else:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
        if "winner" not in columns:
            conn.execute("ALTER TABLE games ADD COLUMN winner TEXT")
        conn.execute("DROP TABLE IF EXISTS rolls")
        conn.execute("DROP TABLE IF EXISTS roll_tallies")
    conn.execute(ROLLS_TABLE.format(schema=schema))
    conn.execute(TALLIES_TABLE.format(schema=schema))
    games = conn.execute("SELECT id, kind, settings FROM main.games ORDER BY id").fetchall()
    for game_id, kind, settings in games:
        rows, winner = _derived_rows(conn, game_id, kind, json.loads(settings))
        conn.executemany(_INSERT_ROLL.replace("INTO rolls", f"INTO {schema}rolls"), rows)
        if winner is not None:
            conn.execute(f"UPDATE {schema}games SET winner=? WHERE id=?", (winner, game_id))
    conn.execute(_TALLY.format(schema=schema, where=""))


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring a store written by an older program up to SCHEMA_VERSION, in one
    transaction: the log is never changed, only what is derived from it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if version < 3:
            # Version 1 kept rolls only in the log, version 2 without who
            # threw them or whether an undo took them back, and neither kept
            # winners: build them all again from the log.
            _derive(conn)
        conn.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _top_in_effect(conn: sqlite3.Connection, game_id: int) -> int | None:
    """The seq of the latest command of a game still in effect (what an undo takes back)."""
    rows = conn.execute(
        "SELECT seq, json_extract(command, '$.type') FROM commands WHERE game_id=? ORDER BY seq", (game_id,)
    )
    try:
        stack = effective((int(seq), str(ctype)) for seq, ctype in rows)
    except StoreError:
        return None
    return stack[-1] if stack else None


# Below this much free space the table says so on /healthz before SQLite fails.
LOW_DISK_BYTES = 1024 * 1024


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


class _ReadOnly(sqlite3.DatabaseError):
    """The database is there but the table may not write to it (a read-only folder, a full disk)."""


def _read_only_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text


def _disk_error(exc: BaseException) -> bool:
    # SQLite's SQLITE_FULL or SQLITE_IOERR: a write the disk refused says nothing of the file.
    text = str(exc).lower()
    return "disk is full" in text or "disk i/o error" in text


def _write_failure(path: Path, exc: sqlite3.Error) -> str:
    """A failed write, in words that say what to do about it."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return N_(
            "the game database cannot be written ({reason}): the folder {folder} is read-only "
            "for the table's user; make it writable and restart the table"
        ).format(reason=text, folder=path.parent)
    if "full" in text:
        return N_("the disk holding {folder} is full ({reason}); free some space").format(
            folder=path.parent, reason=text
        )
    return N_("the game database could not be written: {reason}").format(reason=text)


ACKED_SUFFIX = "-acked"
# The acknowledged count is overwritten in place at a fixed width, so the
# file never grows (a full disk cannot fail it) and one sector holds it.
_ACKED_WIDTH = 20


def _acked_text(store_id: str, writes: int) -> bytes:
    return f"{store_id} {writes:0{_ACKED_WIDTH}d}\n".encode()


def _read_acked(path: Path) -> tuple[str, int] | None:
    """The database id and the writes acknowledged in it, from the file
    beside it; None if there is no such file or it does not read."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    parts = text.split()
    if len(parts) != 2 or not parts[1].isdigit():
        log.warning(N_("%s does not read (%r): the writes acknowledged are not known"), path.name, text[:60])
        return None
    return parts[0], int(parts[1])


def _written(conn: sqlite3.Connection) -> tuple[str | None, int]:
    """The database's id and its count of writes, as SQLite reads them after
    its recovery of the write-ahead log (no id: a new or older database)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone() is None:
        return None, 0
    rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('store_id', 'writes')").fetchall())
    writes = rows.get("writes", "0")
    return rows.get("store_id"), int(writes) if str(writes).isdigit() else 0


def _sync(fd: int) -> None:
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)


class Store:
    """The database in ``data_dir``. Thread-safe (one connection, one lock)."""

    def __init__(self, data_dir: str | os.PathLike[str], clock=time.time) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_NAME
        self.clock = clock
        self.problem: str | None = None
        self.moved_aside: Path | None = None
        self._lock = threading.RLock()
        self.write_problem: str | None = None
        self._read_only_why: str | None = None  # why the database was opened read-only
        self.write_failures = 0
        self.lost: str | None = None
        self.lost_writes = 0
        self.acked_path = self.path.with_name(DB_NAME + ACKED_SUFFIX)
        self._acked_fd: int | None = None
        self._store_id = ""
        self._writes_floor = 0
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._open()
        except _ReadOnly as exc:
            # A folder the table may not write to, or a disk that refuses writes,
            # is not damage: read the games as they are, and refuse every change with the reason.
            self._conn = self._open_read_only()
            self.write_problem = _write_failure(self.path, sqlite3.OperationalError(str(exc)))
            if _disk_error(exc):
                self.write_problem = N_(
                    "the disk holding {folder} refused a write at start ({reason}; {free} KiB free): the "
                    "games are read as they are and none can be saved; free some space or check the card, "
                    "then restart the table"
                ).format(folder=self.data_dir, reason=exc, free=(_free_bytes(self.data_dir) or 0) // 1024)
            self._read_only_why = self.write_problem
            log.error("%s", self.write_problem)
        except sqlite3.DatabaseError as exc:
            try:
                self.moved_aside = self._move_aside()
            except OSError as move_error:
                raise StoreError(
                    f"The game database {self.path} could not be read ({exc}) and could not be "
                    f"moved aside ({move_error.strerror or move_error}); check the folder's permissions."
                ) from move_error
            self.problem = N_(
                "The game database could not be read ({reason}); it was kept as {copy} "
                "and a new one was started."
            ).format(reason=exc, copy=self.moved_aside.name)
            log.error("%s", self.problem)
            self._conn = self._open()
        self._file = _file_id(self.path)
        self._probe_write()
        self._open_acked()

    # -- opening -------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        # Look before SQLite touches anything, so a foreign file and its WAL
        # are kept exactly as found.
        try:
            with open(self.path, "rb") as f:
                header = f.read(16)
        except FileNotFoundError:
            header = None
        except OSError as exc:
            raise sqlite3.DatabaseError(f"cannot read the file: {exc.strerror or exc}") from exc
        if header == b"":
            # SQLite would quietly start a new database in it; an empty file
            # where games were kept is damage to report, not a fresh start.
            raise sqlite3.DatabaseError("the file is empty")
        if header and header != b"SQLite format 3\x00":
            raise sqlite3.DatabaseError("file is not a database")
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        try:
            # Before any write: a write after SQLite's recovery would overwrite
            # the damaged part of the log, and a close would checkpoint it away.
            self._check_acked(conn, existed=header is not None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row is None or row[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {row[0] if row else 'no answer'}")
            conn.executescript(SCHEMA)
            version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if version is None:
                conn.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"database schema {version[0]} is newer than this program")
            elif int(version[0]) < SCHEMA_VERSION:
                _migrate(conn, int(version[0]))
                log.info(N_("game database brought from schema %s to %d"), version[0], SCHEMA_VERSION)
            conn.execute(ROLLS_TABLE.format(schema=""))
            conn.execute(TALLIES_TABLE.format(schema=""))
        except (sqlite3.DatabaseError, ValueError) as exc:
            conn.close()
            if header is not None and (_read_only_error(exc) or _disk_error(exc)):
                raise _ReadOnly(str(exc)) from exc
            raise sqlite3.DatabaseError(str(exc)) from exc
        return conn

    def _open_read_only(self) -> sqlite3.Connection:
        # immutable: nothing can take SQLite's locks in a read-only folder,
        # and nothing else writes this file while the table has it open.
        uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=10)
        version = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if version is not None and int(version[0]) < SCHEMA_VERSION:
            # An older store that cannot be brought up to date: what the
            # statistics read is built in memory, in front of its own tables.
            conn.execute("PRAGMA temp_store=MEMORY")
            _derive(conn, "temp.")
        return conn

    def _check_acked(self, conn: sqlite3.Connection, existed: bool) -> None:
        """Compare the database SQLite now reads with the writes the table
        acknowledged; if some are missing, keep a copy and say so."""
        store_id, writes = _written(conn)
        self._store_id = store_id or os.urandom(8).hex()
        acked = _read_acked(self.acked_path)
        if acked is None or self.problem is not None:
            return  # nothing known, or already moved aside as damaged
        acked_id, acked_writes = acked
        if acked_id == store_id and writes >= acked_writes:
            return
        if acked_id == store_id:
            self.lost_writes = acked_writes - writes
            what = N_(
                "{count} acknowledged change(s) are missing from the game database "
                "(its write-ahead log was damaged, so SQLite dropped them)"
            ).format(count=self.lost_writes)
        elif not existed:
            self.lost_writes = acked_writes
            what = N_("the game database was missing ({count} acknowledged change(s) are gone)").format(
                count=acked_writes
            )
        else:
            self.lost_writes = acked_writes
            what = N_(
                "the game database is not the one the table last wrote (replaced or restored): "
                "{count} acknowledged change(s) may be missing"
            ).format(count=acked_writes)
        self._writes_floor = max(writes, acked_writes) if acked_id == store_id else 0
        try:
            kept = self._keep_copy()
            where = N_("a copy of the database and its log was kept as {copy}").format(copy=kept.name)
        except OSError as exc:
            where = N_("no copy could be kept ({reason})").format(reason=exc.strerror or exc)
        self.problem = N_("{what}; {where}. Games may be missing from the history.").format(
            what=what, where=where
        )
        log.error("%s", self.problem)

    def _keep_copy(self) -> Path:
        """Copy the database and its log aside as they are, for digging out
        what SQLite no longer reads from them."""
        target = self._aside_name("lost")
        for suffix in ("", "-wal"):
            source = self.path.with_name(DB_NAME + suffix)
            if source.exists():
                shutil.copyfile(source, target.with_name(target.name + suffix))
        return target

    def _open_acked(self) -> None:
        """The file that holds the count of writes acknowledged; a folder the
        table may not write to has none (it takes no writes either)."""
        if self.write_problem is not None:
            return
        try:
            fd = os.open(self.acked_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            log.warning(N_("%s cannot be opened (%s): lost writes will not be noticed"), self.acked_path, exc)
            return
        self._acked_fd = fd
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key='writes'").fetchone()
        self._note_acked(int(row[0]) if row else 0)

    def _note_acked(self, writes: int) -> None:
        if self._acked_fd is None:
            return
        try:
            os.pwrite(self._acked_fd, _acked_text(self._store_id, writes), 0)
            _sync(self._acked_fd)
        except OSError as exc:
            # The write itself is safe in the database; only its witness failed.
            log.warning(N_("%s could not be written (%s)"), self.acked_path.name, exc.strerror or exc)

    def _aside_name(self, why: str) -> Path:
        """A free name beside the database for a copy set aside: ``tablepi.db.<why>-<time>``."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        target = self.path.with_name(f"{DB_NAME}.{why}-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{DB_NAME}.{why}-{stamp}-{n}")
        return target

    def _move_aside(self) -> Path:
        target = self._aside_name("corrupt")
        os.replace(self.path, target)
        # The WAL and shared-memory files belong to the bad database (the count
        # of acknowledged writes is started again for the new one).
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(DB_NAME + suffix)
            if side.exists():
                os.replace(side, target.with_name(target.name + suffix))
        return target

    def _probe_write(self) -> None:
        """Find out at start-up whether the database can be written, so that a
        read-only folder is a problem on /healthz, not a surprise at the first
        command."""
        if self.write_problem is not None:
            return  # opened read-only, for the reason it says
        try:
            with self._transaction() as conn:
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES ('opened_at', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (str(self.clock()),),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('store_id', ?)", (self._store_id,)
                )
        except StoreError:
            pass  # write_problem says why

    def _check_file(self) -> None:
        """Refuse to write once the database file is gone or replaced: SQLite
        would go on writing to the deleted file, which nothing can read again."""
        if self.lost is None:
            found = _file_id(self.path)
            if found != self._file:
                lost = (
                    N_(
                        "the game database {file} was deleted while the table was running; "
                        "no more commands are taken. Restart the table (tablepi run) to go on."
                    )
                    if found is None
                    else N_(
                        "the game database {file} was replaced by another file while the table was running; "
                        "no more commands are taken. Restart the table (tablepi run) to go on."
                    )
                )
                self.lost = lost.format(file=self.path)
                log.error("%s", self.lost)
        if self.lost is not None:
            self.write_problem = self.lost
            raise StoreError(self.lost)

    def check_file(self) -> None:
        """Raise ``StoreError`` if the database file is gone or replaced."""
        with self._lock:
            self._check_file()

    def health(self) -> str | None:
        """Why the store cannot take commands now, or None when it can."""
        with self._lock:
            try:
                self._check_file()
            except StoreError:
                pass
            if self.write_problem is None:
                free = _free_bytes(self.data_dir)
                if free is not None and free < LOW_DISK_BYTES:
                    return N_("the disk holding {folder} is full ({free} KiB free)").format(
                        folder=self.data_dir, free=free // 1024
                    )
            return self.write_problem

    def close(self) -> None:
        with self._lock:
            try:
                # Fold the WAL into the database on a clean stop; after a
                # power cut SQLite does the same on the next open.
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                log.debug("checkpoint at close: %s", exc)
            self._conn.close()
            if self._acked_fd is not None:
                os.close(self._acked_fd)
                self._acked_fd = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_file()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._conn
                    writes = self._count_write()
                    self._conn.execute("COMMIT")
                except BaseException:
                    # Also after a failed COMMIT: leave no transaction open behind.
                    if self._conn.in_transaction:
                        try:
                            self._conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            log.exception(N_("rolling back"))
                    raise
            except sqlite3.Error as exc:
                if isinstance(exc, sqlite3.IntegrityError):
                    raise  # the caller's mistake, not the disk's
                self.write_failures += 1
                self.write_problem = self._read_only_why or _write_failure(self.path, exc)
                log.error("%s", self.write_problem)
                raise StoreError(self.write_problem) from exc
            self.write_problem = None
            self._note_acked(writes)

    def _count_write(self) -> int:
        row = self._conn.execute("SELECT value FROM meta WHERE key='writes'").fetchone()
        writes = max(int(row[0]) if row and str(row[0]).isdigit() else 0, self._writes_floor) + 1
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES ('writes', ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (str(writes),),
        )
        return writes

    def pragma(self, name: str) -> Any:
        with self._lock:
            return self._conn.execute(f"PRAGMA {name}").fetchone()[0]

    # -- meta ----------------------------------------------------------------

    def _set_current(self, conn: sqlite3.Connection, game_id: int | None) -> None:
        if game_id is None:
            conn.execute("DELETE FROM meta WHERE key='current_game'")
        else:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('current_game', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(game_id),),
            )

    def current_game_id(self) -> int | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key='current_game'").fetchone()
        return int(row[0]) if row else None

    # -- writing -------------------------------------------------------------

    def create_game(self, kind: str, settings: dict[str, Any], initial_state: dict[str, Any]) -> int:
        """A new current game; the one before it, if still playing, is abandoned."""
        now = self.clock()
        with self._transaction() as conn:
            previous = conn.execute("SELECT value FROM meta WHERE key='current_game'").fetchone()
            if previous:
                conn.execute(
                    "UPDATE games SET status='abandoned', ended_at=? WHERE id=? AND status='playing'",
                    (now, int(previous[0])),
                )
            cur = conn.execute(
                "INSERT INTO games(kind, settings, status, created_at) VALUES (?, ?, 'playing', ?)",
                (kind, _dumps(settings), now),
            )
            game_id = int(cur.lastrowid)
            conn.execute(
                "INSERT INTO snapshots(game_id, seq, state) VALUES (?, 0, ?)",
                (game_id, _dumps(initial_state)),
            )
            self._set_current(conn, game_id)
        return game_id

    def append(
        self,
        game_id: int,
        seq: int,
        command: dict[str, Any],
        source: str,
        manual: bool = False,
        finished: bool = False,
        snapshot: dict[str, Any] | None = None,
        roll: dict[str, Any] | None = None,
        winner: str | None = None,
        takes_back: int | None = None,
    ) -> None:
        """Log one accepted command; durable when this returns. For the
        statistics: ``roll`` holds the game's facts of a roll
        (``tablepi.games.roll_facts``), ``winner`` says who won a game this
        command finished, and ``takes_back`` is the seq an undo takes back
        (worked out from the log when not given)."""
        text = _dumps(command)
        with self._transaction() as conn:
            if command.get("type") == "undo":
                if takes_back is None:
                    takes_back = _top_in_effect(conn, game_id)
                cur = conn.execute(
                    "UPDATE rolls SET undone=1 WHERE game_id=? AND seq=?", (game_id, takes_back)
                )
                if cur.rowcount:
                    _retally(conn, game_id)
            conn.execute(
                "INSERT INTO commands(game_id, seq, command, source, manual) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, text, source, int(bool(manual))),
            )
            row = _roll_row(game_id, seq, command, source, manual, roll)
            if row is not None:
                conn.execute(_INSERT_ROLL, row)
                _retally(conn, game_id)
            status, ended = ("finished", self.clock()) if finished else ("playing", None)
            conn.execute(
                "UPDATE games SET status=?, ended_at=?, winner=? "
                "WHERE id=? AND status IN ('playing', 'finished')",
                (status, ended, winner if finished else None, game_id),
            )
            if snapshot is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO snapshots(game_id, seq, state) VALUES (?, ?, ?)",
                    (game_id, seq, _dumps(snapshot)),
                )
                # Keep the card small: the start, the latest few and a sparse
                # trail further back (see KEEP_SNAPSHOT_EVERY) are all an undo
                # or a resume ever reads.
                conn.execute(
                    "DELETE FROM snapshots WHERE game_id=? AND seq>0 AND seq % ? != 0 AND seq < ("
                    "SELECT MIN(seq) FROM (SELECT seq FROM snapshots WHERE game_id=? "
                    "ORDER BY seq DESC LIMIT ?))",
                    (game_id, KEEP_SNAPSHOT_EVERY, game_id, KEEP_LATEST_SNAPSHOTS),
                )

    def snapshot(self, game_id: int, seq: int, state: dict[str, Any]) -> None:
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO snapshots(game_id, seq, state) VALUES (?, ?, ?)",
                (game_id, seq, _dumps(state)),
            )

    def end_game(self, game_id: int) -> None:
        """Take the game off the table; unfinished it counts as abandoned."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE games SET status='abandoned', ended_at=? WHERE id=? AND status='playing'",
                (self.clock(), game_id),
            )
            self._set_current(conn, None)

    # -- reading -------------------------------------------------------------

    def game(self, game_id: int) -> GameRecord | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT g.id, g.kind, g.settings, g.status, g.created_at, g.ended_at, "
                "(SELECT COUNT(*) FROM commands c WHERE c.game_id = g.id) FROM games g WHERE g.id=?",
                (game_id,),
            ).fetchone()
        return self._record(row) if row else None

    def games(self) -> list[GameRecord]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT g.id, g.kind, g.settings, g.status, g.created_at, g.ended_at, "
                "(SELECT COUNT(*) FROM commands c WHERE c.game_id = g.id) FROM games g ORDER BY g.id"
            ).fetchall()
        return [self._record(r) for r in rows]

    @staticmethod
    def _record(row: tuple) -> GameRecord:
        return GameRecord(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5], row[6])

    def commands(self, game_id: int, after: int = 0) -> list[LoggedCommand]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, command, source, manual FROM commands WHERE game_id=? AND seq>? ORDER BY seq",
                (game_id, after),
            ).fetchall()
        return [LoggedCommand(r[0], json.loads(r[1]), r[2], bool(r[3])) for r in rows]

    def rolls(
        self, game_id: int | None = None, limit: int | None = None, offset: int = 0
    ) -> list[RollRecord]:
        """Every roll logged (those taken back too, marked ``undone``), of one
        game or all, in the order they were played (``limit`` of them from
        ``offset``)."""
        where, args = ("WHERE game_id=?", [game_id]) if game_id is not None else ("", [])
        page = "LIMIT ? OFFSET ?" if limit is not None else ""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_ROLL_COLUMNS} FROM rolls {where} ORDER BY game_id, seq {page}",
                [*args, *((limit, offset) if limit is not None else ())],
            ).fetchall()
        return [
            RollRecord(
                g,
                s,
                o,
                json.loads(d),
                json.loads(k),
                json.loads(seen) if seen else None,
                at,
                player,
                turn_roll,
                None if scored is None else bool(scored),
                bool(undone),
                [face for face, n in enumerate(faces, start=1) for _ in range(n)],
            )
            for g, s, o, d, k, seen, at, player, turn_roll, scored, undone, *faces in rows
        ]

    # -- the statistics ----------------------------------------------------------

    @staticmethod
    def _game_filter(game_id: int | None, since: float | None, column: str) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        args: list[Any] = []
        if game_id is not None:
            where.append(f"{column} = ?")
            args.append(game_id)
        if since is not None:
            where.append(f"{column} IN (SELECT id FROM games WHERE created_at >= ?)")
            args.append(since)
        return where, args

    def dice_tallies(
        self, game_id: int | None = None, player: str | None = None, since: float | None = None
    ) -> list[DiceTally]:
        """The dice thrown, per player, in one game, by one player, in games
        started at or after ``since`` (a time stamp), or in all games; rolls
        taken back are left out. Added up in SQL: one pass over the rolls."""
        where, args = self._game_filter(game_id, since, "game_id")
        if player is not None:
            where.append("player = ?")
            args.append(player)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT player, {_FACE_SUMS}, SUM(rolls), SUM(first_rolls), SUM(first_scored) "
                f"FROM roll_tallies {clause} GROUP BY player ORDER BY player",
                args,
            ).fetchall()
        return [DiceTally(r[0] or None, tuple(r[1 : FACES + 1]), *r[FACES + 1 :]) for r in rows]

    def roll_count(self, game_id: int) -> int:
        """How many rolls a game logged, those taken back too."""
        with self._lock:
            return int(
                self._conn.execute("SELECT COUNT(*) FROM rolls WHERE game_id=?", (game_id,)).fetchone()[0]
            )

    def roll_players(self) -> list[str]:
        """Everyone who has thrown dice at this table, by name."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT DISTINCT player FROM roll_tallies WHERE player != '' ORDER BY player"
            ).fetchall()
        return [r[0] for r in rows]

    def played_games(
        self,
        kind: str | None = None,
        player: str | None = None,
        since: float | None = None,
        game_id: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> tuple[list[PlayedGame], int]:
        """The games of the history, newest first (``limit`` of them from
        ``offset``), with who played, who won, when and how long; and how
        many games match in all. ``player`` keeps the games they sat in."""
        where, args = self._game_filter(game_id, since, "g.id")
        if kind is not None:
            where.append("g.kind = ?")
            args.append(kind)
        if player is not None:
            where.append(
                "EXISTS (SELECT 1 FROM json_each(g.settings, '$.players') p WHERE "
                "(CASE p.type WHEN 'object' THEN json_extract(p.value, '$.name') ELSE p.value END) = ?)"
            )
            args.append(player)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        page = "LIMIT ? OFFSET ?" if limit is not None else ""
        with self._lock:
            total = self._conn.execute(f"SELECT COUNT(*) FROM games g {clause}", args).fetchone()[0]
            rows = self._conn.execute(
                "SELECT g.id, g.kind, g.settings, g.status, g.winner, g.created_at, "
                "(SELECT json_extract(c.command, '$.at') FROM commands c WHERE c.game_id = g.id "
                "ORDER BY c.seq LIMIT 1), "
                "(SELECT json_extract(c.command, '$.at') FROM commands c WHERE c.game_id = g.id "
                "ORDER BY c.seq DESC LIMIT 1), "
                "(SELECT COUNT(*) FROM commands c WHERE c.game_id = g.id), "
                "(SELECT COALESCE(SUM(t.rolls), 0) FROM roll_tallies t WHERE t.game_id = g.id) "
                f"FROM games g {clause} ORDER BY g.id DESC {page}",
                [*args, *((limit, offset) if limit is not None else ())],
            ).fetchall()
        games = []
        for gid, kind_, settings, status, winner, created, first_at, last_at, moves, rolls in rows:
            started = first_at if isinstance(first_at, (int, float)) else created
            games.append(
                PlayedGame(
                    gid,
                    kind_,
                    player_names(json.loads(settings)),
                    status,
                    winner,
                    float(started),
                    float(last_at) if isinstance(last_at, (int, float)) else None,
                    moves,
                    rolls,
                )
            )
        return games, total

    def last_seq(self, game_id: int) -> int:
        with self._lock:
            row = self._conn.execute("SELECT MAX(seq) FROM commands WHERE game_id=?", (game_id,)).fetchone()
        return int(row[0] or 0)

    def latest_snapshot(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT seq, state FROM snapshots WHERE game_id=? ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
        return (int(row[0]), json.loads(row[1])) if row else None

    def snapshot_seqs(self, game_id: int, upto: int) -> list[int]:
        """The seqs of the game's snapshots at or before ``upto``, latest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq FROM snapshots WHERE game_id=? AND seq<=? ORDER BY seq DESC", (game_id, upto)
            ).fetchall()
        return [int(r[0]) for r in rows]

    def snapshot_at(self, game_id: int, seq: int) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM snapshots WHERE game_id=? AND seq=?", (game_id, seq)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def command_types(self, game_id: int) -> list[tuple[int, str]]:
        """Every logged command's seq and type, without reading whole commands
        (enough to tell which commands are still in effect)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, json_extract(command, '$.type') FROM commands WHERE game_id=? ORDER BY seq",
                (game_id,),
            ).fetchall()
        return [(int(r[0]), str(r[1])) for r in rows]

    def commands_between(self, game_id: int, after: int, upto: int) -> list[LoggedCommand]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, command, source, manual FROM commands WHERE game_id=? AND seq>? AND seq<=? "
                "ORDER BY seq",
                (game_id, after, upto),
            ).fetchall()
        return [LoggedCommand(r[0], json.loads(r[1]), r[2], bool(r[3])) for r in rows]

    def set_aside(self, game_id: int) -> None:
        """Take a game that cannot be read off the table (it stays in the
        history, abandoned, for whoever wants to look at it)."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE games SET status='abandoned', ended_at=? WHERE id=? AND status='playing'",
                (self.clock(), game_id),
            )
            current = conn.execute("SELECT value FROM meta WHERE key='current_game'").fetchone()
            if current is not None and current[0] == str(game_id):
                self._set_current(conn, None)

    def resume_game(self, game_id: int) -> GameRecord:
        """Put an abandoned game back on the table; the game there now, if
        still playing, is abandoned in its place (and can be resumed in turn)."""
        now = self.clock()
        with self._transaction() as conn:
            row = conn.execute("SELECT status FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None:
                raise StoreError(N_("there is no game {id}").format(id=game_id))
            if row[0] != "abandoned":
                raise StoreError(
                    N_("game {game_id} is {status}; only an abandoned game can be resumed").format(
                        game_id=game_id, status=row[0]
                    )
                )
            previous = conn.execute("SELECT value FROM meta WHERE key='current_game'").fetchone()
            if previous:
                conn.execute(
                    "UPDATE games SET status='abandoned', ended_at=? WHERE id=? AND status='playing'",
                    (now, int(previous[0])),
                )
            conn.execute("UPDATE games SET status='playing', ended_at=NULL WHERE id=?", (game_id,))
            self._set_current(conn, game_id)
        record = self.game(game_id)
        if record is None:
            raise StoreError(N_("game {id} vanished while it was resumed").format(id=game_id))
        return record

    def initial_snapshot(self, game_id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT state FROM snapshots WHERE game_id=? AND seq=0", (game_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None

    # -- export and import -----------------------------------------------------

    def export_game(self, game_id: int) -> dict[str, Any]:
        """Settings, every command and the final state, as plain JSON data."""
        record = self.game(game_id)
        if record is None:
            raise StoreError(N_("there is no game {id}").format(id=game_id))
        commands = self.commands(game_id)
        game = replay(record.kind, record.settings, commands, self.initial_snapshot(game_id))
        return {
            "format": EXPORT_FORMAT,
            "version": SCHEMA_VERSION,
            "id": record.id,
            "kind": record.kind,
            "settings": record.settings,
            "status": record.status,
            "created_at": record.created_at,
            "ended_at": record.ended_at,
            "initial_state": self.initial_snapshot(game_id),
            "commands": [c.to_dict() for c in commands],
            "final_state": game.to_dict(),
        }

    def import_game(self, data: Any) -> int:
        """Add an exported game to the history after replaying it; a file that
        does not replay to its own final state is refused and nothing changes."""
        from tablepi.games import winner_words

        kind, settings, initial, commands, final = _validate_export(data)
        facts: dict[int, dict[str, Any]] = {}
        game = replay(kind, settings, commands, initial, facts)
        in_effect = set(effective((c.seq, str(c.command.get("type"))) for c in commands))
        if final is not None and _dumps(game.to_dict()) != _dumps(final):
            raise StoreError(N_("the commands do not replay to the file's final state; nothing was imported"))
        now = self.clock()
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games(kind, settings, status, created_at, ended_at, winner) "
                "VALUES (?, ?, 'imported', ?, ?, ?)",
                (kind, _dumps(settings), now, now, winner_words(kind, game)),
            )
            game_id = int(cur.lastrowid)
            conn.execute(
                "INSERT INTO snapshots(game_id, seq, state) VALUES (?, 0, ?)",
                (game_id, _dumps(initial if initial is not None else _fresh_state(kind, settings))),
            )
            conn.executemany(
                "INSERT INTO commands(game_id, seq, command, source, manual) VALUES (?, ?, ?, ?, ?)",
                [(game_id, c.seq, _dumps(c.command), c.source, int(c.manual)) for c in commands],
            )
            rolls = [
                _roll_row(
                    game_id, c.seq, c.command, c.source, c.manual, facts.get(c.seq), c.seq not in in_effect
                )
                for c in commands
            ]
            conn.executemany(_INSERT_ROLL, [r for r in rolls if r is not None])
            _retally(conn, game_id)
        return game_id


def _fresh_state(kind: str, settings: dict[str, Any]) -> dict[str, Any]:
    from tablepi.games import new_game

    return new_game(kind, settings).to_dict()


def replay(
    kind: str,
    settings: dict[str, Any],
    commands: Iterable[LoggedCommand],
    initial_state: dict[str, Any] | None = None,
    facts: dict[int, dict[str, Any]] | None = None,
) -> Any:
    """The game after ``commands`` from its start; ``undo`` entries take back
    the command before them. Raises ``StoreError`` on any command that does
    not apply. ``facts``, if given, is filled with the game's facts of each
    roll (``tablepi.games.roll_facts``), by seq, those taken back too."""
    from tablepi.games import RuleError, load_game, new_game, roll_facts

    try:
        game = load_game(kind, initial_state) if initial_state is not None else new_game(kind, settings)
    except RuleError as exc:
        raise StoreError(N_("the game cannot be set up: {why}").format(why=exc.message)) from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(N_("the game's starting state is not valid: {why}").format(why=repr(exc))) from exc
    entries = list(commands)
    if facts is not None and callable(getattr(game, "roll_facts", None)):
        # A game of dice is played as it went, undos and all, so that a roll
        # taken back later still says who threw it.
        for entry in entries:
            apply_logged(game, entry)
            if entry.command.get("type") == "roll":
                facts[entry.seq] = roll_facts(game)
        return game
    in_effect = set(effective((e.seq, str(e.command.get("type"))) for e in entries))
    # Only the commands still in effect are played: taking one back gives
    # the state from before it, so skipping it gives the same game without
    # asking the game to remember every state it passed through.
    for entry in entries:
        if entry.seq in in_effect:
            apply_logged(game, entry)
    return game


def effective(entries: Iterable[tuple[int, str]]) -> list[int]:
    """The seqs of the commands still in effect after a log of ``(seq, type)``
    entries: each ``undo`` takes back the latest command still in effect."""
    stack: list[int] = []
    for seq, ctype in entries:
        if ctype == "undo":
            if not stack:
                raise StoreError(N_("command {seq} (undo) has nothing to take back").format(seq=seq))
            stack.pop()
        else:
            stack.append(seq)
    return stack


# Games whose rules read the table's "at" stamp (their module docstrings say
# so); the others take their documented fields only, and the stamp stays in
# the log. A game class may also say so itself with ``takes_at``.
TIMED_KINDS = frozenset({"outer_space"})
# Fields the table adds to a command for its own record, never for the rules.
TABLE_FIELDS = ("at", "manual", "seen")


def game_command(game: Any, command: dict[str, Any]) -> dict[str, Any]:
    """The part of a logged command that the game's rules take."""
    kind = getattr(game, "kind", None) or getattr(type(game), "kind", None)
    takes_at = getattr(type(game), "takes_at", kind in TIMED_KINDS)
    keep = ("at",) if takes_at else ()
    return {k: v for k, v in command.items() if k not in TABLE_FIELDS or k in keep}


def apply_logged(game: Any, entry: LoggedCommand) -> None:
    from tablepi.games import RuleError

    command = entry.command
    try:
        if command.get("type") == "undo":
            game.pop()
        else:
            game.push(game_command(game, command))
    except RuleError as exc:
        raise StoreError(
            N_("command {seq} ({type}) is not legal: {why}").format(
                seq=entry.seq, type=command.get("type"), why=exc.message
            )
        ) from exc
    except (IndexError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StoreError(
            N_("command {seq} ({type}) cannot be applied: {why}").format(
                seq=entry.seq, type=command.get("type"), why=repr(exc)
            )
        ) from exc


def _validate_export(data: Any):
    from tablepi.games import KINDS

    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise StoreError(
            N_('not a TablePi game file (expected "format": "{format}")').format(format=EXPORT_FORMAT)
        )
    kind = data.get("kind")
    if kind not in KINDS:
        raise StoreError(
            N_("unknown game kind {kind}; expected one of {kinds}").format(
                kind=repr(kind), kinds=", ".join(KINDS)
            )
        )
    settings = data.get("settings")
    if not isinstance(settings, dict):
        raise StoreError(N_('"{name}" must be an object').format(name="settings"))
    initial = data.get("initial_state")
    if initial is not None and not isinstance(initial, dict):
        raise StoreError(N_('"{name}" must be an object').format(name="initial_state"))
    final = data.get("final_state")
    if final is not None and not isinstance(final, dict):
        raise StoreError(N_('"{name}" must be an object').format(name="final_state"))
    raw = data.get("commands")
    if not isinstance(raw, list):
        raise StoreError(N_('"{name}" must be a list').format(name="commands"))
    commands: list[LoggedCommand] = []
    for i, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("command"), dict):
            raise StoreError(N_('command {seq} must be an object with a "command" object').format(seq=i))
        seq = item.get("seq", i)
        if seq != i:
            raise StoreError(
                N_("command {i} has seq {seq}; commands must be numbered 1, 2, 3, ...").format(
                    i=i, seq=repr(seq)
                )
            )
        if not isinstance(item["command"].get("type"), str):
            raise StoreError(N_('command {seq} has no "type"').format(seq=i))
        source = item.get("source", "import")
        if not isinstance(source, str):
            raise StoreError(N_("command {seq} has a source that is not text").format(seq=i))
        commands.append(LoggedCommand(i, item["command"], source, bool(item.get("manual", False))))
    return kind, settings, initial, commands, final
