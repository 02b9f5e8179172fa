"""The pages in a real headless Chromium against a real `tablepi run --simulate`.

One table process serves the whole module; each test starts the game it
needs. Screenshots of the TV, a phone and the device panel are kept in
artifacts/screenshots/.
"""

from __future__ import annotations

import json
import re
import time

import cv2
import numpy as np
import pytest
from browser_support import (
    PHONE,
    TV,
    TablePiProcess,
    page_errors,
    screenshot,
    sign_in,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def tv(browser):
    ctx = browser.new_context(viewport=TV)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    yield page
    ctx.close()


def new_phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(5000)
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
    table.command(
        {
            "type": "new_game",
            "kind": "beam_me_up",
            "settings": {"players": [{"name": n, "board": boards[i]} for i, n in enumerate(names)]},
        }
    )
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

    # Set the three 2s aside and roll the other two again, by hand.
    for i in range(3):
        phone.click(f"#roll-dice [data-die-index='{i}']")
    assert phone.locator("#roll-dice [aria-pressed='true']").count() == 3
    screenshot(phone, "phone-set-aside.png")
    phone.click("[data-open-roll]")
    assert phone.locator("#rc-slots .die.kept").count() == 3
    for value in (6, 6):
        phone.click(f"#rc-pad [data-pick='{value}']")
    seq = live_seq(tv)
    phone.click("#rc-send")
    tv.wait_for_function(f"document.querySelector('#live .state').dataset.seq > {seq}", timeout=1000)
    state = table.state()["game"]["state"]
    assert state["dice"] == [2, 2, 2, 6, 6] and state["kept"] == [2, 2, 2] and state["roll"] == 2
    assert tv.locator("#roll-dice .die.kept").count() == 3
    assert "roll 2 of 3" in tv.inner_text(".tv-status")

    # Choose the option and move one part; the TV's board follows.
    phone.click("#options button")
    phone.wait_for_selector("#parts form")
    phone.click("#parts form >> nth=0 >> button")
    square = ".board-card[data-player='Ann'] .sq[data-col='2'][data-row='2'][data-counter]"
    tv.wait_for_selector(square, timeout=1000)
    state = table.state()["game"]["state"]
    assert state["players"][0]["counters"]["2"] == 2

    # An illegal move is refused in plain words (the rule's code stays in the
    # API's JSON), and changes nothing.
    before = table.state()["seq"]
    phone.evaluate("TablePi.command({type: 'bonus', column: '1'}).catch(() => null)")
    phone.wait_for_selector("#action-error:not(.hidden)")
    assert phone.inner_text("#action-error") == "No bonus square is owed."
    assert table.state()["seq"] == before

    # The TV's QR code opens the phone page on the address the TV itself used.
    png = tv.locator("#qr svg").screenshot()
    decoded, *_ = cv2.QRCodeDetector().detectAndDecode(cv2.imdecode(np.frombuffer(png, np.uint8), 1))
    assert decoded == table.base + "/"

    screenshot(tv, "tv-beam-me-up.png")
    screenshot(phone, "phone-beam-me-up.png", full_page=True)
    assert tv.errors == [] and phone.errors == []


def test_the_same_state_again_leaves_the_page_alone(table, tv):
    # A redraw of an unchanged state would replace a button under a finger that
    # is tapping it (the tap is lost); only a new state redraws the page, and
    # that holds from the first fetch after a load (the stream's opening state).
    bmu_game(table)
    tv.add_init_script(
        """document.addEventListener('DOMContentLoaded', () => { window.redraws = 0;
        new MutationObserver(() => { window.redraws++; })
        .observe(document.getElementById('live'), {childList: true}); });"""
    )
    with tv.expect_response(lambda r: "/part/" in r.url):
        tv.goto(table.base + "/tv")
    tv.wait_for_selector("#link-status.online")
    tv.wait_for_timeout(200)
    assert tv.evaluate("window.redraws") == 0
    with tv.expect_response(lambda r: "/part/" in r.url):
        tv.evaluate("TablePi.refresh()")  # the state the page shows already
    tv.wait_for_timeout(100)
    assert tv.evaluate("window.redraws") == 0
    seq = live_seq(tv)
    table.command({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True})
    tv.wait_for_function(f"document.querySelector('#live .state').dataset.seq > {seq}")
    # Fetches run one at a time: the first was drawn (or left) before the new state.
    assert tv.evaluate("window.redraws") == 1
    assert tv.errors == []


def test_device_button_changes_the_screen(table, browser):
    table.command(
        {
            "type": "new_game",
            "kind": "outer_space",
            "settings": {"players": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]},
        }
    )
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = page_errors(page)
    page.goto(table.base + "/device")
    sign_in(page, table.pin)  # the buttons and the screen are for players only
    page.wait_for_function("document.getElementById('oled').hasAttribute('data-version')")
    version = page.get_attribute("#oled", "data-version")
    before = page.locator("#oled").screenshot()
    page.click("[data-button='A']")  # A: start the mission timer
    page.wait_for_function(
        f"document.getElementById('oled').getAttribute('data-version') !== '{version}'", timeout=3000
    )
    page.wait_for_timeout(100)
    after = page.locator("#oled").screenshot()
    assert after != before
    timer = table.state()["game"]["state"]["timer"]
    assert timer["state"] == "running"  # the same path as the real button

    def timer_becomes(state: str) -> None:
        deadline = time.monotonic() + 3
        while table.state()["game"]["state"]["timer"]["state"] != state:
            assert time.monotonic() < deadline, f"the timer did not become {state}"
            time.sleep(0.05)

    # A long press is A's other action: the timer resets. Held down as long
    # as the table's buttons need (1.5 s, as the page says)...
    assert "1.5 s" in page.inner_text("#hold-hint")
    page.hover("[data-button='A']")
    page.mouse.down()
    page.wait_for_timeout(1600)
    page.mouse.up()
    timer_becomes("ready")
    page.wait_for_timeout(300)  # the buttons are debounced, as real switches need
    page.click("[data-button='A']")
    timer_becomes("running")
    # ... or clicked with "hold" ticked.
    page.check("#hold")
    page.click("[data-button='A']")
    timer_becomes("ready")
    natural = page.evaluate("document.getElementById('oled').naturalWidth")
    assert natural > 0
    assert page.evaluate("getComputedStyle(document.getElementById('oled')).imageRendering") == "pixelated"
    # The screen's black frame holds the image, at any width of the page.
    for width in (1280, 1920):
        page.set_viewport_size({"width": width, "height": 900})
        frame = page.locator(".oled-frame").bounding_box()
        image = page.locator("#oled").bounding_box()
        assert frame["width"] - image["width"] <= 30, (width, frame, image)
    page.set_viewport_size({"width": 1280, "height": 900})
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
    # The game in progress is set aside only when the player says so.
    phone.on("dialog", lambda dialog: dialog.accept())
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
    # A double tap on "Undo last" takes back one command, not two.
    phone.dblclick("#os-actions [data-command*='undo']")
    tv.wait_for_selector("#mission-timer[data-running='0']", timeout=1000)
    phone.wait_for_timeout(300)
    state = table.state()["game"]["state"]
    assert state["timer"]["state"] == "ready" and state["leader"] == "Cat"
    html = tv.content() + phone.content()
    assert not re.search(r"\bcoin\b.*\b(alien|human)\b side", html)
    assert tv.errors == [] and phone.errors == []


