"""Resuming is exact: whatever mix of moves, takebacks and restarts, the table
after a restart shows what it showed before, which is what a clean replay of
the moves gives."""

from __future__ import annotations

import random
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablepi.games.beam_me_up.game import BeamMeUp
from tablepi.games.beam_me_up.randomplay import random_command
from tablepi.store import Store
from tablepi.table import Table

SETTINGS = {"players": [{"name": "Ann"}, {"name": "Ben"}, {"name": "Sam"}]}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    steps=st.lists(st.sampled_from(["move"] * 8 + ["undo", "restart"]), min_size=20, max_size=120),
    snapshot_every=st.integers(1, 12),
)
def test_restarts_and_takebacks_resume_exactly(seed: int, steps: list[str], snapshot_every: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as data_dir:
        table = Table(Store(data_dir), snapshot_every=snapshot_every)
        table.start_game("beam_me_up", SETTINGS)
        shadow = BeamMeUp.from_settings(SETTINGS)
        for step in steps:
            if step == "restart":
                before = table.public_state()
                table.store.close()
                table = Table(Store(data_dir), snapshot_every=snapshot_every)
                assert table.problem is None
                assert table.public_state() == before
            elif step == "undo":
                if not shadow.commands:
                    continue
                shadow.pop()
                table.submit({"type": "undo"}, "button")
            elif not shadow.finished:
                command = random_command(shadow, rng)
                shadow.push(command)
                table.submit(command, "web")
            assert table.public_state()["game"]["state"] == shadow.public_view()
        table.store.close()
