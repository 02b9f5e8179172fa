"""Every OLED screen of a whole game of each kind, in English and in German, on
luma.core's dummy device: nothing drawn leaves the 128x64 panel (each text
measured with the font it is drawn in), and no German text is shortened where
the English one fits."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from hardware import screens
from hardware.display import TableDisplay
from tablepi.controllers.beam_me_up import BeamMeUpController
from tablepi.controllers.outer_space import OuterSpaceController
from tablepi.controllers.space_beans import SpaceBeansController
from tablepi.games.beam_me_up import autoplay
from tablepi.i18n import words
from tablepi.service import LOST_NOTICE
from tablepi.store import Store
from tablepi.table import Table

WIDTH, HEIGHT = 128, 64


class RecordingDisplay(TableDisplay):
    """A display that keeps what every screen drew."""

    def __init__(self, lang: str) -> None:
        self.seen: list[dict[str, Any]] = []
        super().__init__(translate=words(lang).text)

    def _show(self, name: str, painter, *args, **kwargs) -> None:
        super()._show(name, painter, *args, **kwargs)
        if kwargs.get("under"):
            return
        self.seen.append(
            {
                "screen": name,
                "boxes": self.drawn_boxes,
                "texts": self.drawn_texts,
                "shortened": self.shortened_texts,
            }
        )


class Clock:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


def _beam_me_up(tmp_path: Path, lang: str) -> RecordingDisplay:
    display = RecordingDisplay(lang)
    table = Table(Store(tmp_path / lang / "bmu"))
    controller = BeamMeUpController(table, display, None, Clock(), roll=lambda: None)
    players = [{"name": "Annegret", "board": "A"}, {"name": "Bartholomäus", "board": "B"}]
    controller.on_state(table.start_game("beam_me_up", {"players": players, "advantage": True}))
    unclear = [{"value": v, "box": [0, 0, 9, 9], "confidence": 0.3} for v in (1, 2, 3, 4, 5)]
    controller.on_reading(unclear)  # the set-up step first
    rng = random.Random(7)
    for step in range(400):
        state = table.public_state()
        s = state["game"]["state"]
        if s.get("winner"):
            break
        # The advice plays both seats (as it plays the table's own), people press the buttons.
        command = autoplay.next_command({**s, "players": [{**p, "table": True} for p in s["players"]]})
        if command is None:
            break
        if command["type"] == "roll":
            if step % 9 == 3:
                controller.on_reading(unclear[:4])  # too few dice
                controller.on_reading(unclear)  # unsure
            command = autoplay.throw(s, command, rng)
        table.submit(command, "web")
        controller.on_state(table.public_state())
        if s.get("phase") == "rolling" and s.get("dice"):
            controller.on_button("cycle")
            controller.on_button("show_options")
            controller.on_state(table.public_state())
    assert table.public_state()["game"]["state"].get("winner"), "the game must be played to its end"
    controller.on_button("undo")
    controller.on_state(table.public_state())
    controller.on_camera("lost")
    return display


def _outer_space(tmp_path: Path, lang: str) -> RecordingDisplay:
    display = RecordingDisplay(lang)
    clock = Clock()
    table = Table(Store(tmp_path / lang / "os"), clock=clock)
    controller = OuterSpaceController(table, display, None, clock, flip=lambda: "alien", coin_seconds=1)
    players = ["Annegret", "Bartholomäus", "Cal", "Dee", "Eve", "Fay"]
    controller.on_state(table.start_game("outer_space", {"players": players, "timer_seconds": 60}))
    controller.on_button("next_phase")  # refused: no leader yet
    table.submit({"type": "leader", "player": "Annegret"}, "web")
    controller.on_state(table.public_state())
    table.submit({"type": "partner", "player": "Cal"}, "web")
    controller.on_state(table.public_state())
    for action in ("timer_toggle", "timer_toggle", "timer_toggle"):
        controller.on_button(action)
        controller.on_state(table.public_state())
        clock.t += 30
        controller.tick(clock.t)
    clock.t += 61
    controller.tick(clock.t)
    controller.on_state(table.public_state())
    controller.on_button("coin")
    clock.t += 2
    controller.tick(clock.t)
    controller.on_button("timer_reset")
    controller.on_state(table.public_state())
    controller.on_button("next_phase")
    controller.on_state(table.public_state())
    table.submit({"type": "result", "winner": "humans"}, "web")
    controller.on_state(table.public_state())
    return display


def _space_beans(tmp_path: Path, lang: str) -> RecordingDisplay:
    display = RecordingDisplay(lang)
    table = Table(Store(tmp_path / lang / "sb"))
    controller = SpaceBeansController(table, display, None, Clock())
    players = ["Annegret", "Bartholomäus", "Cal"]
    controller.on_state(table.start_game("space_beans", {"players": players}))
    controller.on_button("end_turn")  # refused: nothing added this turn
    controller.on_button("show_leader")
    for player, bean in enumerate(("Bohrion", "Moonbohnen", "Bluebeans")):
        table.submit(
            {"type": "add", "player": player, "collection": "open", "bean": bean, "cards": [2, 4, 4]},
            "web",
        )
        controller.on_state(table.public_state())
        controller.on_button("end_turn")
        controller.on_state(table.public_state())
    controller.on_button("show_leader")
    return display


def _screens_alone(lang: str) -> RecordingDisplay:
    """The screens the table draws outside a game: start, coin, errors, notices."""
    display = RecordingDisplay(lang)
    for camera in ("camera: none, enter rolls", "camera: Pi camera", "camera: simulated", "camera: photos"):
        display.start("http://192.168.178.20:8080/", "123456", camera)
    display.start("starting...", "123456")
    display.coin("alien")
    display.coin("human")
    display.error(LOST_NOTICE)
    display.error("Games cannot be saved: see the web page")
    display.options([], 0, title="Wildcard column")
    display.standings([], None, title="Final scores")
    display.message(["Outer Space", "is on the web page", "PIN on the table"])
    return display


GAMES = {"beam_me_up": _beam_me_up, "outer_space": _outer_space, "space_beans": _space_beans}


def _record(tmp_path: Path, kind: str, lang: str) -> RecordingDisplay:
    return _screens_alone(lang) if kind == "alone" else GAMES[kind](tmp_path, lang)


@pytest.mark.parametrize("kind", ["beam_me_up", "outer_space", "space_beans", "alone"])
def test_every_screen_fits_the_panel_in_both_languages(tmp_path: Path, kind: str) -> None:
    said = {lang: _record(tmp_path, kind, lang) for lang in ("en", "de")}
    for lang, display in said.items():
        assert len(display.seen) >= 3, (kind, lang)
        for seen in display.seen:
            outside = [b for b in seen["boxes"] if b[0] < 0 or b[1] < 0 or b[2] > WIDTH or b[3] > HEIGHT]
            assert not outside, (lang, seen["screen"], seen["texts"], outside)
            painter = screens.Painter(_measure(), (WIDTH, HEIGHT))
            for text, size in seen["texts"]:
                assert painter.text_width(text, size) <= WIDTH, (lang, seen["screen"], text, size)
    # The German words fit where the English ones do: the same game draws the same screens in
    # both languages, and no German screen shortens more of its texts than the English one.
    english, german = said["en"].seen, said["de"].seen
    assert [s["screen"] for s in english] == [s["screen"] for s in german]
    cut = [
        (de["screen"], de["shortened"], en["shortened"])
        for en, de in zip(english, german, strict=True)
        if len(de["shortened"]) > len(en["shortened"])
    ]
    assert not cut, cut


def test_the_german_screens_are_in_german(tmp_path: Path) -> None:
    """A sample of what the OLED says in a German game: the rulebook's words."""
    display = _beam_me_up(tmp_path, "de")
    drawn = " ".join(text for seen in display.seen for text, _ in seen["texts"])
    for word in ("Würfel", "Wurf", "Spalte", "Möglichk"):
        assert word in drawn, word
    for word in ("Roll the dice", "pick an option", "unclear", "wins!"):
        assert word not in drawn, word
    alone = " ".join(text for seen in _screens_alone("de").seen for text, _ in seen["texts"])
    assert "MENSCH" in alone and "FEHLER" in alone and "Kamera: Pi-Kamera" in alone


def _measure():
    from PIL import Image, ImageDraw

    return ImageDraw.Draw(Image.new("1", (WIDTH, HEIGHT)))
