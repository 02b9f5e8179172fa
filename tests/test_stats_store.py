"""The store's statistics queries: the sums SQL makes of the rolls must equal a
brute count of the log (every game replayed by hand, undos and all), for all
games, a player, a game and a date; and stores written before (schema 1 and
2) must give the same answers, brought up to date or opened read-only.

tests/data/store_v2.db was written by the program at schema 2 (commit
e6cce42): a finished Beam Me Up game of Ann and Ben (Ben won; camera rolls
with each die's reading, phone rolls, a roll taken back), an abandoned one
of Cat, Ann and Dan, and a Space Beans game with a secret collection."""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.options import TABLE
from tablepi.games.beam_me_up.randomplay import random_command
from tablepi.history import dice_summary, known_players
from tablepi.store import DB_NAME, SCHEMA_VERSION, Store, effective
from tablepi.table import Table

DATA = Path(__file__).parent / "data"


class Brute:
    """Counts by hand: every Beam Me Up game's log replayed on a fresh game."""

    def __init__(self, store: Store, game_id: int | None = None, player: str | None = None) -> None:
        self.faces = [0] * 6
        self.firsts: dict[str, list[int]] = {}
        self.rolls: dict[int, int] = {}
        self.winners: dict[int, str | None] = {}
        for record in store.games():
            if record.kind != "beam_me_up" or game_id not in (None, record.id):
                continue
            entries = store.commands(record.id)
            in_effect = set(effective((e.seq, e.command["type"]) for e in entries))
            game = BeamMeUp.from_settings(record.settings)
            self.rolls[record.id] = 0
            for e in entries:
                if e.seq not in in_effect:
                    continue
                command = {k: v for k, v in e.command.items() if k not in ("at", "manual", "seen")}
                if command["type"] == "roll":
                    self.rolls[record.id] += 1
                    who = game.players[game.active]
                    if player in (None, who):
                        for value in (Counter(command["dice"]) - Counter(command.get("kept", []))).elements():
                            self.faces[value - 1] += 1
                        if game.roll_number == 0:
                            tally = self.firsts.setdefault(who, [0, 0])
                            tally[0] += 1
                            tally[1] += bool(TABLE[tuple(sorted(command["dice"]))])
                game.push(command)
            self.winners[record.id] = game.players[game.winner] if game.finished else None


def sql_counts(store: Store, **filters) -> tuple[list[int], dict[str, list[int]]]:
    tallies = store.dice_tallies(**filters)
    faces = [sum(t.faces[i] for t in tallies) for i in range(6)]
    return faces, {t.player: [t.first_rolls, t.first_scored] for t in tallies if t.player}