def wait_seq(page, seq: int) -> None:
    page.wait_for_function(f"document.querySelector('#live .state').dataset.seq >= {seq}", timeout=5000)


def beans_act(table, phones, action) -> None:
    """Do ``action`` on a phone; wait until every phone shows the new state."""
    seq = table.state()["seq"]
    action()
    # Generous: a phone's request on a busy machine (the suite's two workers, one answer held
    # back on purpose) can take seconds; a command the table refuses never arrives at all.
    deadline = time.monotonic() + 10
    while table.state()["seq"] == seq:
        assert time.monotonic() < deadline, "the table did not take the command"
        time.sleep(0.02)
    for page in phones:
        wait_seq(page, table.state()["seq"])


def beans_add(phone, bean: str, cards: list[int], target: str = "open") -> None:
    phone.check(f"input[name=beans-target][value={target}]")
    if phone.is_enabled("#beans-bean"):
        phone.select_option("#beans-bean", bean)
    for value in cards:
        phone.click(f"#beans-pad [data-card='{value}']")
    phone.click("#beans-send")


def test_space_beans_game_kept_from_phones_ends_on_tv(table, browser, tv):
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    ann, ben = new_phone(browser), new_phone(browser)
    sent_by_ben: list[str] = []
    ben.on("request", lambda r: sent_by_ben.append(r.post_data or "") if r.method == "POST" else None)
    phones = [ann, ben, tv]
    tv.goto(table.base + "/tv")
    for page, me in ((ann, "Ann"), (ben, "Ben")):
        page.goto(table.base + "/")
        sign_in(page, table.pin)
        page.click(f"#beans-who button:has-text('{me}')")
    assert ann.is_visible("#beans-entry") and not ben.is_visible("#beans-entry")

    nine = [9, 9, 8, 8, 7, 7, 6, 6, 5]
    ann_beans = ["Klingbohns", "Dark Beans", "Beanliens", "Centauribohnen"]

    def secret_is_hidden(bean: str) -> None:
        seen = table.state()
        seen["game"]["state"].pop("beans")  # the names of all bean types, for the pickers
        assert bean not in str(seen) and bean not in tv.content()
        assert not any(bean in body for body in sent_by_ben)

    def ben_turn(turn: int) -> None:
        if turn == 0:
            beans_act(table, phones, lambda: beans_add(ben, "Bluebeans", [4]))
        elif turn == 1:
            # A secret collection: the phone keeps the cards, the table gets the count.
            beans_act(table, phones, lambda: beans_add(ben, "Moonbohnen", [2, 5], "secret"))
            assert '{"type":"add","player":1,"collection":"secret","count":2}' in sent_by_ben
            secret_is_hidden("Moonbohnen")
            assert tv.locator("[data-player='Ben'] .bean-card.back").count() == 2
            # The phone keeps the cards once the table has answered, which may come after its new state.
            ben.wait_for_selector("#beans-secret-local .bean-card >> nth=1")
            assert ben.inner_text("#beans-secret-local").split() == ["2", "5"]
        elif turn == 2:
            # Closing out the open collection turns the secret one face up: the
            # phone offers the cards it kept.
            assert "no trophy" in ben.inner_text("#beans-closeout-preview")
            beans_act(table, phones, lambda: ben.click("#beans-closeout-send"))
            assert "turned face up" in ben.inner_text("#beans-entry-title")
            assert ben.input_value("#beans-bean") == "Moonbohnen"
            assert ben.locator("#beans-draft .bean-card").all_inner_texts() == ["2", "5"]
            beans_act(table, phones, lambda: ben.click("#beans-send"))
            tv.wait_for_selector("[data-player='Ben'] .bean-cards >> text=5")
            beans_act(table, phones, lambda: beans_add(ben, "Moonbohnen", [3]))
        else:
            beans_act(table, phones, lambda: beans_add(ben, "Bohrion", [2, 8], "secret"))
            secret_is_hidden("Bohrion")
        beans_act(table, phones, lambda: ben.click("#beans-end-turn"))

    for turn in range(4):
        if turn:
            # The trophy a close-out yields is shown before it is confirmed.
            preview = ann.inner_text("#beans-closeout-preview")
            assert preview == "9 cards with a 9: closing out gives a trophy worth 9"
            beans_act(table, phones, lambda: ann.click("#beans-closeout-send"))
            tv.wait_for_function(
                f"document.querySelector(\"[data-player='Ann'] .beans-total\").textContent === '{9 * turn}'",
                timeout=1000,
            )
        beans_act(table, phones, lambda b=ann_beans[turn]: beans_add(ann, b, nine))
        beans_act(table, phones, lambda: ann.click("#beans-end-turn"))
        ben_turn(turn)

    # Ann closes out her fourth collection (36 points), adds, and ends the game.
    beans_act(table, phones, lambda: ann.click("#beans-closeout-send"))
    beans_act(table, phones, lambda: beans_add(ann, "Klingbohns", [4, 5]))
    beans_act(table, phones, lambda: ann.click("#beans-end-turn"))
    assert table.state()["game"]["state"]["awaiting_final"] == [1]

    # Ben's phone offers his secret collection, kept on the phone, for the final count.
    assert "enter your secret collection (2 cards)" in ben.inner_text("#beans-entry-title")
    assert ben.input_value("#beans-bean") == "Bohrion"
    assert ben.locator("#beans-draft .bean-card").all_inner_texts() == ["2", "8"]
    beans_act(table, phones, lambda: ben.click("#beans-send"))

    tv.wait_for_selector("#final-table", timeout=1000)
    rows = tv.locator("#final-table tbody tr")
    assert rows.count() == 2
    first = rows.nth(0).locator("td").all_inner_texts()
    assert first[:2] == ["1", "Ann"] and first[2].split("\n") == ["36", "9 + 9 + 9 + 9"]
    assert first[3] == "3" and first[5] == "39"  # place, player, trophies, bonus, collections, total
    second = rows.nth(1).inner_text()
    assert "Moonbohnen: 2, 5, 3 → 3" in second and "Bohrion (secret): 2, 8 → 2" in second
    assert second.rstrip().endswith("5")
    assert "Ann win" in tv.inner_text("#beans-winner")
    assert table.state()["game"]["finished"] is True
    screenshot(tv, "tv-space-beans-final.png")
    screenshot(ben, "phone-space-beans.png", full_page=True)
    assert tv.errors == [] and ann.errors == [] and ben.errors == []
    ann.context.close()
    ben.context.close()


