"""The Outer Space controller: buttons, countdown, sounds and the secret coin (T2, T3)."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buzzer import TableBuzzer
from hardware.display import TableDisplay
from tablepi.controllers import action_for
from tablepi.controllers.outer_space import OuterSpaceController
from tablepi.games.outer_space import OuterSpace

PLAYERS = ["Ann", "Ben", "Cal", "Dee", "Eve", "Fay"]
MARKER = "zq-coin-marker-7f3a"


class FakeClock:
    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class FakeTable:
    """The table's interface over a real game: stamps, pushes, records every call."""

    def __init__(self, game: OuterSpace, clock: FakeClock) -> None:
        self.game = game
        self.clock = clock
        self.submitted: list[tuple[dict, str]] = []
        self.published: list[tuple[str, Any]] = []
        self.states: list[dict] = []

    def submit(self, command: dict, source: str = "web") -> dict:
        self.submitted.append((copy.deepcopy(command), source))
        self.game.push(dict(command, at=self.clock()))
        return self.public_state()

    def public_state(self) -> dict:
        state = {
            "seq": len(self.submitted),
            "game": {
                "id": 1,
                "kind": "outer_space",
                "finished": self.game.finished,
                "state": self.game.public_view(self.clock()),
            },
        }
        self.states.append(copy.deepcopy(state))
        return state

    def publish(self, type: str, data: dict | None = None) -> None:
        self.published.append((type, data))


class Buzzer(TableBuzzer):
    """The real buzzer on gpiozero's mock pins, noting each sound it plays."""

    def __init__(self) -> None:
        super().__init__(18, pin_factory=MockFactory())
        self.sounds: list[str] = []
        self.when_played = self.sounds.append
        _BUZZERS.append(self)


_BUZZERS: list[TableBuzzer] = []


@pytest.fixture(autouse=True)
def _close_buzzers():
    yield
    while _BUZZERS:
        _BUZZERS.pop().close()


