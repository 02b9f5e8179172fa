"""Properties of Outer Space under any sequence of commands, legal or not: a
refused command changes nothing, an accepted one can be taken back, the saved
form round-trips, and ruling T4 holds after every command."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablepi.games.errors import RuleError
from tablepi.games.outer_space import OuterSpace

PLAYERS = ["Ann", "Ben", "Cal", "Dee", "Eve", "Fay"]
NAME = st.sampled_from(PLAYERS)

LEADER = st.builds(lambda p: {"type": "leader", "player": p}, NAME)
PARTNER = st.builds(lambda p: {"type": "partner", "player": p}, NAME)
NEXT = st.just({"type": "next_phase"})
VOTE = st.builds(
    lambda votes, tie: {"type": "vote", "votes": votes, **({"tie_break": tie} if tie else {})},
    st.dictionaries(NAME, st.integers(0, 3), min_size=1, max_size=3),
    st.none() | NAME,
)
TIMER = st.sampled_from([{"type": "timer_start"}, {"type": "timer_pause"}, {"type": "timer_reset"}])
# Weighted by repetition so that games get through several missions.
COMMAND = st.one_of(LEADER, PARTNER, PARTNER, NEXT, NEXT, NEXT, NEXT, VOTE, VOTE, VOTE, TIMER, TIMER)
RESULT = st.builds(lambda w: {"type": "result", "winner": w}, st.sampled_from(["humans", "aliens"]))


def sensible(view: dict) -> st.SearchStrategy[dict]:
    """A command of the kind the phase calls for (the names may still be wrong)."""
    if view["leader"] is None:
        return LEADER
    if view["phase"] == "Trek":
        return PARTNER if view["partner"] is None else NEXT
    return VOTE if view["phase"] == "Bridge" else NEXT


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_command_sequence(data: st.DataObject) -> None:
    g = OuterSpace.from_settings({"players": PLAYERS, "timer_seconds": 20})
    now = 1000.0
    for _ in range(data.draw(st.integers(0, 45), label="length")):
        now += data.draw(st.floats(0, 30), label="wait")
        # Hypothesis leans towards small numbers: those pick what the phase calls for.
        pick = data.draw(st.integers(0, 39), label="pick")
        if pick < 30:
            strategy = sensible(g.public_view(now))
        elif pick < 39:
            strategy = COMMAND
        else:
            strategy = RESULT
        command = dict(data.draw(strategy, label="command"), at=now)
        before = json.dumps(g.to_dict(), sort_keys=True)
        try:
            g.push(command)
        except RuleError as err:
            assert err.rule and err.message
            assert json.dumps(g.to_dict(), sort_keys=True) == before
            continue
        after = g.to_dict()
        assert OuterSpace.from_dict(json.loads(json.dumps(after))).to_dict() == after
        view = g.public_view(now)
        json.dumps(view)
        previous = view["previous"] or {}
        if view["partner"] is not None:
            assert view["partner"] != view["leader"]
            assert view["partner"] not in previous.values()
        if previous:
            assert view["leader"] not in previous.values()
        assert 0 <= view["timer"]["remaining"] <= 20
        assert view["mission"] == len(view["history"]) + 1
        assert g.pop() == command
        assert json.dumps(g.to_dict(), sort_keys=True) == before
        g.push(command)
        assert g.to_dict() == after