def test_a_secret_collection_shows_on_its_phone_when_the_answer_comes_after_the_state(table, browser):
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    ann = new_phone(browser)
    ann.goto(table.base + "/")
    sign_in(ann, table.pin)
    ann.click("#beans-who button:has-text('Ann')")
    beans_act(table, [ann], lambda: beans_add(ann, "Bluebeans", [4]))
    for command in (
        {"type": "end_turn"},
        {"type": "add", "player": 1, "collection": "open", "bean": "Bohrion", "cards": [7]},
        {"type": "end_turn"},
    ):
        beans_act(table, [ann], lambda c=command: table.command(c))

    def answer_late(route) -> None:
        response = route.fetch()  # the table takes the command now...
        time.sleep(0.8)  # ...and the phone draws its new state before it hears back
        route.fulfill(response=response)

    ann.route("**/api/commands", answer_late)
    beans_act(table, [ann], lambda: beans_add(ann, "Moonbohnen", [2, 5], "secret"))
    assert table.state()["game"]["state"]["players"][0]["secret_count"] == 2
    ann.wait_for_selector("#beans-secret-local .bean-card >> nth=1", timeout=3000)
    assert ann.inner_text("#beans-secret-local").split() == ["2", "5"]
    assert not ann.errors
    ann.context.close()