def play(table: Table, rng: random.Random, names: list[str], stop_after: int | None = None) -> BeamMeUp:
    """A game of random legal play through the table: rolls from the camera or
    a phone, the rest from the buttons, and now and then an undo."""
    settings = {"players": [{"name": n} for n in names]}
    table.start_game("beam_me_up", settings, source="cli")
    shadow = BeamMeUp.from_settings(settings)
    played = 0
    while not shadow.finished and (stop_after is None or played < stop_after):
        command = random_command(shadow, rng)
        source = "button"
        if command["type"] == "roll":
            source = "camera" if rng.random() < 0.7 else "web"
        table.submit(command, source)
        shadow.push(command)
        played += 1
        if not shadow.finished and rng.random() < 0.06:
            table.submit({"type": "undo"}, "web")
            shadow.pop()
    return shadow


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Three games of Beam Me Up (two to the win, one left half-way) and one of Space Beans."""
    folder = tmp_path_factory.mktemp("history")
    clock = iter(range(1_800_000_000, 1_900_000_000, 5))
    table = Table(Store(folder, clock=lambda: float(next(clock))), clock=lambda: float(next(clock)))
    rng = random.Random(2027)
    shadows = [
        play(table, rng, ["Ann", "Ben"]),
        play(table, rng, ["Cat", "Ann", "Dan"]),
        play(table, rng, ["Ben", "Cat"], stop_after=40),
    ]
    table.start_game("space_beans", {"players": ["Ann", "Eve"]}, source="cli")
    yield table.store, shadows
    table.store.close()


def test_the_sums_equal_a_brute_count_of_the_log(history):
    store, shadows = history
    brute = Brute(store)
    assert sum(brute.faces) > 300
    faces, firsts = sql_counts(store)
    assert faces == brute.faces
    assert firsts == brute.firsts
    assert store.roll_players() == ["Ann", "Ben", "Cat", "Dan"]
    for name in ["Ann", "Ben", "Cat", "Dan", "Eve"]:
        by_hand = Brute(store, player=name)
        assert sql_counts(store, player=name) == (by_hand.faces, by_hand.firsts)
    for game_id in (1, 2, 3, 4):
        by_hand = Brute(store, game_id=game_id)
        assert sql_counts(store, game_id=game_id) == (by_hand.faces, by_hand.firsts)
    # Undone rolls are kept, marked, and left out of every sum.
    rolls = store.rolls()
    assert any(r.undone for r in rolls)
    assert sum(not r.undone for r in rolls) == sum(brute.rolls.values())
    assert all(r.player and r.turn_roll in (1, 2, 3) for r in rolls)


def test_the_games_played_say_who_won_and_how_long(history):
    store, shadows = history
    brute = Brute(store)
    games, total = store.played_games()
    assert total == 4 and [g.id for g in games] == [4, 3, 2, 1]
    by_id = {g.id: g for g in games}
    for game_id, shadow in zip((1, 2, 3), shadows, strict=True):
        game = by_id[game_id]
        assert (
            game.winner
            == brute.winners[game_id]
            == (shadow.players[shadow.winner] if shadow.finished else None)
        )
        assert game.rolls == brute.rolls[game_id]
        assert game.moves == len(store.commands(game_id))
        assert game.last_move > game.started
    assert by_id[1].winner and by_id[2].winner and by_id[3].winner is None
    assert (by_id[3].status, by_id[4].kind, by_id[4].players, by_id[4].rolls) == (
        "abandoned",
        "space_beans",
        ["Ann", "Eve"],
        0,
    )
    assert [g.id for g in store.played_games(player="Dan")[0]] == [2]
    assert [g.id for g in store.played_games(player="Eve")[0]] == [4]
    page, total = store.played_games(limit=2, offset=2)
    assert ([g.id for g in page], total) == ([2, 1], 4)
    assert store.played_games(kind="beam_me_up", limit=0) == ([], 3)


def test_since_keeps_the_games_started_that_day_or_later(history):
    store, _ = history
    third = store.game(3).created_at
    faces, _ = sql_counts(store, since=third)
    assert faces == Brute(store, game_id=3).faces
    assert [g.id for g in store.played_games(since=third)[0]] == [4, 3]
    assert sql_counts(store, since=third + 10**9) == ([0] * 6, {})


def test_the_summary_puts_the_figures_in_words(history):
    store, _ = history
    brute = Brute(store)
    summary = dice_summary(store)
    assert list(summary["counts"].values()) == brute.faces
    assert summary["games"] == 3 and summary["dice"] == sum(brute.faces)
    assert summary["words"].startswith(f"No sign of an unfair die after {sum(brute.faces):,} dice.")
    assert [(row["player"], row["first_rolls"], row["scored"]) for row in summary["luck"]] == [
        (name, n, hits) for name, (n, hits) in sorted(brute.firsts.items())
    ]
    one = dice_summary(store, game_id=2)
    assert one["games"] == 1 and [row["player"] for row in one["luck"]] == ["Ann", "Cat", "Dan"]


def test_an_undo_of_the_winning_move_takes_the_win_back(tmp_path):
    table = Table(Store(tmp_path))
    shadow = play(table, random.Random(5), ["Ann", "Ben"])
    winner = shadow.players[shadow.winner]
    assert table.store.played_games()[0][0].winner == winner
    table.submit({"type": "undo"}, "web")
    (game,), _ = table.store.played_games()
    assert (game.winner, game.status) == (None, "playing")
    table.store.close()


def test_an_imported_game_brings_its_facts_along(history, tmp_path):
    store, _ = history
    other = Store(tmp_path)
    new_id = other.import_game(store.export_game(1))
    assert sql_counts(other) == sql_counts(store, game_id=1)
    assert other.played_games()[0][0].winner == Brute(store).winners[1]
    assert [r.to_dict() for r in other.rolls(new_id)] == [
        dict(r.to_dict(), game=new_id) for r in store.rolls(1)
    ]
    other.close()


def _digest(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, command, source, manual FROM commands ORDER BY game_id, seq"
        )
        return hashlib.sha256(repr(rows.fetchall()).encode()).hexdigest()


def test_a_store_of_schema_2_is_brought_up_to_date_from_its_log(tmp_path):
    shutil.copy(DATA / "store_v2.db", tmp_path / DB_NAME)
    before = _digest(tmp_path / DB_NAME)
    store = Store(tmp_path)
    assert store.problem is None
    brute = Brute(store)
    assert sql_counts(store) == (brute.faces, brute.firsts)
    assert sum(brute.faces) > 200 and set(brute.firsts) == {"Ann", "Ben", "Cat", "Dan"}
    games, _ = store.played_games()
    assert [(g.id, g.winner, g.status) for g in games] == [
        (3, None, "playing"),
        (2, None, "abandoned"),
        (1, "Ben", "finished"),
    ]
    # The camera's readings are still there; the roll taken back is marked.
    rolls = store.rolls()
    assert sum(r.seen is not None for r in rolls) == 45 and sum(r.undone for r in rolls) == 2
    # The game on the table goes on, and a new roll is counted at once.
    table = Table(store)
    assert table.kind == "space_beans"
    table.start_game("beam_me_up", {"players": [{"name": "Eve"}, {"name": "Fay"}], "advantage": False})
    table.submit({"type": "roll", "dice": [6, 6, 6, 6, 6]}, "camera")
    assert sql_counts(store, player="Eve") == ([0, 0, 0, 0, 0, 5], {"Eve": [1, 1]})
    store.close()
    with sqlite3.connect(tmp_path / DB_NAME) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA_VERSION),)
        old = conn.execute("SELECT COUNT(*) FROM commands WHERE game_id <= 3").fetchone()[0]
    assert old == 158 + 61 + 5 + 2 - 2  # nothing in the old log was added or lost
    again = Store(tmp_path)
    assert again.played_games()[1] == 4
    again.close()
    shutil.copy(DATA / "store_v2.db", tmp_path / "copy.db")
    assert _digest(tmp_path / "copy.db") == before


def test_a_store_of_schema_1_gets_its_rolls_players(tmp_path):
    shutil.copy(DATA / "store_v1.db", tmp_path / DB_NAME)
    store = Store(tmp_path)
    assert [(r.seq, r.player, r.turn_roll, r.undone) for r in store.rolls()] == [
        (1, "Ann", 1, True),
        (3, "Ann", 1, False),
        (4, "Ann", 2, False),
    ]
    brute = Brute(store)
    assert sql_counts(store) == (brute.faces, brute.firsts)
    store.close()


@pytest.mark.parametrize("name", ["store_v1.db", "store_v2.db"])
def test_an_old_store_that_cannot_be_written_is_counted_in_memory(tmp_path, name):
    (tmp_path / "old").mkdir()
    shutil.copy(DATA / name, tmp_path / "old" / DB_NAME)
    before = (tmp_path / "old" / DB_NAME).read_bytes()
    store = Store(tmp_path / "new")
    store._conn.close()
    store.path = tmp_path / "old" / DB_NAME
    store._conn = store._open_read_only()
    brute = Brute(store)
    assert sql_counts(store) == (brute.faces, brute.firsts)
    assert [g.winner for g in store.played_games()[0]][-1] == brute.winners[1]
    store._conn.close()
    assert (tmp_path / "old" / DB_NAME).read_bytes() == before


def test_the_cli_reads_the_same_sums(history, capsys):
    import json

    from tablepi.cli import main

    store, _ = history
    brute = Brute(store)
    assert main(["stats", "--data-dir", str(store.data_dir), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == json.loads(json.dumps(dice_summary(store)))
    assert list(out["counts"].values()) == brute.faces and out["games"] == 3
    assert main(["stats", "--data-dir", str(store.data_dir), "--player", "Dan", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["counts"].values()) == Brute(store, player="Dan").faces and out["games"] == 1
    assert main(["stats", "--data-dir", str(store.data_dir), "--game", "4"]) == 2
    assert "no game of Beam Me Up numbered 4" in capsys.readouterr().err
    # A name in any case is the player's; an unknown one is said so, with the names known.
    assert main(["stats", "--data-dir", str(store.data_dir), "--player", "dAN"]) == 0
    out = capsys.readouterr().out
    n = sum(Brute(store, player="Dan").faces)
    assert out.startswith(f"{n:,} dice thrown by Dan in 1 game\n") and n > 0
    assert main(["stats", "--data-dir", str(store.data_dir), "--player", "Zed", "--json"]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        "tablepi stats: No player called 'Zed' has played at this table. "
        f"Known players: {', '.join(known_players(store))}.\n"
    )
