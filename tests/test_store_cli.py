"""`tablepi games list|export|import` on a real data folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablepi.cli import main
from tablepi.store import Store
from tablepi.table import Table

SETTINGS = {"players": [{"name": "Ann"}, {"name": "Ben"}]}


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", SETTINGS, source="cli")
    table.submit({"type": "advantage", "columns": ["3"]}, "button")
    table.submit({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True}, "web")
    table.submit({"type": "choose", "option": 0}, "button")
    table.store.close()
    return tmp_path


def test_list(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "list", "--data-dir", str(data_dir), "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    assert [(g["id"], g["kind"], g["status"], g["commands"], g["current"]) for g in games] == [
        (1, "beam_me_up", "playing", 3, True)
    ]
    assert main(["games", "list", "--data-dir", str(data_dir)]) == 0
    assert "Ann, Ben" in capsys.readouterr().out


def test_export_import_round_trip(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["games", "export", "1", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    exported = json.loads(out.read_text())
    assert exported["settings"] == SETTINGS
    assert [c["source"] for c in exported["commands"]] == ["button", "web", "button"]
    assert exported["commands"][1]["manual"] is True
    assert exported["final_state"]["commands"][-1] == {"type": "choose", "option": 0}
    other = tmp_path / "other"
    assert main(["games", "import", str(out), "--data-dir", str(other)]) == 0
    assert "imported as game 1" in capsys.readouterr().out
    store = Store(other)
    again = store.export_game(1)
    assert again["commands"] == exported["commands"]
    assert again["final_state"] == exported["final_state"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "is not a JSON file"),
        (
            '{"format": "tablepi-game", "kind": "beam_me_up", "settings": {"players": []}, "commands": []}',
            "cannot be set up",
        ),
        ("[1, 2]", "not a TablePi game file"),
    ],
)
def test_bad_import_is_refused(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    before = [g.to_dict() for g in Store(data_dir).games()]
    assert main(["games", "import", str(bad), "--data-dir", str(data_dir)]) == 1
    assert message in capsys.readouterr().err
    assert [g.to_dict() for g in Store(data_dir).games()] == before


def test_tampered_roll_is_refused(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.json"
    assert main(["games", "export", "1", "--data-dir", str(data_dir), "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    data["commands"][1]["command"]["dice"] = [1, 1, 2, 3, 9]
    out.write_text(json.dumps(data))
    assert main(["games", "import", str(out), "--data-dir", str(data_dir)]) == 1
    assert "command 2 (roll) is not legal" in capsys.readouterr().err
    assert len(Store(data_dir).games()) == 1


def test_export_of_a_missing_game(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "export", "7", "--data-dir", str(data_dir)]) == 1
    assert "there is no game 7" in capsys.readouterr().err
