"""`tablepi bmu` and `tablepi bench rules`."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from tablepi.bench import rules as bench_rules
from tablepi.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["bmu", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_B3_options_in_plain_words(capsys):
    code, out, err = run(capsys, "options", "1", "2", "3", "4", "4")
    assert code == 0 and err == ""
    assert out.splitlines() == ["small straight: +2 in straight; with the pair of 4s: +1 in column 4"]
    code, out, _ = run(capsys, "options", "2", "2", "2", "4", "6")
    assert out.splitlines() == ["triplet of 2s: +2 in column 2"]


def test_B4_a_roll_with_no_option_says_so(capsys):
    code, out, _ = run(capsys, "options", "1", "2", "3", "5", "6")
    assert code == 0 and "no option" in out


def test_B3_options_as_json(capsys):
    code, out, _ = run(capsys, "options", "--json", "2", "2", "2", "4", "4")
    assert code == 0
    assert json.loads(out) == [
        {"name": "full house", "parts": [{"column": "2", "squares": 2}, {"column": "4", "squares": 1}]}
    ]


def test_B3_all_252_sorted_rolls_as_json(capsys):
    code, out, _ = run(capsys, "options", "--all", "--json")
    table = json.loads(out)
    assert code == 0 and len(table) == 252
    assert table["1,2,3,4,4"] == [
        {
            "name": "small straight",
            "parts": [{"column": "straight", "squares": 2}, {"column": "4", "squares": 1}],
        }
    ]
    assert table["1,2,3,5,6"] == [] and table["6,6,6,6,6"][0]["parts"] == [{"column": "6", "squares": 4}]
    assert all(key == ",".join(sorted(key.split(","))) for key in table)


@pytest.mark.parametrize(
    ("dice", "message"),
    [
        (["1", "2", "3", "4", "5", "6"], "five dice"),
        (["1", "2", "3", "4", "7"], "1..6"),
        (["1", "2", "x", "4", "5"], "'x'"),
        ([], "five dice"),
    ],
)
def test_bad_dice_exit_2_with_a_message(capsys, dice, message):
    code, out, err = run(capsys, "options", *dice)
    assert code == 2 and out == "" and message in err


def test_the_console_script_exits_2_on_bad_dice():
    done = subprocess.run(
        [sys.executable, "-m", "tablepi", "bmu", "options", "1", "2", "3", "4", "7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "1..6" in done.stderr and done.stdout == ""


def test_B2_layout_command_checks_a_file(capsys, tmp_path):
    code, out, _ = run(capsys, "layout", "A")
    assert code == 0 and out.startswith("Board A") and "rockets" in out
    good = tmp_path / "mine.json"
    good.write_text(json.dumps({"rockets": [{"column": "straight", "row": 4}]}))
    code, out, _ = run(capsys, "layout", "--json", str(good))
    assert code == 0 and json.loads(out)["rockets"] == [{"column": "straight", "row": 4}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pink_stars": [{"column": "3", "row": 0}]}))
    code, _, err = run(capsys, "layout", str(bad))
    assert code == 2 and "row 0" in err


def test_bench_rules_prints_both_figures(capsys):
    assert bench_rules.run(argparse.Namespace(passes=1, games=6, seed=3)) == 0
    out = capsys.readouterr().out
    assert "rolls read:" in out and "/s" in out and "random games:" in out and "6 games" in out
