"""The Space Beans controller: standings on the OLED, A cycles, C shows the leader."""

from __future__ import annotations

import copy

from hardware.display import TableDisplay
from tablepi.controllers import action_for
from tablepi.controllers.space_beans import SpaceBeansController
from tablepi.games.space_beans import SpaceBeans


class FakeClock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class FakeTable:
    def __init__(self, game: SpaceBeans) -> None:
        self.game = game
        self.submitted: list = []
        self.published: list = []

    def publish(self, type: str, data: dict | None = None) -> None:
        self.published.append((type, data))

    def submit(self, command: dict, source: str = "web") -> dict:
        self.game.push(command)
        self.submitted.append((copy.deepcopy(command), source))
        return self.public_state()

    def public_state(self) -> dict:
        return {
            "seq": 0,
            "game": {
                "id": 1,
                "kind": "space_beans",
                "finished": self.game.finished,
                "state": self.game.public_view(),
            },
        }


class RecordingDisplay(TableDisplay):
    def __init__(self) -> None:
        self.calls: list[tuple] = []
        super().__init__()
        self.calls.clear()

    def standings(self, rows, cursor=None, title="") -> None:
        self.calls.append(("standings", list(rows), cursor, title))
        super().standings(rows, cursor, title)

    def message(self, lines) -> None:
        self.calls.append(("message", list(lines)))
        super().message(lines)


def rig():
    game = SpaceBeans.from_settings({"players": ["Ann", "Ben", "Cal"]})
    for i, (bean, cards) in enumerate([("Bohrion", [1]), ("Bluebeans", [2, 5]), ("Moonbohnen", [3])]):
        game.push({"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards})
        game.push({"type": "end_turn"})
    # round 2: Ann closes out Bohrion {1} for a 1-point trophy, Ben closes out {2,5} for 2
    game.push({"type": "close_out", "player": 0})
    game.push({"type": "add", "player": 0, "collection": "open", "bean": "Dark Beans", "cards": [4]})
    game.push({"type": "end_turn"})
    game.push({"type": "close_out", "player": 1})
    game.push({"type": "add", "player": 1, "collection": "open", "bean": "Dark Beans", "cards": [9]})
    table = FakeTable(game)
    display = RecordingDisplay()
    clock = FakeClock()
    controller = SpaceBeansController(table, display, None, clock)
    return controller, table, display, clock


def press(controller: SpaceBeansController, button: str) -> None:
    action = action_for("space_beans", button, False)
    assert action is not None
    controller.on_button(action)


def test_standings_drawn_best_first_with_active_player_highlighted() -> None:
    c, table, display, _ = rig()
    c.on_state(table.public_state())
    assert display.screen == "standings"
    assert display.calls[-1] == ("standings", [("Ben", 2), ("Ann", 1), ("Cal", 0)], 0, "Ben's turn")
    assert c.highlighted == 1  # Ben is on turn


def test_a_passes_the_turn_for_real() -> None:
    c, table, display, _ = rig()
    c.on_state(table.public_state())
    press(c, "A")  # Ben has added: his turn ends
    assert table.submitted[-1] == ({"type": "end_turn"}, "button")
    assert table.game.public_view()["active"] == 2
    assert display.calls[-1] == ("standings", [("Ben", 2), ("Ann", 1), ("Cal", 0)], 2, "Cal's turn")
    assert c.highlighted == 2


def test_a_refused_shows_on_the_oled_and_the_phones() -> None:
    c, table, display, clock = rig()
    c.on_state(table.public_state())
    press(c, "A")  # Ben ends his turn
    press(c, "A")  # Cal has added nothing yet: refused
    assert display.screen == "error"
    assert table.published[-1][0] == "refused"
    assert "addition" in table.published[-1][1]["message"] or "adds" in table.published[-1][1]["message"]
    assert table.game.public_view()["active"] == 2  # nothing changed
    c.tick(clock() + 3.0)
    assert display.screen == "standings"


def test_highlight_follows_the_player_when_order_changes() -> None:
    c, table, display, _ = rig()
    c.on_state(table.public_state())
    for command in [
        {"type": "end_turn"},
        {"type": "add", "player": 2, "collection": "open", "bean": "Moonbohnen", "cards": [2]},
        {"type": "end_turn"},
        {"type": "add", "player": 0, "collection": "open", "bean": "Dark Beans", "cards": [4]},
        {"type": "end_turn"},
        {"type": "add", "player": 1, "collection": "open", "bean": "Dark Beans", "cards": [5]},
        {"type": "end_turn"},
        {"type": "close_out", "player": 2},  # Moonbohnen {3,2}: a 2-point trophy
    ]:
        table.submit(command)
    c.on_state(table.public_state())
    assert display.calls[-1][1] == [("Ben", 2), ("Cal", 2), ("Ann", 1)]
    assert display.calls[-1][2] == 1  # Cal is on turn, now on the second row
    assert table.submitted and all(source == "web" for _, source in table.submitted)


def test_c_shows_the_leader_then_the_standings_return() -> None:
    c, table, display, clock = rig()
    c.on_state(table.public_state())
    press(c, "C")
    assert display.screen == "message"
    assert display.calls[-1] == ("message", ["Leader", "Ben", "2 points"])
    c.on_state(table.public_state())  # a state change does not cut it short
    assert display.screen == "message"
    c.tick(clock() + 3.9)
    assert display.screen == "message"
    c.tick(clock() + 4.0)
    assert display.screen == "standings"


def test_joint_leaders_and_no_game() -> None:
    game = SpaceBeans.from_settings({"players": ["Ann", "Ben"]})
    table = FakeTable(game)
    display = RecordingDisplay()
    c = SpaceBeansController(table, display, None, FakeClock())
    press(c, "C")  # reads the state itself on the first press
    assert display.calls[-1] == ("message", ["Joint leaders", "Ann", "Ben", "0 points"])
    c.on_state({"seq": 1, "game": None})
    display.calls.clear()
    press(c, "A")
    press(c, "C")
    c.on_button("no_such_action")
    assert display.calls == [] and c.rows() == []
