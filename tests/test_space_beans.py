"""Space Beans rules: deck (S1), close-outs (S2), the end (S3), the worked example (S4)."""

from __future__ import annotations

import json

import pytest

from tablepi.games import KINDS, new_game
from tablepi.games.errors import RuleError
from tablepi.games.space_beans import SpaceBeans, collection_score, rank

NINE = [1, 2, 3, 4, 4, 5, 5, 6, 9]  # a legal 9-card collection of one type holding a 9


def add(i: int, bean: str, cards: list[int]) -> dict:
    return {"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards}


def secret(i: int, count: int) -> dict:
    return {"type": "add", "player": i, "collection": "secret", "count": count}


def close(i: int) -> dict:
    return {"type": "close_out", "player": i}


END = {"type": "end_turn"}


def play(g: SpaceBeans, *turns: list[dict]) -> None:
    """Each turn: its commands, then end_turn."""
    for turn in turns:
        for command in turn:
            g.push(command)
        g.push(END)


def refused(g: SpaceBeans, command: dict, rule: str) -> RuleError:
    before = json.dumps(g.to_dict(), sort_keys=True)
    with pytest.raises(RuleError) as err:
        g.push(command)
    assert err.value.rule == rule, err.value
    assert json.dumps(g.to_dict(), sort_keys=True) == before, "a refused command changed the game"
    return err.value


def two() -> SpaceBeans:
    return new_game("space_beans", {"players": ["Allister", "Beatrix"]})


def allister_reaches_31(g: SpaceBeans) -> None:
    """Three 9-trophies and a 4-trophy for Allister; Klingbohnen open, 2 secret cards."""
    play(
        g,
        [add(0, "Beanliens", NINE)],
        [add(1, "Bluebeans", [1])],
        [close(0), add(0, "Centauribohnen", NINE)],
        [add(1, "Bluebeans", [2])],
        [close(0), add(0, "Bohrion", NINE)],
        [add(1, "Bluebeans", [3])],
        [close(0), add(0, "Moonbohnen", [1, 2, 3, 4])],
        [add(1, "Bluebeans", [4])],
        [secret(0, 6)],
        [add(1, "Bluebeans", [5])],
    )
    g.push(close(0))  # Moonbohnen: 4 cards with a 4 -> 31 points
    g.push({"type": "reveal", "player": 0, "bean": "Klingbohnen", "cards": [1, 4, 4, 5, 7, 9]})
    g.push(secret(0, 2))


def test_registered() -> None:
    assert KINDS["space_beans"].endswith(":SpaceBeans")


def test_s4_worked_example_gives_36() -> None:
    g = two()
    allister_reaches_31(g)
    view = g.public_view()
    assert view["players"][0]["trophy_points"] == 31
    assert view["end_triggered"] is False  # not before the end of the turn (S3)
    g.push(END)
    view = g.public_view()
    assert view["end_triggered"] is True and view["ender"] == 0
    assert view["players"][0]["bonus"] == 3 and view["players"][1]["bonus"] == 0
    assert view["awaiting_final"] == [0] and not g.finished
    g.push({"type": "final", "player": 0, "bean": "Darth Beans", "cards": [2, 8]})
    assert g.finished
    view = g.public_view()
    allister = view["players"][0]
    assert [(c["bean"], c["size"], c["score"]) for c in allister["final"]] == [
        ("Klingbohns", 6, 0),
        ("Dark Beans", 2, 2),
    ]
    assert allister["total"] == 31 + 3 + 0 + 2 == 36
    # Beatrix's open Bluebeans 1..5: 5 cards with a 5 -> 5
    assert view["players"][1]["total"] == 5
    assert view["ranking"] == [
        {"rank": 1, "player": 0, "name": "Allister", "total": 36},
        {"rank": 2, "player": 1, "name": "Beatrix", "total": 5},
    ]
    assert view["winners"] == [0]
    refused(g, END, "finished")


@pytest.mark.parametrize(
    ("cards", "trophy"),
    [
        ([1, 4], None),  # no card matches 2
        ([7, 2, 9], None),  # no 3
        ([6, 1, 3], 3),  # one match
        ([1, 9, 7, 5, 5], 5),  # two 5s in 5 cards: one trophy only
        ([1], 1),  # a collection of one that matches
        ([5], None),  # a collection of one that does not
    ],
)
def test_close_out(cards: list[int], trophy: int | None) -> None:
    g = two()
    play(g, [add(0, "Bohrion", cards)], [add(1, "Bluebeans", [1])])
    g.push(close(0))
    p = g.public_view()["players"][0]
    assert p["trophies"] == ([] if trophy is None else [{"bean": "Bohrion", "value": trophy}])
    assert p["trophy_points"] == (trophy or 0)
    assert p["open"] is None
    assert g.public_view()["close_outs"][-1] == {
        "player": 0,
        "turn": 3,
        "bean": "Bohrion",
        "cards": cards,
        "trophy": trophy,
    }
    assert collection_score(cards) == (trophy or 0)


def test_secret_turns_open_after_close_out() -> None:
    g = two()
    play(g, [add(0, "Bohrion", [1])], [add(1, "Bluebeans", [1])], [secret(0, 2)], [add(1, "Bluebeans", [2])])
    g.push(close(0))
    view = g.public_view()["players"][0]
    assert view["secret_count"] == 0 and view["reveal_pending"] == 2 and view["open"] is None
    refused(g, END, "S2")
    refused(g, add(0, "Bohrion", [2]), "S2")
    refused(g, {"type": "reveal", "player": 0, "bean": "Dark Beans", "cards": [2]}, "S2")  # count
    g.push({"type": "reveal", "player": 0, "bean": "Dark Beans", "cards": [2, 8]})
    assert g.public_view()["players"][0]["open"]["cards"] == [2, 8]
    g.push(close(0))  # the revealed collection may be closed out at once
    assert g.public_view()["players"][0]["trophy_points"] == 1 + 2


def test_end_only_at_end_of_turn_and_bonus_to_who_crossed() -> None:
    g = new_game("space_beans", {"players": ["A", "B", "C"]})
    play(
        g,
        [add(0, "Beanliens", NINE)],
        [add(1, "Bohrion", [1])],
        [add(2, "Moonbohnen", [1])],
        [close(0), add(0, "Centauribohnen", NINE)],
        [add(1, "Bohrion", [2])],
        [add(2, "Moonbohnen", [2])],
        [close(0), add(0, "Bluebeans", NINE)],
        [add(1, "Bohrion", [3])],
        [add(2, "Moonbohnen", [3])],
    )
    g.push(close(0))
    g.push(add(0, "Dark Beans", [3, 1, 2]))
    assert g.public_view()["players"][0]["trophy_points"] == 27
    g.push(END)
    assert g.public_view()["end_triggered"] is False
    play(g, [secret(1, 1)], [add(2, "Moonbohnen", [9])])
    g.push(close(0))
    assert g.public_view()["players"][0]["trophy_points"] == 30
    assert g.public_view()["end_triggered"] is False  # mid-turn
    g.push(add(0, "Klingbohns", [4]))
    g.push(END)
    view = g.public_view()
    assert view["end_triggered"] and view["ender"] == 0 and view["active"] is None
    assert [p["bonus"] for p in view["players"]] == [3, 0, 0]
    assert view["awaiting_final"] == [1]  # only B holds a secret collection
    refused(g, add(1, "Bohrion", [4]), "S3")
    refused(g, {"type": "final", "player": 1, "bean": "Bohrion", "cards": [4, 5]}, "S3")  # size 1
    refused(g, {"type": "final", "player": 2, "bean": "Bohrion", "cards": [4]}, "S3")  # none held
    g.push({"type": "final", "player": 1, "bean": "Dark Beans", "cards": [1]})
    assert g.finished
    totals = [p["total"] for p in g.public_view()["players"]]
    # A: 30 + 3 + Klingbohns {4} -> 0; B: Bohrion {1,2,3} -> 3, secret Dark Beans {1} -> 1;
    # C: Moonbohnen {1,2,3,9} -> 0
    assert totals == [33, 4, 0]


def test_ties_are_shared() -> None:
    assert rank([10, 12, 10, 3]) == [2, 1, 2, 4]
    assert rank([7, 7]) == [1, 1]
    g = two()
    play(g, [add(0, "Bohrion", [1])], [add(1, "Bluebeans", [1])])
    view = g.public_view()
    assert view["leaders"] == [0, 1] and view["leader"] is None
    assert [r["rank"] for r in view["standings"]] == [1, 1]
    g.push(close(0))  # Bohrion {1}: a 1-point trophy
    assert g.public_view()["leader"] == 0 and g.public_view()["leaders"] == [0]


def test_shared_first_place_at_the_end() -> None:
    g = two()
    play(
        g,
        [add(0, "Beanliens", NINE)],
        [add(1, "Bohrion", NINE)],
        [close(0), add(0, "Centauribohnen", NINE)],
        [close(1), add(1, "Bluebeans", NINE)],
        [close(0), add(0, "Klingbohns", NINE)],
        [close(1), add(1, "Moonbohnen", NINE)],
        [close(0), add(0, "Dark Beans", [1, 2, 3])],
        [close(1), add(1, "Dark Beans", [4, 4, 5, 5, 6, 7])],
    )
    g.push(close(0))  # Dark Beans {1,2,3}: 27 + 3 = 30
    g.push(add(0, "Beanliens", [8]))  # one card, not a 1: worth nothing at the end
    g.push(END)
    assert g.finished
    view = g.public_view()
    # A: 30 + 3 bonus + 0 = 33; B: 27 + Dark Beans {4,4,5,5,6,7} (6 cards, a 6) = 33
    assert [p["total"] for p in view["players"]] == [33, 33]
    assert [r["rank"] for r in view["ranking"]] == [1, 1]
    assert view["winners"] == [0, 1] and view["leaders"] == [0, 1]


def test_secret_contents_never_held_before_the_end() -> None:
    g = two()
    play(g, [add(0, "Bohrion", [1])], [add(1, "Bluebeans", [1])])
    refused(
        g, {"type": "add", "player": 0, "collection": "secret", "count": 2, "bean": "Dark Beans"}, "secret"
    )
    refused(g, {"type": "add", "player": 0, "collection": "secret", "count": 2, "cards": [2, 8]}, "secret")
    refused(
        g,
        {"type": "add", "player": 0, "collection": "secret", "count": 2, "note": "ZQX-MARKER 2 and 8"},
        "secret",
    )
    g.push({"type": "add", "player": 0, "collection": "secret", "count": 2, "at": 12.5})
    assert g.to_dict()["commands"][-1] == {
        "type": "add",
        "player": 0,
        "collection": "secret",
        "count": 2,
        "at": 12.5,
    }
    assert "ZQX-MARKER" not in json.dumps(g.to_dict())
    assert "ZQX-MARKER" not in json.dumps(g.public_view())
    assert g.public_view()["players"][0]["secret_count"] == 2
    assert "secret" not in json.dumps(g.public_view()["players"][0]["open"])


def test_illegal_entries_name_the_rule() -> None:
    g = two()
    refused(g, add(1, "Bohrion", [1]), "turn")
    refused(g, add(0, "Bohrion", [0]), "S1")
    refused(g, add(0, "Bohrion", [10]), "S1")
    refused(g, add(0, "Bohrion", [2.0]), "S1")
    refused(g, add(0, "Bohrion", [1, 1]), "S1")  # one 1 per type
    refused(g, add(0, "Bohrion", [4, 4, 4]), "S1")  # two 4s per type
    refused(g, add(0, "Jelly Beans", [4]), "S1")
    refused(g, add(0, "Bohrion", []), "cards")
    refused(g, add(7, "Bohrion", [1]), "player")
    refused(g, secret(0, 1), "S2")  # the first collection is the open one
    refused(g, close(0), "first-round")
    refused(g, END, "one-addition")
    g.push(add(0, "Bohrion", [4, 4]))
    refused(g, add(0, "Bohrion", [5]), "one-addition")
    g.push(END)
    g.push(add(1, "Bohrion", [5, 5]))
    refused(g, {"type": "reveal", "player": 1, "bean": "Bohrion", "cards": [1]}, "S2")
    g.push(END)
    refused(g, add(0, "Bohrion", [4]), "S1")  # both 4s are in view already
    refused(g, add(0, "Dark Beans", [1]), "S2")  # mixed types in the open collection
    g.push(secret(0, 3))
    refused(g, close(0), "turn-order")
    g.push(END)
    g.push(add(1, "Bohrion", [6]))
    g.push(END)
    refused(g, add(0, "Dark Beans", [1]), "two-collections")  # a third collection
    refused(g, secret(0, 13), "S1")  # 16 cards of one type
    refused(g, {"type": "final", "player": 0, "bean": "Bohrion", "cards": [7]}, "S3")
    refused(g, {"type": "add", "player": 0, "collection": "hand", "bean": "Bohrion", "cards": [7]}, "command")
    refused(g, {"type": "fly"}, "command")
    refused(g, {"kind": "add"}, "command")


def test_bean_names_and_values_across_types() -> None:
    g = two()
    g.push(add(0, "dark beans", [1, 2, 3]))  # any case
    g.push(END)
    g.push(add(1, "Klingbohnen", [1, 2, 3]))  # same values, another type
    assert g.public_view()["players"][0]["open"]["bean"] == "Dark Beans"
    assert g.public_view()["players"][1]["open"]["bean"] == "Klingbohns"
    assert len(g.public_view()["beans"]) == 7


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"players": ["A"]},
        {"players": list("ABCDEFG")},
        {"players": ["A", "a"]},
        {"players": ["A", ""]},
        {"players": "AB"},
    ],
)
def test_bad_settings(settings: dict) -> None:
    with pytest.raises(RuleError):
        SpaceBeans.from_settings(settings)


def test_round_trip_exact_and_pop() -> None:
    g = two()
    allister_reaches_31(g)
    data = g.to_dict()
    text = json.dumps(data)
    h = SpaceBeans.from_dict(json.loads(text))
    assert json.dumps(h.to_dict()) == text
    assert h.public_view() == g.public_view()
    h.push(END)
    h.push({"type": "final", "player": 0, "bean": "Dark Beans", "cards": [2, 8]})
    assert h.finished
    assert h.pop()["type"] == "final" and not h.finished
    assert h.pop() == {"type": "end_turn"}
    assert json.dumps(h.to_dict()) == text
    while h.to_dict()["commands"]:
        h.pop()
    assert h.to_dict() == SpaceBeans.from_settings({"players": ["Allister", "Beatrix"]}).to_dict()
    with pytest.raises(RuleError):
        h.pop()
    for bad in [{}, {"settings": {"players": ["A", "B"]}, "state": {"players": []}, "commands": []}]:
        with pytest.raises(RuleError):
            SpaceBeans.from_dict(bad)
