"""The fairness figures: checked against scipy, on simulated fair dice, and on a loaded die."""

from __future__ import annotations

import random

import pytest
from scipy import stats as scipy_stats

from tablepi.stats import (
    chi2_sf,
    chi_square,
    dice_needed,
    face_counts,
    fairness_words,
    upper_gamma,
)


def test_chi_square_matches_scipy_on_random_counts():
    rng = random.Random(1)
    for _ in range(500):
        counts = [rng.randint(0, rng.choice([5, 50, 500, 5000])) for _ in range(6)]
        if sum(counts) == 0:
            continue
        statistic, p = chi_square(counts)
        expected = scipy_stats.chisquare(counts)
        assert statistic == pytest.approx(expected.statistic, rel=1e-12, abs=1e-9)
        assert p == pytest.approx(expected.pvalue, abs=1e-9)


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 3.0, 7.5, 40.0])
def test_upper_gamma_matches_scipy(a):
    from scipy.special import gammaincc

    for x in [1e-6, 0.1, 0.9, a, a + 1, 2 * a + 3, 60.0, 400.0]:
        assert upper_gamma(a, x) == pytest.approx(gammaincc(a, x), abs=1e-12)


def test_fair_dice_give_p_values_spread_evenly():
    rng = random.Random(7)
    ps = [chi_square(face_counts(rng.randint(1, 6) for _ in range(600)))[1] for _ in range(2000)]
    # Kolmogorov-Smirnov against the uniform distribution: a test that fails
    # only once in a hundred runs for a right implementation.
    assert scipy_stats.kstest(ps, "uniform").pvalue > 0.01


def test_a_die_with_one_face_at_a_quarter_is_flagged_over_2000_dice():
    rng = random.Random(3)
    dice = rng.choices([1, 2, 3, 4, 5, 6], weights=[0.15, 0.15, 0.15, 0.15, 0.15, 0.25], k=2000)
    counts = face_counts(dice)
    assert chi_square(counts)[1] < 0.001
    words = fairness_words(counts)
    assert words.startswith("6 comes up 2") and "a fair die gives 16.7%" in words, words
    assert "sets of 2,000 dice" in words


def test_fair_counts_say_no_sign_and_how_many_dice_it_takes():
    words = fairness_words([9, 8, 8, 9, 8, 8])
    assert words.startswith("No sign of an unfair die after 50 dice.")
    assert f"about {dice_needed():,}" in words
    assert "too few" not in fairness_words([1000] * 6)
    assert fairness_words([0] * 6) == "No dice seen yet."


def test_dice_needed_gives_the_power_it_claims():
    needed = dice_needed(0.2)
    assert 1000 < needed < 3000
    assert dice_needed(0.25) < needed < dice_needed(0.19)
    # Simulated: a die with one face at 20% is called unfair about 80% of the time at that count.
    rng = random.Random(11)
    weights = [0.16] * 5 + [0.2]
    flagged = sum(
        chi_square(face_counts(rng.choices(range(1, 7), weights=weights, k=needed)))[1] < 0.01
        for _ in range(400)
    )
    assert 0.72 < flagged / 400 < 0.88


def test_only_faces_are_counted():
    assert face_counts([1, 6, 6]) == [1, 0, 0, 0, 0, 2]
    for bad in (0, 7, 2.0, "3", True):
        with pytest.raises(ValueError, match="1 to 6"):
            face_counts([bad])
    with pytest.raises(ValueError):
        dice_needed(0.1)
    assert chi2_sf(0.0, 5) == 1.0


def _table_with_rolls(tmp_path):
    from tablepi.store import Store
    from tablepi.table import Table

    table = Table(Store(tmp_path))
    table.start_game("beam_me_up", {"players": [{"name": "Ann"}, {"name": "Ben"}]}, source="cli")
    table.submit({"type": "advantage", "columns": ["3"]}, "button")
    table.submit({"type": "roll", "dice": [1, 1, 2, 3, 4]}, "camera")
    table.submit({"type": "roll", "dice": [1, 1, 6, 6, 6], "kept": [1, 1]}, "camera")
    table.submit({"type": "roll", "dice": [1, 1, 5, 5, 5], "kept": [1, 1]}, "camera")
    table.submit({"type": "undo"}, "web")  # taken back: never counted
    return table


def test_cli_counts_the_dice_thrown_in_the_store(tmp_path, capsys):
    import json

    from tablepi.cli import main

    table = _table_with_rolls(tmp_path)
    who = table.public_state()["game"]["state"]
    table.store.close()
    assert main(["stats", "--data-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # The first roll's five dice and the second's three fresh ones (the kept 1s were not thrown again).
    assert out["dice"] == 8 and out["counts"] == {"1": 2, "2": 1, "3": 1, "4": 1, "5": 0, "6": 3}
    assert out["words"].startswith("No sign of an unfair die after 8 dice.")
    roller = who["turn"]["name"]
    other = "Ben" if roller == "Ann" else "Ann"
    assert main(["stats", "--data-dir", str(tmp_path), "--player", roller, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == 8
    assert main(["stats", "--data-dir", str(tmp_path), "--player", other, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == 0
    assert main(["stats", "--data-dir", str(tmp_path), "--since", "2999-01-01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 0
    assert main(["stats", "--data-dir", str(tmp_path), "--game", "1"]) == 0
    text = capsys.readouterr().out
    assert "8 dice thrown in 1 game" in text
    # One first roll, and it scored (a pair of 1s): luck against the exact 96.9% of any first roll.
    assert f"{roller}: 1 of 1 first rolls scored (100%; any player 97%): within ordinary luck." in text


def test_cli_refuses_bad_filters_with_a_message(tmp_path, capsys):
    from tablepi.cli import main

    _table_with_rolls(tmp_path).store.close()
    assert main(["stats", "--data-dir", str(tmp_path), "--since", "last week"]) == 2
    assert "--since is a date" in capsys.readouterr().err
    assert main(["stats", "--data-dir", str(tmp_path), "--game", "9"]) == 2
    assert "no game of Beam Me Up numbered 9" in capsys.readouterr().err


def test_binomial_p_matches_scipy_and_luck_is_not_over_read():
    from tablepi.stats import binomial_p, luck_words

    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 80)
        hits, chance = rng.randint(0, n), rng.uniform(0.05, 0.95)
        assert binomial_p(hits, n, chance) == pytest.approx(
            scipy_stats.binomtest(hits, n, chance).pvalue, abs=1e-9
        )
    assert luck_words("Ann", 4, 5, 0.97).endswith("within ordinary luck.")  # one miss in five says little
    assert "unluckier than a fair game gives less than once in" in luck_words("Ben", 60, 100, 0.97)
    assert luck_words("Cat", 0, 0, 0.97) == "Cat: no rolls yet."


@pytest.mark.parametrize("hits, n", [(4_800, 5_000), (48_500, 50_000), (3, 3)])
def test_binomial_p_holds_for_a_table_with_many_rolls(hits, n):
    from tablepi.stats import binomial_p

    # A regular's first rolls run to thousands; the p-value must not overflow.
    chance = 7536 / 7776
    assert binomial_p(hits, n, chance) == pytest.approx(
        scipy_stats.binomtest(hits, n, chance).pvalue, abs=1e-9
    )