def test_setup_layout_editor_makes_a_custom_board(table, phone, tmp_path):
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.select_option("#layout-base", "B")
    assert phone.get_attribute("#editor [data-sq='1:3']", "aria-label").endswith("pink")
    phone.click("#editor [data-sq='3:1']")  # empty -> rocket
    for _ in range(2):
        phone.click("#editor [data-sq='1:3']")  # pink star -> blue star -> empty
    phone.fill("#layout-name", "Kitchen board")
    phone.click("#layout-save")
    with phone.expect_download() as download:
        phone.click("#layout-download")
    saved = json.loads(download.value.path().read_text())
    assert saved["name"] == "Kitchen board"
    assert {"column": "3", "row": 1} in saved["rockets"]
    assert {"column": "1", "row": 3} not in saved["pink_stars"] + saved["blue_stars"]

    # A layout file loads into the editor; a broken one is refused in plain words.
    bad = tmp_path / "bad.json"
    bad.write_text('{"rockets": [{"column": "9", "row": 2}]}')
    phone.set_input_files("#layout-upload", str(bad))
    phone.wait_for_function("document.getElementById('layout-msg').textContent.includes('Could not read')")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"name": "Other", "rockets": [{"column": "straight", "row": 7}]}))
    phone.set_input_files("#layout-upload", str(other))
    phone.wait_for_function("document.getElementById('layout-name').value === 'Other'")
    assert phone.get_attribute("#editor [data-sq='straight:7']", "aria-label").endswith("rocket")

    phone.check("input[name=kind][value=beam_me_up]")
    # A refused set-up says why in plain words, and nothing starts.
    before = table.state()["game"]
    phone.fill("#players input[data-i='0']", "Ann")
    phone.fill("#players input[data-i='1']", "Ann")
    phone.on("dialog", lambda dialog: dialog.accept())
    phone.click("#start-game")
    phone.wait_for_selector("#setup-error:not(.hidden)")
    assert phone.inner_text("#setup-error") == "Two players are called 'Ann'; names must differ."
    assert table.state()["game"] == before
    phone.fill("#players input[data-i='1']", "Ben")
    phone.select_option("#players select[data-board='0']", "custom:Kitchen board")
    phone.click("#players [data-up='1']")  # Ben starts
    phone.click("#start-game")
    phone.wait_for_url(table.base + "/")
    players = table.state()["game"]["state"]["players"]
    assert [p["name"] for p in players] == ["Ben", "Ann"]
    assert players[1]["layout"]["name"] == "Kitchen board"
    assert {"column": "3", "row": 1} in players[1]["layout"]["rockets"]
    assert players[0]["layout"]["name"] == "Board B"
    assert phone.errors == []


