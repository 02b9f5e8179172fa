"""Names a player with the PIN can type that nobody can read or tell apart:
refused, or kept in one normalised form, the same in every game. Against a
real `tablepi run --simulate`."""

from __future__ import annotations

import pytest
from hostile_support import PLAYERS, Table

INVISIBLE = ["\x00", "\ufeff", "\u200f\u200f", "\u200b", " \u200e ", "\u0301"]


def _settings(kind: str, names: list[str]) -> dict:
    if kind == "beam_me_up":
        return {"players": [{"name": n} for n in names]}
    return {"players": names}


def _others(kind: str) -> list[str]:
    return PLAYERS[1:] if kind == "outer_space" else PLAYERS[1:2]


def _start(table: Table, kind: str, names: list[str]) -> tuple[int, dict]:
    return table.command({"type": "new_game", "kind": kind, "settings": _settings(kind, names)})


def _names(table: Table) -> list[str]:
    state = table.json("GET", "/api/state")[1]
    players = state["game"]["state"]["players"]
    return [p["name"] if isinstance(p, dict) else p for p in players]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("names") / "data") as t:
        yield t


@pytest.mark.parametrize("kind", ["beam_me_up", "outer_space", "space_beans"])
def test_names_are_normalised_and_must_be_seen(table, kind):
    others = _others(kind)
    for name in INVISIBLE:
        status, reply = _start(table, kind, [name, *others])
        assert status == 409 and "name" in reply["error"], (kind, repr(name), reply)
    status, reply = _start(table, kind, ["Ann\u200b", *others, "Ann"])
    assert status == 409 and "differ" in reply["error"], (kind, reply)  # with a zero-width space, still Ann
    status, reply = _start(table, kind, ["x" * 41, *others])
    assert status == 409 and "40" in reply["error"], (kind, reply)
    status, reply = _start(table, kind, ["\u202eAnn  \t Lee\u200d", *others])
    assert status == 200, (kind, reply)
    assert _names(table)[0] == "Ann Lee"
    status, reply = _start(table, kind, ["Cafe\u0301" + "x" * 35, *others])
    assert status == 200 and _names(table)[0] == "Caf\u00e9" + "x" * 35, (kind, reply)
    # The history keeps the same form.
    status, _, page = table.request("GET", "/stats")
    assert "\u202e".encode() not in page and b"\xe2\x80\x8b" not in page
