"""They Came From Outer Space rules: set-up (T1), timer (T2), coin (T3), missions (T4)."""

from __future__ import annotations

import json
import math
import random

import pytest

from tablepi.cli import main
from tablepi.games import KINDS, new_game
from tablepi.games.errors import RuleError
from tablepi.games.outer_space import MissionTimer, OuterSpace, flip_coin, setup, setup_checklist

NAMES = ["Ann", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal"]

# T1, straight from the ruling: n -> (team humans, panel aliens, panel humans, aliens/repairs to win)
T1 = {
    6: (4, 3, 8, 4),
    7: (5, 3, 7, 4),
    8: (6, 4, 6, 5),
    9: (7, 4, 5, 5),
    10: (8, 5, 4, 6),
    11: (9, 5, 3, 6),
    12: (10, 5, 2, 6),
}


# -- T1 ---------------------------------------------------------------------


@pytest.mark.parametrize("n", sorted(T1))
def test_setup_matches_ruling_t1(n: int) -> None:
    humans, panel_aliens, panel_humans, to_win = T1[n]
    s = setup(n)
    assert (s.team_humans, s.team_androids, s.team_aliens) == (humans, 1, 1)
    assert s.team_deck == n
    assert (s.panel_aliens, s.panel_humans) == (panel_aliens, panel_humans)
    assert (s.aliens_to_win, s.repairs_to_win) == (to_win, to_win)
    # every human card is used: in the deck or in the panel (12 in the box)
    assert s.team_humans + s.panel_humans == 12
    # the alien cards placed never exceed the six in the box
    assert s.team_aliens + s.panel_aliens <= 6


@pytest.mark.parametrize("n", sorted(T1))
def test_checklist_has_the_numbers(n: int) -> None:
    humans, panel_aliens, panel_humans, to_win = T1[n]
    text = "\n".join(setup_checklist(n))
    assert f"{panel_aliens} alien cards in its aliens slot" in text
    assert f"{humans} human, 1 android and 1 alien card" in text
    assert f"other {panel_humans} human cards" in text
    assert f"humans need {to_win} repairs" in text and f"aliens need {to_win} aliens" in text


@pytest.mark.parametrize("n", [0, 5, 13, -1, True, 6.0, "8"])
def test_setup_refuses_bad_counts(n: object) -> None:
    with pytest.raises(RuleError) as err:
        setup(n)  # type: ignore[arg-type]
    assert err.value.rule == "T1"


def test_cli_prints_checklist_and_refuses_bad_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outer-space", "setup", "8"]) == 0
    out, _ = capsys.readouterr()
    assert "4 alien cards" in out and "6 human, 1 android and 1 alien" in out
    assert "5 repairs" in out
    for bad in ["5", "13", "eight"]:
        assert main(["outer-space", "setup", bad]) == 2
        out, err = capsys.readouterr()
        assert "6 to 12" in err and out == ""


# -- T2 ---------------------------------------------------------------------


class FakeClock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_timer_start_pause_resume_reset() -> None:
    clock = FakeClock()
    t = MissionTimer(60)
    assert t.state(clock()) == "ready" and t.remaining(clock()) == 60
    t = t.start(clock())
    assert t.deadline() == clock() + 60
    clock.t += 20
    assert t.remaining(clock()) == pytest.approx(40)
    t = t.pause(clock())
    assert t.state(clock()) == "paused" and t.deadline() is None
    clock.t += 100  # paused time does not count
    assert t.remaining(clock()) == pytest.approx(40)
    t = t.resume(clock())
    assert t.deadline() == pytest.approx(clock() + 40)
    clock.t += 15
    assert t.remaining(clock()) == pytest.approx(25)
    t = t.reset()
    assert t.state(clock()) == "ready" and t.remaining(clock()) == 60


def test_timer_warning_and_end() -> None:
    start = 1000.0
    t = MissionTimer(60).start(start)
    assert not t.warning(start + 49.9)
    assert t.warning(start + 50.0) and t.warning(start + 59.9)
    assert not t.ended(start + 59.9)
    assert t.ended(start + 60) and t.state(start + 60) == "ended"
    assert not t.warning(start + 60)
    assert t.remaining(start + 500) == 0
    # an ended timer starts again from full
    again = t.start(start + 70)
    assert again.state(start + 70) == "running" and again.remaining(start + 70) == 60


def test_timer_refusals() -> None:
    t = MissionTimer(60)
    with pytest.raises(RuleError, match="not running"):
        t.pause(0)
    with pytest.raises(RuleError, match="paused"):
        t.resume(0)
    running = t.start(0)
    with pytest.raises(RuleError, match="already running") as err:
        running.start(1)
    assert err.value.rule == "T2"
    with pytest.raises(RuleError, match="run out"):
        running.pause(61)


def test_timer_commands_in_game_and_view() -> None:
    g = OuterSpace.from_settings({"players": NAMES, "timer_seconds": 30})
    view = g.public_view(now=5.0)["timer"]
    assert view == {
        "state": "ready",
        "duration": 30.0,
        "remaining": 30.0,
        "seconds_left": 30,
        "deadline": None,
        "warning": False,
        "ended": False,
    }
    g.push({"type": "timer_start", "at": 100.0})
    view = g.public_view(now=121.5)["timer"]
    assert view["state"] == "running" and view["deadline"] == 130.0
    assert view["remaining"] == 8.5 and view["seconds_left"] == 9 and view["warning"] is True
    g.push({"type": "timer_pause", "at": 110.0})
    view = g.public_view(now=200.0)["timer"]
    assert view["state"] == "paused" and view["remaining"] == 20.0 and view["deadline"] is None
    g.push({"type": "timer_start", "at": 300.0})  # start also resumes
    assert g.public_view(now=320.0)["timer"]["ended"] is True
    assert g.public_view(now=320.0)["timer"]["state"] == "ended"
    g.push({"type": "timer_reset", "at": 321.0})
    assert g.public_view(now=400.0)["timer"]["state"] == "ready"
    with pytest.raises(RuleError) as err:
        g.push({"type": "timer_pause", "at": 401.0})
    assert err.value.rule == "T2"
    with pytest.raises(RuleError) as err:
        g.push({"type": "timer_start"})  # not stamped
    assert err.value.rule == "T2"


@pytest.mark.parametrize("seconds", [0, 5, 601, "60", True, None])
def test_timer_setting_refused(seconds: object) -> None:
    with pytest.raises(RuleError) as err:
        OuterSpace.from_settings({"players": NAMES, "timer_seconds": seconds})
    assert err.value.rule == "T2"


# -- T3 ---------------------------------------------------------------------


def test_coin_is_fair_from_the_secure_source() -> None:
    flips = 10_000
    aliens = sum(flip_coin() == "alien" for _ in range(flips))
    # binomial(10000, 0.5): mean 5000, standard deviation 50; accept 4 sd either side
    sd = math.sqrt(flips * 0.25)
    assert abs(aliens - flips / 2) <= 4 * sd, f"{aliens} aliens in {flips} flips"


def test_coin_only_gives_the_two_sides_and_is_injectable() -> None:
    seen = {flip_coin() for _ in range(200)}
    assert seen == {"alien", "human"}
    a = [flip_coin(random.Random(7)) for _ in range(3)]
    b = [flip_coin(random.Random(7)) for _ in range(3)]
    assert a == b


# -- T4 ---------------------------------------------------------------------


def started(n: int = 8) -> OuterSpace:
    g = new_game("outer_space", {"players": NAMES[:n]})
    g.push({"type": "leader", "player": "Ann"})
    return g


def to_bridge(g: OuterSpace, partner: str) -> None:
    g.push({"type": "partner", "player": partner})
    for _ in range(3):
        g.push({"type": "next_phase"})
    assert g.public_view()["phase"] == "Bridge"


def refused(g: OuterSpace, command: dict, rule: str) -> RuleError:
    before = json.dumps(g.to_dict(), sort_keys=True)
    with pytest.raises(RuleError) as err:
        g.push(command)
    assert err.value.rule == rule, err.value
    assert json.dumps(g.to_dict(), sort_keys=True) == before, "a refused command changed the game"
    return err.value


def test_registered_and_settings_checked() -> None:
    assert KINDS["outer_space"].endswith(":OuterSpace")
    for bad in [{"players": NAMES[:5]}, {"players": NAMES + ["I", "J", "K", "L", "M"]}]:
        with pytest.raises(RuleError) as err:
            OuterSpace.from_settings(bad)
        assert err.value.rule == "T1"
    for bad in [{}, {"players": "Ann"}, {"players": NAMES[:5] + ["ann"]}, {"players": NAMES[:5] + [" "]}]:
        with pytest.raises(RuleError) as err:
            OuterSpace.from_settings(bad)
        assert err.value.rule == "settings"


def test_first_mission_phases() -> None:
    g = new_game("outer_space", {"players": NAMES})
    view = g.public_view()
    assert view["leader"] is None and view["phase"] == "Trek" and view["mission"] == 1
    assert view["leader_choices"] == NAMES and view["partner_choices"] == []
    refused(g, {"type": "partner", "player": "Ben"}, "T4")
    refused(g, {"type": "next_phase"}, "T4")
    g.push({"type": "leader", "player": "ann"})  # names match regardless of case
    assert g.public_view()["leader"] == "Ann"
    refused(g, {"type": "next_phase"}, "T4")  # no partner yet
    refused(g, {"type": "partner", "player": "Ann"}, "T4")  # not the leader themself
    refused(g, {"type": "partner", "player": "Zed"}, "player")
    g.push({"type": "partner", "player": "Ben"})
    g.push({"type": "partner", "player": "Cal"})  # changing one's mind in Trek is fine
    for phase in ["Paranoia", "Danger", "Bridge"]:
        g.push({"type": "next_phase"})
        assert g.public_view()["phase"] == phase
    refused(g, {"type": "partner", "player": "Dee"}, "T4")  # only in Trek
    refused(g, {"type": "next_phase"}, "T4")  # Bridge ends with a vote


def test_partner_not_from_previous_mission() -> None:
    g = started()
    to_bridge(g, "Ben")
    g.push({"type": "vote", "votes": {"Cal": 5, "Dee": 3}})
    view = g.public_view()
    assert view["leader"] == "Cal" and view["mission"] == 2 and view["phase"] == "Trek"
    assert view["previous"] == {"leader": "Ann", "partner": "Ben"}
    assert "Ann" not in view["partner_choices"] and "Ben" not in view["partner_choices"]
    assert "Cal" not in view["partner_choices"] and "Dee" in view["partner_choices"]
    err = refused(g, {"type": "partner", "player": "Ann"}, "T4")
    assert "previous mission" in err.message
    refused(g, {"type": "partner", "player": "Ben"}, "T4")
    g.push({"type": "partner", "player": "Dee"})
    assert g.public_view()["partner"] == "Dee"


def test_mission_members_cannot_lead_next() -> None:
    g = started()
    assert g.public_view()["leader_choices"] == []
    to_bridge(g, "Ben")
    assert g.public_view()["leader_choices"] == ["Cal", "Dee", "Eve", "Fay", "Gus", "Hal"]
    err = refused(g, {"type": "vote", "votes": {"Ann": 4, "Cal": 3}}, "T4")
    assert "cannot lead" in err.message
    refused(g, {"type": "vote", "votes": {"Ben": 4}}, "T4")
    refused(g, {"type": "leader", "player": "Ben"}, "T4")
    # zero votes for them are harmless
    g.push({"type": "vote", "votes": {"Ann": 0, "Cal": 3}})
    assert g.public_view()["leader"] == "Cal"


def test_tie_is_broken_by_current_leader() -> None:
    g = started()
    to_bridge(g, "Ben")
    err = refused(g, {"type": "vote", "votes": {"Cal": 3, "Dee": 3, "Eve": 2}}, "T4")
    assert "Ann" in err.message and "Cal" in err.message and "Dee" in err.message
    refused(g, {"type": "vote", "votes": {"Cal": 3, "Dee": 3, "Eve": 2}, "tie_break": "Eve"}, "T4")
    refused(g, {"type": "vote", "votes": {"Cal": 4, "Dee": 3}, "tie_break": "Dee"}, "T4")
    g.push({"type": "vote", "votes": {"Cal": 3, "Dee": 3, "Eve": 2}, "tie_break": "Dee"})
    view = g.public_view()
    assert view["leader"] == "Dee"
    assert view["history"] == [
        {
            "mission": 1,
            "leader": "Ann",
            "partner": "Ben",
            "votes": {"Cal": 3, "Dee": 3, "Eve": 2},
            "next_leader": "Dee",
        }
    ]


@pytest.mark.parametrize(
    "votes",
    [
        {},
        {"Cal": -1},
        {"Cal": 1.5},
        {"Cal": True},
        {"Zed": 1},
        {"Cal": 0},
        {"Cal": 9},
        {"Cal": 1, "cal": 1},
        [["Cal", 1]],
    ],
)
def test_malformed_votes_refused(votes: object) -> None:
    g = started()
    to_bridge(g, "Ben")
    with pytest.raises(RuleError) as err:
        g.push({"type": "vote", "votes": votes})
    assert err.value.rule in {"vote", "player"}


def test_vote_only_on_the_bridge() -> None:
    g = started()
    g.push({"type": "partner", "player": "Ben"})
    refused(g, {"type": "vote", "votes": {"Cal": 3}}, "T4")
    refused(g, {"type": "leader", "player": "Cal"}, "T4")


def test_new_mission_resets_timer() -> None:
    g = started()
    g.push({"type": "timer_start", "at": 10.0})
    to_bridge(g, "Ben")
    g.push({"type": "leader", "player": "Cal"})  # the vote's winner named directly
    assert g.public_view(now=30.0)["timer"]["state"] == "ready"
    assert g.public_view()["history"][0]["votes"] is None


def test_result_finishes_and_freezes() -> None:
    g = started()
    refused(g, {"type": "result", "winner": "android"}, "result")
    g.push({"type": "result", "winner": "aliens"})
    assert g.finished and g.public_view()["winner"] == "aliens"
    refused(g, {"type": "next_phase"}, "finished")
    g.pop()
    assert not g.finished


@pytest.mark.parametrize(
    "command",
    [
        None,
        "next_phase",
        {},
        {"type": 3},
        {"type": "fly"},
        {"type": "partner"},
        {"type": "partner", "player": 7},
        {"type": "next_phase", "extra": {1, 2}},
    ],
)
def test_malformed_commands_change_nothing(command: object) -> None:
    g = started()
    before = g.to_dict()
    with pytest.raises(RuleError):
        g.push(command)  # type: ignore[arg-type]
    assert g.to_dict() == before


def test_pop_round_trip_and_view_are_plain_json() -> None:
    g = started()
    g.push({"type": "timer_start", "at": 50.0})
    to_bridge(g, "Ben")
    g.push({"type": "vote", "votes": {"Cal": 3, "Dee": 3}, "tie_break": "Cal", "at": 99.5})
    data = g.to_dict()
    text = json.dumps(data)
    restored = OuterSpace.from_dict(json.loads(text))
    assert restored.to_dict() == data
    assert json.dumps(restored.to_dict()) == text
    assert restored.public_view(now=120.0) == g.public_view(now=120.0)
    json.dumps(g.public_view(now=1.0))
    # take back the vote, then everything back to the start
    assert restored.pop()["type"] == "vote"
    assert restored.public_view()["phase"] == "Bridge" and restored.public_view()["leader"] == "Ann"
    while restored.to_dict()["commands"]:
        restored.pop()
    assert restored.public_view()["leader"] is None
    with pytest.raises(RuleError):
        restored.pop()


def test_from_dict_refuses_garbage() -> None:
    for bad in [
        {},
        {"settings": {"players": NAMES}},
        {"settings": {"players": NAMES}, "state": {}, "commands": []},
    ]:
        with pytest.raises(RuleError):
            OuterSpace.from_dict(bad)


def test_a_named_player_is_found_as_names_are_kept() -> None:
    # Names are kept normalised (tablepi.games.names); a command names them as a phone typed them.
    g = new_game("outer_space", {"players": ["Zoë", *NAMES[1:6]]})
    g.push({"type": "leader", "player": "Zoe\u0308"})  # decomposed, as some keyboards send it
    assert g.public_view()["leader"] == "Zoë"
    g.push({"type": "partner", "player": " be\u200bn  "})  # a zero-width space and spaces
    assert g.public_view()["partner"] == "Ben"
    for nobody in ("\u200b", "", "Zed", "B en"):
        refused(g, {"type": "partner", "player": nobody}, "player")
    assert g.public_view()["partner"] == "Ben"