NARROW_GAMES = {
    "beam_me_up": {
        "players": [
            {"name": "Ann", "board": "A"},
            {"name": "Ben", "board": "B"},
            {"name": "Cat", "board": "C"},
            {"name": "Dan", "board": "D"},
        ]
    },
    "outer_space": {"players": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]},
    "space_beans": {"players": ["Annabelle", "Benedict", "Catherine", "Dan", "Eve", "Fay"]},
}


def test_pages_fit_a_360_pixel_phone(table, browser):
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    errors = page_errors(page)
    page.goto(table.base + "/setup")
    sign_in(page, table.pin)
    for kind, settings in NARROW_GAMES.items():
        # /device follows the table to a new game by reloading: leave it first
        # (for a page with no live view: the table keeps only a few per address).
        page.goto("about:blank")
        table.command({"type": "new_game", "kind": kind, "settings": settings})
        for path in ("/", "/setup", "/device"):
            page.goto(table.base + path)
            page.wait_for_selector("#link-status.online")
            if path == "/" and kind == "space_beans":
                page.click("#beans-who button >> nth=0")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, f"{path} with {kind} is {width} px wide"
    assert errors == []
    ctx.close()


def test_device_roll_reads_dice_into_the_game(table, browser, tv):
    bmu_game(table)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    errors = page_errors(page)
    page.goto(table.base + "/device")
    sign_in(page, table.pin)
    tv.goto(table.base + "/tv")
    tv.wait_for_selector("#link-status.online")
    page.wait_for_selector("#link-status.online")
    # The synthetic camera may still be settling: the page says so, and a later click rolls.
    # A roll whose dice the reader cannot use (touching dice, say) is shown but not played.
    for _ in range(5):
        page.click("#roll")
        waited = time.monotonic() + 3
        while table.state()["game"]["state"]["dice"] is None and time.monotonic() < waited:
            time.sleep(0.05)
        if table.state()["game"]["state"]["dice"] is not None:
            break
    else:
        pytest.fail(f"no roll was read: {page.inner_text('#action-error')} {page.inner_text('#reading')}")
    dice = table.state()["game"]["state"]["dice"]
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice)
    tv.wait_for_selector("#roll-dice .die", timeout=2000)
    shown = tv.locator("#roll-dice .die").evaluate_all("els => els.map(e => +e.dataset.value)")
    assert shown == dice and tv.locator("#roll-dice .die.manual").count() == 0  # read by the camera
    page.wait_for_function("document.querySelectorAll('#reading .die').length === 5")
    assert page.evaluate("document.getElementById('camera').naturalWidth") > 0
    screenshot(page, "device-roll.png")

    # The camera misread a die: a phone corrects the roll (it is taken back and typed in).
    phone = new_phone(browser)
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    phone.click("[data-open-roll='correct']")
    assert phone.locator("#rc-slots .die-button").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label').split(': ')[1])"
    ) == [str(d) for d in dice]
    fixed = [1 if dice[0] != 1 else 2] + dice[1:]
    phone.click("#rc-slots [data-slot='0']")
    phone.click(f"#rc-pad [data-pick='{fixed[0]}']")
    phone.click("#rc-send")
    tv.wait_for_selector("#roll-dice .die.manual", timeout=2000)
    state = table.state()["game"]["state"]
    assert state["dice"] == fixed and state["roll"] == 1
    assert tv.locator("#roll-dice .die").evaluate_all("els => els.map(e => +e.dataset.value)") == fixed

    # The simulated table shows the corrected dice; two set aside on the phone
    # stay as they lie when /device throws the rest, and the throw is played.
    page.wait_for_function(
        "(want) => JSON.stringify([...document.querySelectorAll('#reading .die')]"
        ".map(e => e.querySelectorAll('.pip').length).sort()) === want",
        arg=json.dumps(sorted(fixed), separators=(",", ":")),
    )
    phone.click("#roll-dice [data-die-index='0']")
    phone.click("#roll-dice [data-die-index='1']")
    aside = sorted(fixed[:2])
    for _ in range(5):
        page.click("#roll")
        waited = time.monotonic() + 3
        while table.state()["game"]["state"]["roll"] < 2 and time.monotonic() < waited:
            time.sleep(0.05)
        if table.state()["game"]["state"]["roll"] == 2:
            break
        # Only a reading the reader is unsure of is thrown again: never the dice set aside.
        assert "set aside" not in page.inner_text("#reading")
    state = table.state()["game"]["state"]
    assert state["roll"] == 2 and sorted(state["kept"]) == aside, page.inner_text("#reading")
    assert table.state()["game"]["last"]["source"] == "camera"
    assert errors == [] and tv.errors == [] and phone.errors == []
    phone.context.close()
    ctx.close()


