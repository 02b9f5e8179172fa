"""10,000 complete games of random legal play (2, 3 and 4 players): every
game ends, and its winner meets B12 at the moment the game ends."""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from tablepi.games.beam_me_up.randomplay import play_many

pytestmark = pytest.mark.slow

GAMES = 10_000
BATCH = 500


def test_B12_ten_thousand_random_games_end_with_a_winner():
    batches = [(seed, BATCH) for seed in range(GAMES // BATCH)]
    workers = min(4, max(2, os.cpu_count() or 1))
    # Each batch is a seeded, independent run; processes only share out the work.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = [r for batch in pool.map(play_many, *zip(*batches, strict=True)) for r in batch]

    assert len(results) == GAMES
    assert Counter(r["players"] for r in results) == {2: 3340, 3: 3340, 4: 3320}
    for result in results:
        need = 5 if result["players"] == 2 else 4
        rows = result["counters"].values()
        assert sum(row >= result["space_row"] for row in rows) >= need, result
        assert 0 not in rows, result
        # The win is found on the move that makes it: the winner is the player moving.
        assert result["winner"] == result["active"] and result["last"] in ("move", "bonus"), result
    assert len({r["winner"] for r in results}) == 4, "every seat wins some games"
