"""The venue with the real things: a real Mosquitto, two real `tablepi run
--simulate` tables and a real `tablepi venue` board, in headless Chromium.

A move on one table reaches the board's page; the broker killed mid-game and
started again loses no table's state (the board shows the latest); a table
started while the broker is down catches up when it appears; a table that
dies is shown offline (its last will).
"""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor

import pytest
from browser_support import TablePiProcess, launch, page_errors, require_browser, screenshot
from venue_support import Mosquitto, VenueBoardProcess, venue_config, wait_for

pytestmark = pytest.mark.browser

OUTER_SPACE = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


@pytest.fixture(scope="module")
def venue(tmp_path_factory):
    require_browser()
    folder = tmp_path_factory.mktemp("venue")
    broker = Mosquitto(folder / "broker").start()
    tables = {}
    board = None
    try:
        for name in ("t1", "t2"):
            config = venue_config(folder, broker.port, name, f"Table {name[1:]}")
            tables[name] = TablePiProcess(folder / name, args=("--config", str(config), "--no-camera"))
        board = VenueBoardProcess(folder / "board", broker.port)
        # All three start at once: each waits mostly for its interpreter to load.
        with ThreadPoolExecutor(3) as pool:
            for started in [pool.submit(p.start) for p in (*tables.values(), board)]:
                started.result()
        yield broker, tables, board, folder
    finally:
        for table in tables.values():
            table.stop()
        if board is not None:
            board.stop()
        broker.stop()


@pytest.fixture(scope="module")
def page(venue):
    from playwright.sync_api import sync_playwright

    _, _, board, _ = venue
    with sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        context.set_default_timeout(15000)
        page = context.new_page()
        page.errors = page_errors(page)
        page.goto(board.base + "/")
        yield page
        browser.close()


def card(page, table: str):
    return page.locator(f'section.table[data-table="{table}"]')


def test_a_move_on_a_table_reaches_the_board_page(venue, page):
    _, tables, board, _ = venue
    t1, t2 = tables["t1"], tables["t2"]
    page.wait_for_selector('section.table[data-table="t1"][data-status="online"]')
    page.wait_for_selector('section.table[data-table="t2"][data-status="online"]')
    assert "No game" in card(page, "t1").inner_text()
    t1.command({"type": "new_game", "kind": "outer_space", "settings": {"players": OUTER_SPACE}})
    t2.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Uma", "Vic"]}})
    page.wait_for_selector('section.table[data-table="t1"][data-seq="0"] .t-game')
    # A move: Cat leads the mission, and the card says so.
    seq = t1.command({"type": "leader", "player": "Cat"})["seq"]
    page.wait_for_selector(f'section.table[data-table="t1"][data-seq="{seq}"]')
    text = card(page, "t1").inner_text()
    assert "They Came From Outer Space" in text and "leader Cat" in text
    assert card(page, "t1").locator("li.leader").inner_text().strip().endswith("Cat")
    t2.command({"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [4]})
    t2.command({"type": "end_turn"})
    page.wait_for_selector('section.table[data-table="t2"][data-seq="2"]')
    assert "turn: Vic" in card(page, "t2").inner_text()
    # The mission timer counts down on the board.
    t1.command({"type": "timer_start"})
    page.wait_for_selector('section.table[data-table="t1"] .t-timer.running')
    first = card(page, "t1").locator(".t-timer").inner_text()
    page.wait_for_timeout(1300)
    assert card(page, "t1").locator(".t-timer").inner_text() != first
    screenshot(page, "venue-board-two-tables.png")
    health = t1.api("GET", "/healthz", pin=False)
    assert health["venue"]["state"] == "online" and health["venue"]["table"] == "t1"
    assert page.errors == []


def test_the_broker_goes_down_and_comes_back(venue, page):
    broker, tables, board, folder = venue
    t1 = tables["t1"]
    t1.command({"type": "new_game", "kind": "outer_space", "settings": {"players": OUTER_SPACE}})
    page.wait_for_selector('section.table[data-table="t1"][data-seq="0"]')
    broker.kill()
    page.wait_for_selector("#broker.offline")
    # Every card says the board lost the broker: not that its table went offline.
    page.wait_for_selector('section.table.unheard[data-table="t1"]')
    assert card(page, "t1").locator(".t-status").inner_text() == "the board lost the broker"
    assert card(page, "t2").locator(".t-status").inner_text() == "the board lost the broker"
    assert "offline" not in card(page, "t1").inner_text().lower()
    wait_for(lambda: t1.api("GET", "/healthz", pin=False)["venue"]["state"] == "offline", what="t1 offline")
    # The table plays on without its broker.
    t1.command({"type": "leader", "player": "Eve"})
    seq = t1.command({"type": "partner", "player": "Ann"})["seq"]
    # A table started while the broker is down.
    config = venue_config(folder, broker.port, "t3", "Table 3")
    t3 = TablePiProcess(folder / "t3", args=("--config", str(config), "--no-camera")).start()
    try:
        t3.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ida", "Jo"]}})
        assert t3.api("GET", "/healthz", pin=False)["venue"]["state"] != "online"
        broker.start()  # the same port, with none of the retained messages
        page.wait_for_selector("#broker.online", timeout=20000)
        page.wait_for_selector(f'section.table[data-table="t1"][data-seq="{seq}"]', timeout=20000)
        assert "leader Eve" in card(page, "t1").inner_text()
        assert card(page, "t1").locator(".t-status").inner_text() == ""
        page.wait_for_selector(
            'section.table[data-table="t3"][data-seq="0"][data-status="online"]', timeout=20000
        )
        assert "Space Beans" in card(page, "t3").inner_text()
        shown = board.tables()
        assert shown["t1"]["game"]["seq"] == seq and shown["t1"]["status"] == "online"
        # A table that dies is shown offline: the broker says its last will.
        t3.proc.send_signal(signal.SIGKILL)
        t3.proc.wait(10)
        page.wait_for_selector('section.table[data-table="t3"][data-status="offline"]')
        screenshot(page, "venue-board-after-outage.png")
    finally:
        t3.stop()
    assert page.errors == []


def test_a_seat_the_table_plays_has_a_table_badge(venue, page):
    _, tables, _, _ = venue
    t2 = tables["t2"]
    players = [{"name": "Ann", "board": "A"}, {"name": "Robo", "board": "B", "table": True}]
    seq = t2.command({"type": "new_game", "kind": "beam_me_up", "settings": {"players": players}})["seq"]
    page.wait_for_selector(f'section.table[data-table="t2"][data-seq="{seq}"] .t-players li')
    seats = card(page, "t2").locator(".t-players li")
    assert seats.nth(1).locator(".p-table").inner_text().lower() == "table"
    assert seats.nth(0).locator(".p-table").count() == 0
    assert page.errors == []
