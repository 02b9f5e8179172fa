"""Secrets stay secret: whatever is played, the public state, the events and
every row of the store hold no secret field, and the danger coin's result
goes nowhere but the OLED."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.display import TableDisplay
from tablepi.controllers.outer_space import OuterSpaceController
from tablepi.games.errors import RuleError
from tablepi.store import DB_NAME, Store
from tablepi.table import CommandError, Table

# Field names that would hold hidden information: the danger coin, team
# cards and roles, hands, the deck, secret collections' contents.
SECRET_KEYS = {
    "coin",
    "coin_result",
    "flip",
    "flips",
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
    "secret_collection",
}
BEANS = ["Klingbohns", "Dark Beans", "Beanliens", "Centauribohnen", "Bohrion", "Moonbohnen", "Bluebeans"]


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        found = set(value)
        for v in value.values():
            found |= _keys(v)
        return found
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()


def _store_text(data_dir: Path) -> str:
    conn = sqlite3.connect(data_dir / DB_NAME)
    try:
        rows = []
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            rows += [repr(r) for r in conn.execute(f"SELECT * FROM {table}")]
        return "\n".join(rows)
    finally:
        conn.close()


def _stored_keys(data_dir: Path) -> set[str]:
    conn = sqlite3.connect(data_dir / DB_NAME)
    try:
        found: set[str] = set()
        queries = (
            "SELECT command FROM commands",
            "SELECT state FROM snapshots",
            "SELECT settings FROM games",
        )
        for query in queries:
            for (text,) in conn.execute(query):
                found |= _keys(json.loads(text))
        return found
    finally:
        conn.close()


def _play(kind: str, settings_: dict, commands: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        table = Table(Store(data_dir))
        sub = table.subscribe(maxsize=10_000)
        table.start_game(kind, settings_)
        for command in commands:
            try:
                state = table.submit(command, "web")
            except (RuleError, CommandError):
                continue
            assert not _keys(state) & SECRET_KEYS, _keys(state) & SECRET_KEYS
        events = []
        while (event := sub.get(0)) is not None:
            events.append(event)
        assert not set().union(*(_keys(e.data) for e in events)) & SECRET_KEYS
        table.store.close()
        assert not _stored_keys(data_dir) & SECRET_KEYS


player = st.integers(0, 5)
bean = st.sampled_from(BEANS)
cards = st.lists(st.integers(1, 9), min_size=1, max_size=4)
bean_command = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("add"),
            "player": player,
            "collection": st.just("open"),
            "bean": bean,
            "cards": cards,
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("add"),
            "player": player,
            "collection": st.just("secret"),
            "count": st.integers(1, 3),
        }
    ),
    # A phone that tries to record what a secret collection holds.
    st.fixed_dictionaries(
        {
            "type": st.just("add"),
            "player": player,
            "collection": st.just("secret"),
            "count": st.integers(1, 3),
            "bean": bean,
            "cards": cards,
        }
    ),
    st.fixed_dictionaries({"type": st.just("close_out"), "player": player}),
    st.fixed_dictionaries({"type": st.just("reveal"), "player": player, "bean": bean, "cards": cards}),
    st.fixed_dictionaries({"type": st.just("final"), "player": player, "bean": bean, "cards": cards}),
    st.just({"type": "end_turn"}),
    st.just({"type": "undo"}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), commands=st.lists(bean_command, max_size=60))
def test_space_beans_public_state_and_store_hold_no_secret(players: int, commands: list[dict]) -> None:
    _play("space_beans", {"players": [f"P{i}" for i in range(players)]}, commands)


names = [f"P{i}" for i in range(12)]
space_command = st.one_of(
    st.fixed_dictionaries({"type": st.just("leader"), "player": st.sampled_from(names)}),
    st.fixed_dictionaries({"type": st.just("partner"), "player": st.sampled_from(names)}),
    st.just({"type": "next_phase"}),
    st.sampled_from([{"type": "timer_start"}, {"type": "timer_pause"}, {"type": "timer_reset"}]),
    # Attempts to put the coin into the record.
    st.fixed_dictionaries({"type": st.just("coin"), "result": st.sampled_from(["alien", "human"])}),
    st.fixed_dictionaries({"type": st.just("timer_start"), "coin": st.sampled_from(["alien", "human"])}),
    st.just({"type": "undo"}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(6, 12), commands=st.lists(space_command, max_size=40))
def test_outer_space_public_state_and_store_hold_no_secret(players: int, commands: list[dict]) -> None:
    _play("outer_space", {"players": names[:players]}, commands)


def test_danger_coin_reaches_only_the_display(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    sub = table.subscribe(maxsize=10_000)
    display = TableDisplay()
    flips: list[str] = []

    def flip() -> str:
        flips.append("alien" if len(flips) % 2 else "human")
        return flips[-1]

    clock = [1000.0]
    controller = OuterSpaceController(table, display, None, lambda: clock[0], flip=flip, coin_seconds=5)
    controller.on_state(table.start_game("outer_space", {"players": names[:7]}))
    for _ in range(6):
        controller.on_button("coin")
        assert display.secret
        clock[0] += 6
        controller.tick(clock[0])
        assert not display.secret
        controller.on_button("timer_toggle")
        controller.on_state(table.public_state())
    assert len(flips) == 6
    seen = [json.dumps(table.public_state())]
    while (event := sub.get(0)) is not None:
        seen.append(json.dumps(event.data))
    table.store.close()
    seen.append(_store_text(tmp_path))
    seen.append((tmp_path / DB_NAME).read_bytes().decode("latin-1"))
    wal = tmp_path / (DB_NAME + "-wal")
    if wal.exists():
        seen.append(wal.read_bytes().decode("latin-1"))
    for text in seen:
        assert '"alien"' not in text and '"human"' not in text
        assert "'alien'" not in text and "'human'" not in text
