"""Properties of Space Beans under any sequence of commands, legal or not:
a refused command changes nothing, an accepted one can be taken back, the
saved form round-trips, and the deck's limits (S1) always hold in view."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablepi.games.errors import RuleError
from tablepi.games.space_beans import SpaceBeans, copies_in_deck

BEAN = st.sampled_from(["Bohrion", "Dark Beans", "Bluebeans"])
CARDS = st.lists(st.integers(1, 9), min_size=1, max_size=4)


NINE = [1, 2, 3, 4, 4, 5, 5, 6, 9]


def _add(i: int, bean: str, cards: list[int]) -> dict:
    return {"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards}


def _secret(i: int, k: int) -> dict:
    return {"type": "add", "player": i, "collection": "secret", "count": k}


_END = {"type": "end_turn"}
# Four rounds in: Ann has 27 points and a Dark Beans {1,2,3} to close out for 30;
# Ben and Cal hold secret collections, so the end game has entries to wait for.
NEAR_THE_END = [
    _add(0, "Beanliens", NINE),
    _END,
    _add(1, "Bohrion", [1]),
    _END,
    _add(2, "Moonbohnen", [2]),
    _END,
    {"type": "close_out", "player": 0},
    _add(0, "Centauribohnen", NINE),
    _END,
    _secret(1, 2),
    _END,
    _add(2, "Moonbohnen", [3]),
    _END,
    {"type": "close_out", "player": 0},
    _add(0, "Bluebeans", NINE),
    _END,
    _add(1, "Bohrion", [2]),
    _END,
    _secret(2, 1),
    _END,
    {"type": "close_out", "player": 0},
    _add(0, "Dark Beans", [1, 2, 3]),
    _END,
    _add(1, "Bohrion", [3]),
    _END,
    _add(2, "Moonbohnen", [4]),
    _END,
]


def command_for(player: st.SearchStrategy[int]) -> st.SearchStrategy[dict]:
    return st.one_of(
        st.builds(
            lambda p, b, c: {"type": "add", "player": p, "collection": "open", "bean": b, "cards": c},
            player,
            BEAN,
            CARDS,
        ),
        st.builds(
            lambda p, k: {"type": "add", "player": p, "collection": "secret", "count": k},
            player,
            st.integers(1, 3),
        ),
        st.builds(lambda p: {"type": "close_out", "player": p}, player),
        st.builds(
            lambda p, b, c: {"type": "reveal", "player": p, "bean": b, "cards": c}, player, BEAN, CARDS
        ),
        st.builds(lambda p, b, c: {"type": "final", "player": p, "bean": b, "cards": c}, player, BEAN, CARDS),
        st.just({"type": "end_turn"}),
    )


def in_view(view: dict) -> Counter:
    seen: Counter = Counter()
    for p in view["players"]:
        for t in p["trophies"]:
            seen[(t["bean"], t["value"])] += 1
        collections = p["final"] if p["final"] is not None else [p["open"]]
        for c in collections:
            if c is not None:
                seen.update((c["bean"], v) for v in c["cards"])
    return seen


FOR_ANYONE = command_for(st.integers(0, 2))


def sized(n: int) -> st.SearchStrategy[list[int]]:
    # Distinct values: Hypothesis likes repeating its smallest value, which S1 refuses.
    return st.lists(st.integers(1, 9), min_size=n, max_size=n, unique=True)


def sensible(view: dict) -> st.SearchStrategy[dict]:
    """A command of the kind the turn calls for (its cards may still break S1)."""
    if view["end_triggered"]:
        i = (view["awaiting_final"] or [0])[0]
        n = view["players"][i]["secret_count"] or 1
        return st.builds(lambda b, c: {"type": "final", "player": i, "bean": b, "cards": c}, BEAN, sized(n))
    i = view["active"]
    me = view["players"][i]
    if me["reveal_pending"]:
        return st.builds(
            lambda b, c: {"type": "reveal", "player": i, "bean": b, "cards": c},
            BEAN,
            sized(me["reveal_pending"]),
        )
    if view["added_this_turn"]:
        return st.just({"type": "end_turn"})
    bean = st.just(me["open"]["bean"]) if me["open"] else BEAN
    return st.one_of(
        st.just({"type": "close_out", "player": i}),
        st.builds(
            lambda b, c: {"type": "add", "player": i, "collection": "open", "bean": b, "cards": c},
            bean,
            st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True),
        ),
        st.builds(
            lambda k: {"type": "add", "player": i, "collection": "secret", "count": k}, st.integers(1, 2)
        ),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_command_sequence_from_the_start(data: st.DataObject) -> None:
    check_sequence(SpaceBeans.from_settings({"players": ["Ann", "Ben", "Cal"]}), data, 50)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_command_sequence_near_the_end(data: st.DataObject) -> None:
    g = SpaceBeans.from_settings({"players": ["Ann", "Ben", "Cal"]})
    for command in NEAR_THE_END:
        g.push(command)
    assert g.public_view()["players"][0]["trophy_points"] == 27
    check_sequence(g, data, 25)


def check_sequence(g: SpaceBeans, data: st.DataObject, most: int) -> None:
    for _ in range(data.draw(st.integers(most // 4, most), label="length")):
        # Mostly what the turn calls for, so that games get somewhere; sometimes anything.
        # (Hypothesis leans towards 0, so 0 is the sensible choice.)
        if data.draw(st.integers(0, 3), label="anything") == 0:
            strategy = sensible(g.public_view())
        else:
            strategy = (
                FOR_ANYONE if data.draw(st.booleans(), label="really anything") else sensible(g.public_view())
            )
        command = data.draw(strategy, label="command")
        before = json.dumps(g.to_dict(), sort_keys=True)
        try:
            g.push(command)
        except RuleError as err:
            assert err.rule and err.message
            assert json.dumps(g.to_dict(), sort_keys=True) == before
            continue
        after = g.to_dict()
        assert SpaceBeans.from_dict(json.loads(json.dumps(after))).to_dict() == after
        view = g.public_view()
        json.dumps(view)
        for (bean, value), k in in_view(view).items():
            assert k <= copies_in_deck(value), (bean, value, k)
        for p in view["players"]:
            assert p["total"] >= p["trophy_points"] >= 0
        record = g.pop()
        assert json.dumps(g.to_dict(), sort_keys=True) == before
        g.push(record)
        assert g.to_dict() == after
