"""What a player sees, in a real headless Chromium against a real
`tablepi run --simulate`: a game in progress is never thrown away without
asking and can be resumed, signing in and out, undo that says what it undid,
the Beam Me Up set-up step, and Space Beans controls the rules allow."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from browser_support import PHONE, page_errors, sign_in

from tablepi.games.beam_me_up.advice import hint

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    yield page
    assert page.errors == []
    ctx.close()


def bmu(table, advantage: bool = True) -> None:
    players = [{"name": "Ann", "board": "A"}, {"name": "Ben", "board": "B"}]
    table.command(
        {"type": "new_game", "kind": "beam_me_up", "settings": {"players": players, "advantage": advantage}}
    )


def wait_until(check, what: str, seconds: float = 3.0, page=None) -> None:
    """Until ``check()``; with ``page``, its events (a dialog, say) are handled meanwhile."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        if page is not None:
            page.wait_for_timeout(50)
        else:
            time.sleep(0.05)


def test_starting_over_a_game_asks_and_a_game_set_aside_resumes(table, phone):
    bmu(table, advantage=False)
    table.command({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True})
    first = table.state()["game"]["id"]
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.click("input[name=kind][value=space_beans]")
    asked: list[str] = []

    def answer(dialog, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    # Said no: the game in progress stays.
    phone.once("dialog", lambda d: answer(d, False))
    phone.click("#start-game")
    wait_until(lambda: asked, "no question was asked", page=phone)
    assert "Beam Me Up is in progress" in asked[0] and "resumed" in asked[0]
    phone.wait_for_timeout(300)
    assert table.state()["game"]["id"] == first

    # Said yes: a new game, and the old one is listed to resume.
    phone.once("dialog", lambda d: answer(d, True))
    phone.click("#start-game")
    phone.wait_for_url(table.base + "/")
    assert table.state()["game"]["kind"] == "space_beans"
    phone.goto(table.base + "/setup")
    row = phone.locator(f"#resumable li[data-game='{first}']")
    assert "Beam Me Up" in row.inner_text() and "Ann, Ben" in row.inner_text()
    phone.once("dialog", lambda d: answer(d, True))  # the Space Beans game is in progress: asked again
    row.locator("[data-resume]").click()
    phone.wait_for_url(table.base + "/")
    game = table.state()["game"]
    assert game["id"] == first and game["state"]["dice"] == [1, 1, 2, 3, 4]
    phone.wait_for_selector("#roll-dice .die")


def test_a_new_game_that_cannot_start_is_said_so_before_any_question(table, phone):
    bmu(table, advantage=False)
    first = table.state()["game"]["id"]
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    asked: list[str] = []
    phone.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    phone.click("input[name=kind][value=beam_me_up]")
    for _ in range(phone.locator("#players li").count() - 1):
        phone.click("#players [data-remove='0']")
    assert phone.locator("#players li").count() == 1
    phone.click("#start-game")
    phone.wait_for_selector("#setup-error:not(.hidden)")
    assert phone.inner_text("#setup-error") == "Beam Me Up is for 2 to 4 players."
    phone.wait_for_timeout(300)
    assert asked == [] and table.state()["game"]["id"] == first
    # A game that can start: now the question comes, and "no" keeps the game in progress.
    phone.click("#add-player")
    phone.click("#start-game")
    wait_until(lambda: asked, "no question was asked", page=phone)
    assert "Beam Me Up is in progress" in asked[0]
    assert table.state()["game"]["id"] == first
    assert phone.is_enabled("#start-game")


def test_sign_in_clears_the_stale_error_and_stop_signs_out_on_the_table(table, phone):
    bmu(table, advantage=False)
    phone.goto(table.base + "/")
    phone.wait_for_selector("#link-status.online")
    phone.evaluate("TablePi.command({type: 'roll', dice: [1, 2, 3, 4, 5]}).catch(() => null)")
    phone.wait_for_selector("#action-error:not(.hidden)")
    assert "PIN" in phone.inner_text("#action-error")
    assert not phone.locator("#signed-in").is_visible()
    sign_in(phone, table.pin)
    assert phone.locator("#action-error").is_hidden()
    assert "Signed in" in phone.inner_text("#signed-in")
    cookies = phone.context.cookies()

    phone.click("#pin-forget")
    phone.wait_for_selector("#pin-card", state="visible")
    wait_until(
        lambda: not phone.evaluate("fetch('/api/session').then(r => r.json())")["signed_in"],
        "the table still counts the phone as signed in",
    )
    # The session ended on the table: the old cookie moves nothing any more.
    header = "; ".join(f"{c['name']}={c['value']}" for c in cookies)
    request = urllib.request.Request(
        table.base + "/api/commands",
        data=json.dumps({"type": "roll", "dice": [1, 2, 3, 4, 5]}).encode(),
        headers={"Content-Type": "application/json", "Cookie": header},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 403
    assert table.state()["game"]["state"]["dice"] is None


def test_undo_names_what_it_takes_back_and_a_correction_stops_at_the_roll(table, phone):
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    assert phone.locator("#undo-button").count() == 0  # nothing to undo yet

    bmu(table, advantage=False)
    table.command({"type": "roll", "dice": [2, 2, 3, 5, 6], "manual": True})
    phone.wait_for_selector("#undo-button")
    assert phone.inner_text("#undo-button") == "Undo the roll entered by hand"
    phone.click("#undo-button")
    phone.wait_for_selector("#undone")
    assert phone.inner_text("#undone") == "Undone: the roll entered by hand."
    assert table.state()["game"]["state"]["dice"] is None
    assert phone.locator("#undo-button").count() == 0

    # Two phones correct the same roll: the second correction is refused, it
    # does not take back the move before the roll.
    table.command({"type": "roll", "dice": [2, 2, 3, 5, 6], "manual": True})
    phone.wait_for_selector("#roll-dice .die")
    phone.click("[data-open-roll='correct']")
    table.command({"type": "undo"})  # another phone was quicker
    table.command({"type": "roll", "dice": [4, 4, 3, 5, 6], "manual": True})
    before = table.state()
    phone.click("#rc-slots [data-slot='0']")
    phone.click("#rc-pad [data-pick='1']")
    phone.click("#rc-send")
    phone.wait_for_selector("#action-error:not(.hidden)")
    assert "taken back already" in phone.inner_text("#action-error")
    assert table.state()["seq"] == before["seq"]


def test_a_roll_in_the_set_up_step_says_what_the_table_waits_for(table, browser, phone):
    bmu(table, advantage=True)
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    phone.wait_for_selector("#link-status.online")
    assert "waits for this before the first roll" in phone.inner_text("#bmu-setup")
    # B on the simulated table (its roll) during the set-up step.
    phone.evaluate("TablePi.post('/api/device/press', {button: 'B', long: false})")
    phone.wait_for_selector("#notice.warn")
    assert "Set-up first: Ben moves 1 counter up one square" in phone.inner_text("#notice")
    assert table.state()["game"]["state"]["phase"] == "advantage"


def test_space_beans_offers_a_secret_collection_only_after_an_open_one(table, phone):
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    phone.click("[data-beans-player='0']")
    secret = phone.locator("input[name=beans-target][value=secret]")
    assert secret.is_disabled() and not secret.is_visible()
    table.command({"type": "add", "player": 0, "collection": "open", "bean": "Bohrion", "cards": [2]})
    table.command({"type": "end_turn"})
    table.command({"type": "add", "player": 1, "collection": "open", "bean": "Bluebeans", "cards": [4]})
    table.command({"type": "end_turn"})
    phone.wait_for_function("!document.querySelector('input[name=beans-target][value=secret]').disabled")
    assert secret.is_visible()
    # A on the table passes the turn for real; refused, it says why on the phone.
    phone.evaluate("TablePi.post('/api/device/press', {button: 'A', long: false})")
    phone.wait_for_selector("#notice.warn")
    assert "The table:" in phone.inner_text("#notice")
    assert table.state()["game"]["state"]["active"] == 0


def test_dice_set_aside_stay_in_step_between_phones_and_device(table, browser, phone):
    bmu(table, advantage=False)
    table.command({"type": "roll", "dice": [6, 2, 6, 3, 1], "manual": True})
    device = browser.new_page(viewport={"width": 1280, "height": 900})
    device.set_default_timeout(5000)
    errors = page_errors(device)
    device.goto(table.base + "/device")
    sign_in(device, table.pin)
    device.wait_for_selector("#link-status.online")
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)
    phone.wait_for_selector("#link-status.online")

    device.wait_for_function("document.getElementById('oled').hasAttribute('data-version')")
    screen = device.get_attribute("#oled", "data-version")
    phone.click("#roll-dice [data-die-index='0']")
    phone.click("#roll-dice [data-die-index='2']")
    device.wait_for_function("document.querySelector('[data-keep=\"2\"]').checked", timeout=2000)
    # The OLED marks them too (its image changed).
    device.wait_for_function(
        f"document.getElementById('oled').getAttribute('data-version') !== '{screen}'", timeout=2000
    )
    assert device.is_checked("[data-keep='0']") and not device.is_checked("[data-keep='1']")

    device.uncheck("[data-keep='0']")
    phone.wait_for_function(
        "document.querySelector('#roll-dice [data-die-index=\"0\"]')"
        ".getAttribute('aria-pressed') === 'false'",
        timeout=2000,
    )
    assert phone.get_attribute("#roll-dice [data-die-index='2']", "aria-pressed") == "true"

    # A phone opened later shows the same marks.
    late = browser.new_page(viewport=PHONE)
    late.goto(table.base + "/")
    sign_in(late, table.pin)
    late.wait_for_function(
        "document.querySelector('#roll-dice [data-die-index=\"2\"]').getAttribute('aria-pressed') === 'true'",
        timeout=2000,
    )
    late.close()

    # The next roll takes the die set aside with it, and the correction editor shows it set aside.
    phone.click("[data-open-roll]")
    assert "set aside" in phone.get_attribute("#rc-slots [data-slot='0']", "aria-label")
    for value in (4, 4, 5, 2):
        phone.click(f"#rc-pad [data-pick='{value}']")
    phone.click("#rc-send")
    wait_until(lambda: table.state()["game"]["state"]["roll"] == 2, "the roll was not played")
    assert table.state()["game"]["state"]["kept"] == [6]
    # The first roll's correct button is there already: wait for the page to show the second roll.
    seq = table.state()["seq"]
    phone.wait_for_function(f"Number(document.querySelector('#live .state').dataset.seq) >= {seq}")
    phone.click("[data-open-roll='correct']")
    labels = phone.locator("#rc-slots .die-button").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert sum("set aside" in label for label in labels) == 1
    assert errors == []
    device.close()


def test_device_shows_the_camera_only_in_a_game_with_dice(table, browser):
    table.command({"type": "new_game", "kind": "space_beans", "settings": {"players": ["Ann", "Ben"]}})
    device = browser.new_page(viewport={"width": 1280, "height": 900})
    device.set_default_timeout(5000)
    errors = page_errors(device)
    device.goto(table.base + "/device")
    sign_in(device, table.pin)
    device.wait_for_selector("#link-status.online")
    assert device.locator("#camera-card").count() == 0
    assert "end the turn" in device.inner_text(".button-map")  # Space Beans' A, in words
    bmu(table, advantage=False)  # the page follows the table to a game with dice
    device.wait_for_selector("#camera-card", timeout=5000)
    device.wait_for_selector("body.authed")  # still signed in after the page reloaded
    device.click("#roll")
    device.wait_for_selector("#reading .read-die", timeout=8000)
    confidences = device.locator("#reading .conf").all_inner_texts()
    assert confidences and all(c.endswith("%") for c in confidences)
    assert errors == []
    device.close()


def test_set_up_page_shows_the_board_editor_for_beam_me_up_only(table, phone):
    phone.goto(table.base + "/setup")
    phone.click("input[name=kind][value=beam_me_up]")
    assert phone.locator("#layout-editor").is_visible()
    phone.click("input[name=kind][value=space_beans]")
    assert not phone.locator("#layout-editor").is_visible()


def test_phone_timer_says_time_is_up_at_zero(table, phone):
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
    table.command({"type": "new_game", "kind": "outer_space", "settings": {"players": names}})
    table.command({"type": "timer_start"})
    phone.goto(table.base + "/")
    phone.wait_for_selector("#link-status.online")
    assert phone.inner_text("#timer-label") == "running"
    # As if the minute had just run out: the words follow the countdown, not the next event.
    # A live update may render the timer afresh (a minute left) after it is set: set it again then.
    phone.wait_for_function(
        """() => {
          const t = document.getElementById('mission-timer');
          if (!t.hasAttribute('data-set') || parseFloat(t.getAttribute('data-countdown')) > 1) {
            t.setAttribute('data-set', '1');
            t.setAttribute('data-countdown', '0.2');
            t.setAttribute('data-t0', String(performance.now()));
          }
          return document.getElementById('timer-label').textContent === 'time is up';
        }""",
        timeout=5000,
    )
    assert table.state()["game"]["state"]["timer"]["state"] == "running"


def test_in_simulation_a_players_device_shows_the_danger_coin(table, browser):
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
    table.command({"type": "new_game", "kind": "outer_space", "settings": {"players": names}})
    table.command({"type": "leader", "player": "Cat"})
    table.command({"type": "partner", "player": "Eve"})
    table.command({"type": "timer_start"})
    device = browser.new_page(viewport={"width": 1280, "height": 900})
    device.set_default_timeout(5000)
    errors = page_errors(device)
    device.goto(table.base + "/device")
    sign_in(device, table.pin)
    device.wait_for_function("document.getElementById('oled').hasAttribute('data-version')")
    state_before = table.state()
    device.click("[data-button='B']")
    device.wait_for_timeout(600)
    sizes = device.evaluate(
        """async () => {
          const table = await (await fetch('/api/device/oled.png?view=table')).arrayBuffer();
          const mirror = await (await fetch('/api/device/oled.png')).arrayBuffer();
          const a = new Uint8Array(table), b = new Uint8Array(mirror);
          return {same: a.length === b.length && a.every((x, i) => x === b[i]),
                  shown: document.getElementById('oled').src};
        }"""
    )
    assert "view=table" in sizes["shown"]
    assert not sizes["same"]  # the table's view holds the coin, the mirror the running timer
    # The flip reached nothing but the screen: no command, no change of state.
    assert table.state()["seq"] == state_before["seq"]
    assert errors == []
    device.close()


def test_hints_are_off_until_a_phone_turns_them_on_for_a_player(table, phone):
    bmu(table, advantage=False)
    table.command({"type": "roll", "dice": [5, 5, 5, 2, 3], "manual": True})
    player = table.state()["game"]["state"]["turn"]["name"]
    phone.goto(table.base + "/")
    phone.wait_for_selector("#link-status.online")
    toggle = phone.locator("#hint-toggle")
    assert f"Hints for {player}" in phone.inner_text("#hint-card")
    assert not toggle.is_checked() and phone.locator("#hint").is_hidden()
    assert phone.locator("#roll-dice .hint-keep").count() == 0

    toggle.check()
    phone.wait_for_selector("#hint li")
    items = phone.locator("#hint li")
    assert items.count() == 3
    first = items.nth(0)
    best = json.loads(first.get_attribute("data-keep"))
    assert first.inner_text().startswith(f"Keep {' '.join(map(str, best))}" if best else "Roll all again")
    assert "pair" in items.nth(0).inner_text() and "%" in items.nth(0).inner_text()
    # Each hint says why, in a few words: what the keep aims at, against playing now.
    expected = hint(table.state()["game"]["state"])["keeps"]
    for n, keep in enumerate(expected):
        assert items.nth(n).locator(".hint-why").inner_text() == f"Why: {keep['why']}."
    assert expected[0]["why"].startswith("aims at ")
    # The best keep's dice are marked in the roll, each value as often as kept.
    marked = phone.locator("#roll-dice .die.hint-keep").evaluate_all("els => els.map(e => +e.dataset.value)")
    assert sorted(marked) == sorted(best)

    # This phone remembers: after a reload and a new roll the hints stay on for that player.
    table.command({"type": "roll", "dice": [1, 1, 2, 3, 4], "manual": True})
    phone.reload()
    phone.wait_for_selector("#hint li")
    assert phone.locator("#hint-toggle").is_checked()
    phone.locator("#hint-toggle").uncheck()
    assert phone.locator("#hint").is_hidden() and phone.locator("#roll-dice .hint-keep").count() == 0
    assert phone.errors == []


def test_the_tv_shows_the_odds_when_setup_says_so(table, browser, phone):
    bmu(table, advantage=False)
    table.command({"type": "roll", "dice": [5, 5, 5, 2, 3], "manual": True})
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    ctx.set_default_timeout(5000)
    tv = ctx.new_page()
    tv_errors = page_errors(tv)
    tv.goto(table.base + "/tv")
    tv.wait_for_selector("#link-status.online")
    assert tv.locator("#tv-odds").count() == 0  # off by default

    # Without the PIN, or with anything but a yes or no, nothing changes.
    for body, headers, status in (
        ({"odds": True}, {}, 403),
        ({"odds": "yes"}, {"X-Table-Pin": table.pin}, 400),
        ({"odds": True, "more": 1}, {"X-Table-Pin": table.pin}, 400),
    ):
        request = urllib.request.Request(
            table.base + "/api/tv-settings",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **headers},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == status
    assert table.api("GET", "/api/tv-settings") == {"odds": False}

    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.check("#tv-odds")
    tv.wait_for_selector("#tv-odds")
    text = tv.inner_text("#tv-odds")
    assert text.startswith("Best: ") and "pair 100%" in text, text
    assert tv.inner_text("#tv-odds-why") == hint(table.state()["game"]["state"], count=1)["keeps"][0]["why"]
    assert table.api("GET", "/api/tv-settings") == {"odds": True}
    phone.reload()
    assert phone.locator("#tv-odds").is_checked()  # kept by the table, not the phone
    phone.uncheck("#tv-odds")
    tv.wait_for_selector("#tv-odds", state="detached")
    assert tv_errors == []
    ctx.close()
