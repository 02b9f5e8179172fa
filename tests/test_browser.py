"""The pages in a real headless Chromium against a real `tablepi run --simulate`.

One table process serves the whole module; each test starts the game it
needs. Screenshots of the TV, a phone and the device panel are kept in
artifacts/screenshots/.
"""

from __future__ import annotations

import re
import time

import pytest
from browser_support import TablePiProcess, launch, page_errors, require_browser, screenshot, sign_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    require_browser()
    proc = TablePiProcess(tmp_path_factory.mktemp("table")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def browser(table):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def tv(browser):
    ctx = browser.new_context(viewport=TV)
    page = ctx.new_page()
    page.errors = page_errors(page)
    yield page
    ctx.close()


def new_phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.errors = page_errors(page)
    return page


@pytest.fixture
def phone(browser):
    page = new_phone(browser)
    yield page
    page.context.close()


def live_seq(page) -> int:
    return int(page.get_attribute("#live .state", "data-seq"))


def bmu_game(table, names=("Ann", "Ben")) -> None:
    boards = "ABCD"
    table.command({"type": "new_game", "kind": "beam_me_up",
                   "settings": {"players": [{"name": n, "board": boards[i]} for i, n in enumerate(names)]}})
    table.command({"type": "advantage", "columns": ["3"]})


def test_phone_move_shows_on_tv_within_a_second(table, tv, phone):
    bmu_game(table)
    tv.goto(table.base + "/tv")
    phone.goto(table.base + "/")
    tv.wait_for_selector("#link-status.online")
    phone.wait_for_selector("#link-status.online")
    assert tv.locator("#roll-dice .die").count() == 0
    assert tv.locator(".board-card").count() == 2

    # Moves need the PIN: the actions are hidden until it is typed in.
    assert not phone.locator("#bmu-actions").is_visible()
    sign_in(phone, table.pin)
    assert phone.locator("#bmu-actions").is_visible()

    # Enter a roll by hand: tap each die's value (the composer moves on by itself).
    phone.click("[data-open-roll]")
    for value in (2, 2, 2, 4, 4):
        phone.click(f"#rc-pad [data-pick='{value}']")
    seq = live_seq(tv)
    phone.click("#rc-send")
    t0 = time.monotonic()
    tv.wait_for_function(f"document.querySelector('#live .state').dataset.seq > {seq}", timeout=1000)
    lag = time.monotonic() - t0
    print(f"phone roll -> TV updated in {lag * 1000:.0f} ms")
    dice = tv.locator("#roll-dice .die").evaluate_all("els => els.map(e => e.dataset.value)")
    values = [int(v) for v in dice]
    assert values == [2, 2, 2, 4, 4]
    assert tv.locator("#roll-dice .die.manual").count() == 5  # marked as entered by hand
    assert "full house" in tv.inner_text("#live")

    # Choose the option and move one part; the TV's board follows.
    phone.click("#options button")
    phone.wait_for_selector("#parts form")
    phone.click("#parts form >> nth=0 >> button")
    square = ".board-card[data-player='Ann'] .sq[data-col='2'][data-row='2'][data-counter]"
    tv.wait_for_selector(square, timeout=1000)
    state = table.state()["game"]["state"]
    assert state["players"][0]["counters"]["2"] == 2

    # An illegal move is refused in plain words with its rule, and changes nothing.
    before = table.state()["seq"]
    phone.evaluate("TablePi.command({type: 'bonus', column: '1'}).catch(() => null)")
    phone.wait_for_selector("#action-error:not(.hidden)")
    assert "rule B8" in phone.inner_text("#action-error")
    assert table.state()["seq"] == before

    screenshot(tv, "tv-beam-me-up.png")
    screenshot(phone, "phone-beam-me-up.png", full_page=True)
    assert tv.errors == [] and phone.errors == []


def test_device_button_changes_the_screen(table, browser):
    table.command({"type": "new_game", "kind": "outer_space",
                   "settings": {"players": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]}})
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = page_errors(page)
    page.goto(table.base + "/device")
    page.wait_for_function("document.getElementById('oled-version').textContent !== '–'")
    version = page.inner_text("#oled-version")
    before = page.locator("#oled").screenshot()
    page.click("[data-button='A']")  # A: start the mission timer
    page.wait_for_function(f"document.getElementById('oled-version').textContent !== '{version}'",
                           timeout=3000)
    page.wait_for_timeout(100)
    after = page.locator("#oled").screenshot()
    assert after != before
    timer = table.state()["game"]["state"]["timer"]
    assert timer["state"] == "running"  # the same path as the real button
    natural = page.evaluate("document.getElementById('oled').naturalWidth")
    assert natural > 0
    assert page.evaluate("getComputedStyle(document.getElementById('oled')).imageRendering") == "pixelated"
    screenshot(page, "device.png")
    assert errors == []
    ctx.close()


def test_outer_space_timer_on_tv(table, tv, phone):
    # The game is started from the set-up page, as players would.
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.check("input[name=kind][value=outer_space]")
    while phone.locator("#players li").count() < 6:
        phone.click("#add-player")
    for i, name in enumerate(["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]):
        phone.fill(f"#players input[data-i='{i}']", name)
    phone.fill("#timer-seconds", "45")
    phone.click("#start-game")
    phone.wait_for_url(table.base + "/")
    game = table.state()["game"]
    assert game["kind"] == "outer_space" and game["state"]["timer"]["duration"] == 45

    tv.goto(table.base + "/tv")
    tv.wait_for_selector("#link-status.online")
    assert tv.inner_text("#mission-timer") == "45"
    phone.select_option("#os-actions select[name=player]", "Cat")
    phone.click("#os-actions form.cmd-form button[type=submit]")
    tv.wait_for_function("document.getElementById('os-leader').textContent === 'Cat'", timeout=1000)
    phone.click("#os-actions [data-command*='timer_start']")
    tv.wait_for_selector("#mission-timer[data-running='1']", timeout=1000)
    first = int(tv.inner_text("#mission-timer"))
    tv.wait_for_timeout(1300)
    second = int(tv.inner_text("#mission-timer"))
    assert 40 <= second < first <= 45
    font_px = tv.evaluate("parseFloat(getComputedStyle(document.getElementById('mission-timer')).fontSize)")
    assert font_px >= 200  # readable across the room
    screenshot(tv, "tv-outer-space.png")
    screenshot(phone, "phone-outer-space.png", full_page=True)
    html = tv.content() + phone.content()
    assert not re.search(r"\bcoin\b.*\b(alien|human)\b side", html)
    assert tv.errors == [] and phone.errors == []