def test_tv_catches_up_after_the_table_restarts(browser, tmp_path):
    own = TablePiProcess(tmp_path / "restart").start()
    try:
        own.command(
            {
                "type": "new_game",
                "kind": "outer_space",
                "settings": {"players": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]},
            }
        )
        ctx = browser.new_context(viewport=TV)
        page = ctx.new_page()
        errors = page_errors(page)
        page.goto(own.base + "/tv")
        page.wait_for_selector("#link-status.online")
        own.stop()
        page.wait_for_selector("#link-status.offline", timeout=5000)
        # The table comes back (same data, same port) and a move is made while
        # the TV is still reconnecting: the TV re-reads the state when it is back.
        own.start()
        own.command({"type": "leader", "player": "Eve"})
        page.wait_for_function("document.getElementById('os-leader').textContent === 'Eve'", timeout=8000)
        assert page.locator("#link-status.online").count() == 1
        assert errors == []
        ctx.close()
    finally:
        own.stop()


LONG_NAME = "Maximilianausderwaldhuettenbergstrasse40"  # 40 characters, no space: the game's limit


def test_long_names_wrap_or_shorten_and_the_setup_field_keeps_the_game_s_limit(table, browser, tv):
    assert len(LONG_NAME) == 40
    bmu_game(table, names=(LONG_NAME, "Ann"))
    phone = new_phone(browser)
    phone.goto(table.base + "/")
    tv.goto(table.base + "/tv")
    for page, width in ((phone, PHONE["width"]), (tv, TV["width"])):
        page.wait_for_selector(f".board-card[data-player='{LONG_NAME}']")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        head = page.locator(f".board-card[data-player='{LONG_NAME}'] .board-head")
        # The counts stay whole; the name gives way, and its title holds it whole.
        counts = head.locator(".in-space")
        assert counts.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        assert (
            counts.bounding_box()["x"] + counts.bounding_box()["width"]
            <= head.bounding_box()["x"] + head.bounding_box()["width"] + 1
        )
        assert head.locator(".name").get_attribute("title") == LONG_NAME
    screenshot(phone, "phone-long-name.png", full_page=True)

    # /setup: a pasted name longer than the game allows is kept as typed and said to be too long.
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.fill("#players input[data-i='0']", "Q" * 200)
    assert len(phone.input_value("#players input[data-i='0']")) == 200
    assert phone.inner_text("#name-too-long") == "A name is at most 40 characters; this one has 200."
    phone.fill("#players input[data-i='0']", LONG_NAME)
    assert phone.locator("#name-too-long").is_hidden()
    assert phone.errors == [] and tv.errors == []
    phone.context.close()


def test_a_signed_in_phone_invites_a_new_one(table, browser, phone):
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    phone.click("#invite")
    phone.wait_for_selector("#invite-card .invite-qr svg")
    url = phone.text_content("#invite-card .invite-url")
    assert url.startswith(table.base + "/#invite=")
    screenshot(phone, "phone-invite.png")
    guest = new_phone(browser)
    try:
        guest.goto(url)
        guest.wait_for_selector("body.authed")
        # The used-up link leaves the address bar; no PIN was typed.
        assert "invite" not in guest.url and guest.input_value("#pin-form input[name=pin]") == ""
        # A second phone with the same link is told so, and stays out.
        late = new_phone(browser)
        try:
            late.goto(url)
            late.wait_for_function("document.getElementById('pin-error').textContent.length > 0")
            assert "used up" in late.text_content("#pin-error")
            assert not late.evaluate("document.body.classList.contains('authed')")
            assert late.errors == [] and guest.errors == [] and phone.errors == []
        finally:
            late.context.close()
    finally:
        guest.context.close()
