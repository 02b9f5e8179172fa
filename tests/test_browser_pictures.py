"""The README's pictures, taken of a real `tablepi run --simulate` in headless
Chromium: the phone during a Beam Me Up turn, the TV in each game, /device,
/stats on a phone and the TV when a game is won. Every run keeps them in
artifacts/screenshots/readme/; `make screenshots` runs this module with
TABLEPI_PICTURES=docs/pictures so the README's copies are replaced by
pictures of the table as it is now."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from browser_support import (
    DESKTOP,
    PHONE,
    ROOT,
    SCREENSHOTS,
    TV,
    page_errors,
    sign_in,
)

pytestmark = pytest.mark.browser

PICTURES = SCREENSHOTS / "readme"


def page_for(browser, viewport: dict, phone: bool = False, locale: str = "en-US"):
    extra = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if phone else {}
    ctx = browser.new_context(viewport=viewport, locale=locale, **extra)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    return page


def keep(page, name: str, full_page: bool = False) -> Path:
    """Take one picture; with TABLEPI_PICTURES set, copy it there as well."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    path = PICTURES / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000, f"{name} looks empty"
    target = os.environ.get("TABLEPI_PICTURES")
    if target:
        folder = Path(target) if Path(target).is_absolute() else ROOT / target
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / name)
    return path


def settle(page) -> None:
    page.wait_for_selector("#link-status.online")
    page.wait_for_timeout(400)  # the last state change re-rendered


def test_pictures_of_a_beam_me_up_turn(table, browser):
    players = [{"name": n, "board": b} for n, b in zip(["Ann", "Ben", "Cat", "Dan"], "ABCD", strict=True)]
    table.command({"type": "new_game", "kind": "beam_me_up", "settings": {"players": players}})
    table.command({"type": "advantage", "columns": ["3"]})
    table.command({"type": "advantage", "columns": ["1", "straight"]})
    table.command({"type": "advantage", "columns": ["2", "4", "6"]})
    for command in [
        {"type": "roll", "dice": [4, 4, 4, 6, 6], "manual": True},
        {"type": "choose", "option": 0},
        {"type": "move", "part": 0},
        {"type": "move", "part": 1},
        {"type": "roll", "dice": [1, 2, 3, 4, 5], "manual": True},
        {"type": "choose", "option": 0},
        {"type": "move", "part": 0},
    ]:
        table.command(command)
        if table.state()["game"]["state"]["phase"] == "bonus":
            table.command({"type": "bonus", "column": "5"})
    table.command({"type": "roll", "dice": [3, 3, 5, 5, 2], "manual": True})  # Cat: options to choose from

    phone = page_for(browser, PHONE, phone=True)
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    settle(phone)
    assert phone.locator("#options .option").count() >= 1
    keep(phone, "phone-beam-me-up.png")

    tv = page_for(browser, TV)
    tv.goto(table.base + "/tv")
    settle(tv)
    keep(tv, "tv-beam-me-up.png")

    device = page_for(browser, DESKTOP)
    device.goto(table.base + "/device")
    sign_in(device, table.pin)
    device.wait_for_function("document.getElementById('oled').naturalWidth > 0")
    device.wait_for_function("document.getElementById('camera').naturalWidth > 0", timeout=15000)
    device.wait_for_timeout(400)
    keep(device, "device.png")
    for page in (phone, tv, device):
        assert page.errors == []
        page.context.close()


def test_pictures_in_german(table, browser):
    """The phone of a German player (its browser asks for German) and the TV of
    a table set to German on /setup, during a turn of Beam Me Up."""
    players = [{"name": n, "board": b} for n, b in zip(["Ann", "Ben", "Cat"], "ABC", strict=True)]
    table.command({"type": "new_game", "kind": "beam_me_up", "settings": {"players": players}})
    table.command({"type": "advantage", "columns": ["3"]})
    table.command({"type": "advantage", "columns": ["1", "straight"]})
    for command in [
        {"type": "roll", "dice": [4, 4, 4, 6, 6], "manual": True},
        {"type": "choose", "option": 0},
        {"type": "move", "part": 0},
        {"type": "move", "part": 1},
    ]:
        table.command(command)
    table.command({"type": "roll", "dice": [2, 3, 4, 5, 5], "manual": True})  # Ben: options to choose from
    table.api("POST", "/api/language", {"language": "de"})
    try:
        phone = page_for(browser, PHONE, phone=True, locale="de-DE")
        phone.goto(table.base + "/")
        sign_in(phone, table.pin)
        settle(phone)
        assert phone.locator("#options .option").count() >= 1
        assert "Möglichkeiten" in phone.inner_text("main")
        keep(phone, "phone-beam-me-up-de.png")

        tv = page_for(browser, TV)
        tv.goto(table.base + "/tv")
        settle(tv)
        assert "Wurf" in tv.inner_text("main")
        keep(tv, "tv-beam-me-up-de.png")
        for page in (phone, tv):
            assert page.errors == []
            page.context.close()
    finally:
        table.api("POST", "/api/language", {"language": "en"})


