"""Board geometry and layouts (B1, B2)."""

from __future__ import annotations

import itertools
import json

import pytest

from tablepi.games.beam_me_up import COLUMNS, BeamMeUp, LayoutError, default_layouts, load_layout
from tablepi.games.beam_me_up.board import layout_from_dict
from tablepi.games.errors import RuleError


def test_B1_seven_columns_rows_0_to_7_and_space_from_row_6():
    assert COLUMNS == ("1", "2", "3", "4", "5", "6", "straight")
    for layout in default_layouts().values():
        assert (layout.top_row, layout.space_row) == (7, 6)
    game = BeamMeUp.from_settings({"players": [{"name": "Ann"}, {"name": "Ben"}]})
    assert game.counters(0) == dict.fromkeys(COLUMNS, 0)


def test_B2_four_default_layouts_that_differ():
    layouts = default_layouts()
    assert sorted(layouts) == ["A", "B", "C", "D"]
    for layout in layouts.values():
        assert layout.rockets and layout.pink_stars and layout.blue_stars
    for a, b in itertools.combinations(layouts.values(), 2):
        for kind in ("rockets", "pink_stars", "blue_stars"):
            assert getattr(a, kind) != getattr(b, kind), (a.name, b.name, kind)


def test_B2_layout_dict_round_trip():
    for layout in default_layouts().values():
        assert layout_from_dict(layout.to_dict()) == layout
        assert json.loads(json.dumps(layout.to_dict())) == layout.to_dict()


def test_B2_special_at_names_each_special():
    layout = layout_from_dict(
        {
            "rockets": [{"column": "1", "row": 2}],
            "pink_stars": [{"column": "straight", "row": 4}],
            "blue_stars": [{"column": "6", "row": 3}],
        }
    )
    assert layout.special_at("1", 2) == "rocket"
    assert layout.special_at("straight", 4) == "pink star"
    assert layout.special_at("6", 3) == "blue star"
    assert layout.special_at("1", 3) is None
    assert layout.is_star("6", 3) and layout.is_star("straight", 4) and not layout.is_star("1", 2)


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        ({"rockets": [{"column": "9", "row": 3}]}, ["rocket", "'9'", "row 3", "unknown column"]),
        ({"pink_stars": [{"column": "2", "row": 8}]}, ["pink star", "'2'", "row 8", "out of range"]),
        ({"blue_stars": [{"column": "4", "row": 0}]}, ["blue star", "'4'", "row 0", "start row"]),
        ({"rockets": [{"column": "4", "row": -1}]}, ["row -1", "out of range"]),
        ({"rockets": [{"column": "4", "row": "2"}]}, ["row '2'", "whole number"]),
        (
            {"rockets": [{"column": "3", "row": 2}], "pink_stars": [{"column": "3", "row": 2}]},
            ["column 3, row 2", "already holds a rocket"],
        ),
        ({"rockets": [{"column": "3", "row": 2}, {"column": "3", "row": 2}]}, ["column 3, row 2", "twice"]),
        ({"rockets": [["3", 2]]}, ["rocket must be"]),
        ({"rockets": {"3": 2}}, ["rockets must be a list"]),
        ({"space_row": 9}, ["space_row"]),
        ({"top_row": 1}, ["top_row"]),
        ({"comets": []}, ["unknown layout field", "comets"]),
        ([], ["a layout is an object"]),
    ],
)
def test_B2_loader_refuses_a_bad_layout_and_names_the_square(layout, words):
    with pytest.raises(LayoutError) as info:
        load_layout(layout)
    assert info.value.rule == "B2"
    for word in words:
        assert word in info.value.message


def test_B2_players_load_their_own_layout_file(tmp_path):
    path = tmp_path / "kitchen-board.json"
    path.write_text(json.dumps({"rockets": [{"column": "5", "row": 5}], "space_row": 5}))
    layout = load_layout(path)
    assert layout.name == "kitchen-board"
    assert layout.rockets == {("5", 5)} and layout.space_row == 5 and layout.top_row == 7
    assert load_layout(str(path)) == layout


def test_B2_unreadable_layout_files_get_a_clear_error(tmp_path):
    with pytest.raises(LayoutError, match="cannot read layout file"):
        load_layout(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{ rockets")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(broken)


def test_B2_a_bad_custom_layout_in_the_settings_is_refused():
    settings = {
        "players": [{"name": "Ann", "layout": {"rockets": [{"column": "x", "row": 1}]}}, {"name": "Ben"}]
    }
    with pytest.raises(RuleError) as info:
        BeamMeUp.from_settings(settings)
    assert info.value.rule == "B2" and "unknown column" in info.value.message


def _two_players(layout_ann: dict, **extra) -> BeamMeUp:
    return BeamMeUp.from_settings(
        {"advantage": False, "players": [{"name": "Ann", "layout": layout_ann, **extra}, {"name": "Ben"}]}
    )


def test_B2_the_engine_takes_rockets_from_the_layout_not_from_the_code():
    # A pair of 6s lands on row 1 of column 6: a rocket there on one board, none on the other.
    with_rocket = _two_players({"rockets": [{"column": "6", "row": 1}]})
    without = _two_players({"rockets": [{"column": "5", "row": 1}]})
    for game in (with_rocket, without):
        game.push({"type": "roll", "dice": [6, 6, 1, 2, 4]})
        game.push({"type": "choose", "option": 0})
        game.push({"type": "move", "part": 0})
    assert with_rocket.phase == "bonus" and with_rocket.bonus_owed == 1
    assert without.phase == "rolling" and without.active == 1


def test_B1_space_line_is_set_by_the_layout():
    # Space from row 3: five counters on row 3 and none on row 0 already win with two players.
    counters = {"1": 3, "2": 3, "3": 3, "4": 3, "5": 2, "6": 1, "straight": 1}
    game = _two_players({"space_row": 3}, counters=counters)
    assert game.in_space(0) == 4
    game.push({"type": "roll", "dice": [5, 5, 1, 2, 4]})
    game.push({"type": "choose", "option": 0})
    game.push({"type": "move", "part": 0})
    assert game.finished and game.winner == 0
