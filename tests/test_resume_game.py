"""An abandoned game comes back: `resume_game` on the table and
`tablepi games resume ID` on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablepi.cli import main
from tablepi.store import Store
from tablepi.table import CommandError, Table

SETTINGS = {"players": [{"name": "Ann"}, {"name": "Ben"}]}


def _table_with_an_abandoned_game(path: Path) -> Table:
    table = Table(Store(path))
    table.start_game("beam_me_up", SETTINGS)
    table.submit({"type": "advantage", "columns": ["3"]}, "button")
    table.submit({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True})
    table.start_game("space_beans", {"players": ["Cat", "Dan"]})  # game 1 is abandoned
    return table


def test_an_abandoned_game_resumes_where_it_was_left(tmp_path: Path) -> None:
    table = _table_with_an_abandoned_game(tmp_path)
    assert table.store.game(1).status == "abandoned"
    state = table.submit({"type": "resume_game", "game": 1})
    game = state["game"]
    assert game["id"] == 1 and game["kind"] == "beam_me_up"
    assert game["state"]["dice"] == [1, 1, 2, 3, 4] and game["state"]["roll"] == 1
    assert table.store.game(1).status == "playing"
    assert table.store.game(2).status == "abandoned"  # the one it replaced, resumable in turn
    table.submit({"type": "choose", "option": 0})
    table.store.close()
    again = Table(Store(tmp_path))  # and a restart finds it
    assert again.game_id == 1 and again.public_state()["game"]["state"]["phase"] != "rolling"
    again.submit({"type": "resume_game", "game": 2})
    assert again.kind == "space_beans"


@pytest.mark.parametrize(
    ("game", "words"),
    [
        (9, "there is no game 9"),
        (2, "game 2 is playing"),
        ("1", "must be the number"),
        (True, "must be the number"),
    ],
)
def test_what_cannot_be_resumed_changes_nothing(tmp_path: Path, game, words: str) -> None:
    table = _table_with_an_abandoned_game(tmp_path)
    before = table.public_state()
    with pytest.raises(CommandError, match=words):
        table.submit({"type": "resume_game", "game": game})
    assert table.public_state() == before
    assert table.store.game(1).status == "abandoned"


def test_cli_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _table_with_an_abandoned_game(tmp_path).store.close()
    assert main(["games", "resume", "2", "--data-dir", str(tmp_path)]) == 1
    assert "only an abandoned game" in capsys.readouterr().err
    assert main(["games", "resume", "7", "--data-dir", str(tmp_path)]) == 1
    assert "there is no game 7" in capsys.readouterr().err
    assert main(["games", "resume", "1", "--data-dir", str(tmp_path)]) == 0
    assert "game 1 (beam_me_up) is on the table again" in capsys.readouterr().out
    table = Table(Store(tmp_path))
    assert table.game_id == 1 and table.public_state()["game"]["state"]["dice"] == [1, 1, 2, 3, 4]
    assert table.store.game(2).status == "abandoned"