class RecordingDisplay(TableDisplay):
    """The real display on luma's dummy device, noting each screen asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        super().__init__()
        self.calls.clear()

    def countdown(self, seconds: float, label: str = "", under: bool = False) -> None:
        # Drawn under the coin (for the mirrors) is not on the OLED: recorded apart.
        self.calls.append(("under" if under else "countdown", seconds, label))
        super().countdown(seconds, label, under=under)

    def coin(self, result: str) -> None:
        self.calls.append(("coin", result))
        super().coin(result)

    def error(self, message: str) -> None:
        self.calls.append(("error", message))
        super().error(message)


class MarkedDisplay(RecordingDisplay):
    """Draws a real coin face but remembers the marker it was given."""

    def coin(self, result: str) -> None:
        self.calls.append(("coin", result))
        TableDisplay.coin(self, "alien")


def rig(flip=None, coin_seconds: float = 5, display: RecordingDisplay | None = None):
    clock = FakeClock()
    game = OuterSpace.from_settings({"players": PLAYERS, "timer_seconds": 60})
    game.push({"type": "leader", "player": "Ann"})
    table = FakeTable(game, clock)
    display = display or RecordingDisplay()
    buzzer = Buzzer()
    kwargs = {"coin_seconds": coin_seconds}
    if flip is not None:
        kwargs["flip"] = flip
    controller = OuterSpaceController(table, display, buzzer, clock, **kwargs)
    controller.on_state(table.public_state())
    return controller, table, display, buzzer, clock


def press(controller: OuterSpaceController, button: str, long: bool = False) -> None:
    action = action_for("outer_space", button, long)
    assert action is not None, f"{button} {'long' if long else 'short'} has no action"
    controller.on_button(action)


def run_for(controller: OuterSpaceController, clock: FakeClock, seconds: float, step: float = 0.1) -> None:
    end = clock.t + seconds
    while clock.t < end - 1e-9:
        clock.t = round(clock.t + step, 6)
        controller.tick(clock.t)


def test_a_starts_pauses_resumes_and_long_a_resets() -> None:
    c, table, display, _, clock = rig()
    assert display.screen == "countdown" and display.calls[-1] == ("countdown", 60, "Mission 1: Trek")
    press(c, "A")
    assert table.submitted[-1] == ({"type": "timer_start"}, "button")
    run_for(c, clock, 12)
    assert display.calls[-1][:2] == ("countdown", 48)
    press(c, "A")
    assert table.submitted[-1] == ({"type": "timer_pause"}, "button")
    run_for(c, clock, 30)
    assert c.seconds_left(clock()) == 48
    assert display.calls[-1] == ("countdown", 48, "Paused")
    press(c, "A")  # start again resumes
    assert table.submitted[-1] == ({"type": "timer_start"}, "button")
    run_for(c, clock, 3)
    assert c.seconds_left(clock()) == 45
    press(c, "A", long=True)
    assert table.submitted[-1] == ({"type": "timer_reset"}, "button")
    assert display.calls[-1] == ("countdown", 60, "Mission 1: Trek")
    assert table.game.public_view(clock())["timer"]["state"] == "ready"


def test_countdown_redrawn_only_when_the_second_changes() -> None:
    c, _, display, _, clock = rig()
    press(c, "A")
    display.calls.clear()
    run_for(c, clock, 5, step=0.1)  # fifty ticks, five new seconds
    assert [call[1] for call in display.calls] == [59, 58, 57, 56, 55]


def test_c_moves_the_phase_and_errors_are_shown_and_sounded() -> None:
    c, table, display, buzzer, clock = rig()
    press(c, "C")  # no partner yet: refused by T4
    assert display.screen == "error" and "partner" in display.calls[-1][1]
    assert buzzer.sounds == ["error"]
    assert table.game.public_view()["phase"] == "Trek"
    run_for(c, clock, 3.5)
    assert display.screen == "countdown"
    table.game.push({"type": "partner", "player": "Ben"})
    press(c, "C")
    assert table.submitted[-1] == ({"type": "next_phase"}, "button")
    assert table.game.public_view()["phase"] == "Paranoia"
    assert display.calls[-1] == ("countdown", 60, "Mission 1: Paranoia")


def test_coin_clears_after_coin_seconds() -> None:
    c, table, display, _, clock = rig(flip=lambda: "human", coin_seconds=5)
    press(c, "A")
    press(c, "B")
    assert display.screen == "coin" and display.secret
    assert display.calls[-1] == ("coin", "human")
    run_for(c, clock, 4.9)
    assert display.screen == "coin" and display.secret  # no countdown drawn over it
    run_for(c, clock, 0.2)
    assert display.screen == "countdown" and not display.secret
    assert display.calls[-1][:2] == ("countdown", 55)
    assert [cmd for cmd, _ in table.submitted] == [{"type": "timer_start"}]


def test_coin_clears_when_b_is_pressed_again() -> None:
    c, _, display, _, clock = rig(flip=lambda: "alien", coin_seconds=5)
    press(c, "B")
    run_for(c, clock, 1)
    assert display.screen == "coin"
    press(c, "B")
    assert display.screen == "countdown" and not display.secret
    press(c, "B")  # a fresh flip
    assert display.screen == "coin"
    assert [call[0] for call in display.calls].count("coin") == 2


def test_buttons_during_the_coin_leave_it_up() -> None:
    c, table, display, buzzer, clock = rig(flip=lambda: "alien")
    press(c, "B")
    press(c, "A")  # the timer starts, the coin stays
    press(c, "C")  # refused (no partner): a buzz, the coin stays
    assert display.screen == "coin" and buzzer.sounds == ["error"]
    run_for(c, clock, 5.1)
    assert display.screen == "countdown"


def test_sounds_tick_warning_end_once_each() -> None:
    c, _, display, buzzer, clock = rig()
    press(c, "A")
    run_for(c, clock, 49.5)
    assert buzzer.sounds == []
    run_for(c, clock, 20)
    assert buzzer.sounds == ["warning"] + ["tick"] * 9 + ["end"]
    assert display.calls[-1] == ("countdown", 0, "Time is up")
    run_for(c, clock, 5)
    assert buzzer.sounds.count("end") == 1


def test_sounds_with_irregular_ticks_and_a_pause() -> None:
    c, _, _, buzzer, clock = rig()
    press(c, "A")
    run_for(c, clock, 52, step=1.5)
    press(c, "A")  # pause with about 8 s left
    run_for(c, clock, 10, step=1.5)
    press(c, "A")
    run_for(c, clock, 20, step=1.5)
    assert buzzer.sounds.count("warning") == 1
    assert buzzer.sounds.count("end") == 1
    assert buzzer.sounds[-1] == "end"
    assert 1 <= buzzer.sounds.count("tick") <= 9


def test_restart_after_the_end_runs_again() -> None:
    c, table, _, buzzer, clock = rig()
    press(c, "A")
    run_for(c, clock, 61)
    press(c, "A")  # time is up: A starts a new run rather than pausing
    assert table.submitted[-1][0] == {"type": "timer_start"}
    run_for(c, clock, 61)
    assert buzzer.sounds.count("end") == 2 and buzzer.sounds.count("warning") == 2


def test_no_game_means_nothing_drawn_and_no_crash() -> None:
    c, table, display, _, clock = rig()
    c.on_state({"seq": 3, "game": None})
    display.calls.clear()
    c.tick(clock() + 1)
    assert display.calls == []
    assert c.seconds_left(clock()) is None


def test_coin_result_goes_nowhere_but_the_display(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    display = MarkedDisplay()
    c, table, display, buzzer, clock = rig(flip=lambda: MARKER, display=display)
    table.game.push({"type": "partner", "player": "Ben"})
    press(c, "A")
    for i in range(300):
        press(c, "B")
        if i % 2:
            run_for(c, clock, 0.3)
            press(c, "B")  # cleared by hand
        else:
            run_for(c, clock, 6)  # cleared by time
        if i % 50 == 0:
            press(c, "C")
    assert [call for call in display.calls if call[0] == "coin"] == [("coin", MARKER)] * 300
    # nothing else ever saw it
    assert MARKER not in json.dumps(table.submitted)
    assert MARKER not in json.dumps(table.published)
    assert MARKER not in json.dumps(table.states)
    assert MARKER not in json.dumps(table.game.to_dict())
    assert MARKER not in json.dumps(table.game.public_view(clock()))
    assert MARKER not in caplog.text
    assert all(MARKER not in str(v) for v in vars(c).values())
    # and flips left no trace in what the table was sent
    assert {cmd["type"] for cmd, _ in table.submitted} <= {"timer_start", "next_phase"}
    assert not any("coin" in json.dumps(cmd) for cmd, _ in table.submitted)
    # Only refusals of other buttons (C in the Bridge phase) go to the phones.
    assert {kind for kind, _ in table.published} <= {"refused"}


def test_real_coin_flips_reach_only_the_display(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    c, table, display, _, clock = rig()  # the default: the OS secure source
    before = json.dumps(table.game.to_dict())
    for _ in range(200):
        press(c, "B")
        press(c, "B")
    coins = [call[1] for call in display.calls if call[0] == "coin"]
    assert len(coins) == 200 and set(coins) == {"alien", "human"}
    assert json.dumps(table.game.to_dict()) == before
    assert table.submitted == [] and table.published == []
    assert "human" not in caplog.text.lower() and "alien" not in caplog.text.lower()


def test_the_result_shows_on_the_countdown_and_buttons_buzz() -> None:
    c, table, display, buzzer, clock = rig()
    table.game.push({"type": "result", "winner": "humans"})
    c.on_state(table.public_state())
    assert display.calls[-1] == ("countdown", 60, "The humans won")
    press(c, "A")  # the game is over: refused, shown, buzzed
    assert buzzer.sounds == ["error"] and display.screen == "error"


def test_under_the_coin_the_timer_goes_on_for_the_mirrors() -> None:
    c, table, display, _, clock = rig()
    press(c, "A")  # the timer runs
    run_for(c, clock, 1.0)
    press(c, "B")
    mirror_before = display.public_png()[1]
    display.calls.clear()
    run_for(c, clock, 2.0)
    assert display.screen == "coin" and display.secret
    assert [call[1] for call in display.calls if call[0] == "under"] == [58, 57]
    assert not [call for call in display.calls if call[0] == "countdown"]  # the OLED keeps the coin
    assert display.public_png()[1] != mirror_before
    run_for(c, clock, 3.1)  # the coin goes; the OLED shows what the mirrors showed
    assert display.screen == "countdown" and not display.secret
