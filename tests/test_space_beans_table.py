"""Space Beans through the real table and SQLite store: a whole game kept from
phones, undo, restart, and secret collections kept off the disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablepi.games.errors import RuleError
from tablepi.store import Store
from tablepi.table import Table

MARKER = "zq-secret-marker-55d1"
NINE = [1, 2, 3, 4, 4, 5, 5, 6, 9]


def add(i: int, bean: str, cards: list[int]) -> dict:
    return {"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards}


def close(i: int) -> dict:
    return {"type": "close_out", "player": i}


END = {"type": "end_turn"}

# Allister reaches 31 trophy points and ends the game: rulings S3 and S4.
GAME = [
    add(0, "Beanliens", NINE),
    END,
    add(1, "Bluebeans", [1]),
    END,
    close(0),
    add(0, "Centauribohnen", NINE),
    END,
    add(1, "Bluebeans", [2]),
    END,
    close(0),
    add(0, "Bohrion", NINE),
    END,
    add(1, "Bluebeans", [3]),
    END,
    close(0),
    add(0, "Moonbohnen", [1, 2, 3, 4]),
    END,
    add(1, "Bluebeans", [4]),
    END,
    {"type": "add", "player": 0, "collection": "secret", "count": 6},
    END,
    add(1, "Bluebeans", [5]),
    END,
    close(0),
    {"type": "reveal", "player": 0, "bean": "Klingbohnen", "cards": [1, 4, 4, 5, 7, 9]},
    {"type": "add", "player": 0, "collection": "secret", "count": 2},
    END,
]


def disk(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.iterdir()) if p.is_file())


def test_whole_game_from_phones(tmp_path: Path) -> None:
    store = Store(tmp_path)
    table = Table(store)
    table.start_game("space_beans", {"players": ["Allister", "Beatrix"]})
    for command in GAME:
        table.submit(command, source="web")
    game = table.public_state()["game"]
    assert game["state"]["end_triggered"] and not game["finished"]
    # the secret collection holds two cards: one is not enough
    with pytest.raises(RuleError) as err:
        table.submit({"type": "final", "player": 0, "bean": "Dark Beans", "cards": [2]}, source="web")
    assert err.value.rule == "S3"
    state = table.submit({"type": "final", "player": 0, "bean": "Dark Beans", "cards": [2, 8]}, source="web")
    assert state["game"]["finished"]
    assert [p["total"] for p in state["game"]["state"]["players"]] == [36, 5]
    table.submit({"type": "undo"}, source="web")
    assert not table.public_state()["game"]["finished"]
    store.close()
    again = Table(Store(tmp_path))
    assert again.public_state()["game"]["state"]["awaiting_final"] == [0]
    again.store.close()


def test_secret_contents_refused_and_never_stored(tmp_path: Path) -> None:
    store = Store(tmp_path)
    table = Table(store)
    table.start_game("space_beans", {"players": ["Ann", "Ben"]})
    for command in [add(0, "Bohrion", [1]), END, add(1, "Bluebeans", [1]), END]:
        table.submit(command, source="web")
    for leak in [{"cards": [2, 8]}, {"bean": MARKER}, {"note": MARKER}]:
        with pytest.raises(RuleError) as err:
            table.submit(
                {"type": "add", "player": 0, "collection": "secret", "count": 2, **leak}, source="web"
            )
        assert err.value.rule == "secret"
    table.submit({"type": "add", "player": 0, "collection": "secret", "count": 2}, source="web")
    assert table.public_state()["game"]["state"]["players"][0]["secret_count"] == 2
    assert MARKER not in json.dumps(store.export_game(table.game_id))
    store.close()
    data = disk(tmp_path)
    assert b"Bluebeans" in data  # the search sees the stored log
    assert MARKER.encode() not in data