def test_pictures_of_the_tv_in_the_other_games(table, browser):
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
    table.command({"type": "new_game", "kind": "outer_space", "settings": {"players": names}})
    table.command({"type": "leader", "player": "Cat"})
    table.command({"type": "partner", "player": "Eve"})
    table.command({"type": "timer_start"})
    tv = page_for(browser, TV)
    tv.goto(table.base + "/tv")
    settle(tv)
    time.sleep(0.5)
    keep(tv, "tv-outer-space.png")

    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben", "Cat"]}})
    for command in [
        {"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2, 6]},
        {"type": "end_turn"},
        {"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [4, 7]},
        {"type": "end_turn"},
        {"type": "add", "player": 2, "collection": "open", "bean": "Beanliens", "cards": [1]},
        {"type": "end_turn"},
        {"type": "close_out", "player": 0},
        {"type": "add", "player": 0, "collection": "open", "bean": "Moonbohnen", "cards": [5, 5]},
        {"type": "end_turn"},
        {"type": "close_out", "player": 1},
        {"type": "add", "player": 1, "collection": "open", "bean": "Dark Beans", "cards": [3]},
        {"type": "end_turn"},
        {"type": "add", "player": 2, "collection": "secret", "count": 2},
    ]:
        table.command(command)
    settle(tv)
    keep(tv, "tv-space-beans.png")
    assert tv.errors == []
    tv.context.close()


def test_picture_of_the_venue_board_with_thirty_tables(browser, tmp_path):
    """Thirty tables (real tables and publishers, in this process) through a
    real Mosquitto to a real `tablepi venue`, on a 1920x1080 TV."""
    import tempfile

    from venue_support import Mosquitto, VenueBoardProcess, wait_for

    from tablepi.bench.venue import PICTURE_OFFLINE, fast_folder, picture_tables

    broker = Mosquitto(tmp_path / "broker").start()
    board = VenueBoardProcess(tmp_path / "board", broker.port).start()
    # The tables' stores in memory where it can be: a thousand commits on a disk take seconds.
    folder = tempfile.TemporaryDirectory(dir=fast_folder())
    tables = []
    try:
        tv = page_for(browser, TV)
        tv.goto(board.base + "/")
        tv.wait_for_selector("#link.online")
        tables = picture_tables(Path(folder.name), broker.port)
        wait_for(lambda: len(board.tables()) == 30, timeout=20, what="thirty tables on the board")
        tv.wait_for_function("document.querySelectorAll('section.table').length === 30")
        tv.wait_for_selector(".t-timer.warn")
        tv.wait_for_timeout(300)
        keep(tv, "venue-board.png")
        # Every card is on the screen: 30 tables fit the TV without scrolling.
        boxes = tv.eval_on_selector_all(
            "section.table", "els => els.map(e => e.getBoundingClientRect().bottom)"
        )
        assert max(boxes) <= TV["height"]
        assert tv.locator("section.table.offline").count() == len(PICTURE_OFFLINE)
        assert tv.errors == []
        tv.context.close()
    finally:
        for i, sim in enumerate(tables):
            if i not in PICTURE_OFFLINE:
                sim.close()
        board.stop()
        broker.stop()
        folder.cleanup()


def test_pictures_of_the_statistics(table, browser):
    """/stats on a phone after a few evenings of Beam Me Up, and the TV when a game is won."""
    import random

    from tablepi.games.beam_me_up.game import BeamMeUp
    from tablepi.games.beam_me_up.randomplay import random_command

    rng = random.Random(2026)
    for names in (
        ["Ann", "Ben", "Cat"],
        ["Ben", "Dan"],
        ["Cat", "Ann", "Dan", "Ben"],
        ["Ann", "Ben", "Cat", "Dan"],
    ):
        settings = {"players": [{"name": n, "board": "ABCD"[i]} for i, n in enumerate(names)]}
        table.command({"type": "new_game", "kind": "beam_me_up", "settings": settings})
        shadow = BeamMeUp.from_settings(settings)
        while not shadow.finished:
            command = random_command(shadow, rng)
            table.command(command)
            shadow.push(command)

    phone = page_for(browser, PHONE, phone=True)
    phone.goto(table.base + "/stats")
    phone.wait_for_selector("#face-chart rect.bar")
    assert phone.locator(".luck-table tbody tr").count() == 4
    keep(phone, "stats-phone.png")

    tv = page_for(browser, TV)
    tv.goto(table.base + "/tv")
    tv.wait_for_selector("#tv-dice")
    settle(tv)
    keep(tv, "tv-game-won.png")
    for page in (phone, tv):
        assert page.errors == []
        page.context.close()
