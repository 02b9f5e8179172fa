"""A whole game of one person against the table, in a real headless Chromium
against a real `tablepi run --simulate`.

The game is set up on /setup with the second seat "played by the table".
Ann plays every turn of hers from the phone page: she enters her roll with
the phone's manual entry (the roll the advice rates best for her, so the game
ends in about ten turns) and chooses the option, the parts and bonus squares
with the phone's buttons. The table plays Robo's turns by itself, a step
every quarter of a second (``--table-step``), with dice from a seed
(``--table-seed``); the TV and the phone show its dice and what it does
next. At the end the winner shows on both.
"""

from __future__ import annotations

import json
import time

import pytest
from browser_support import (
    PHONE,
    TV,
    page_errors,
    screenshot,
    sign_in,
    table_playing_table,
)

from tablepi.games.beam_me_up.advice import Advisor, Position
from tablepi.games.beam_me_up.options import SORTED_ROLLS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEP = 0.25
MAX_TURNS = 40


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    yield from table_playing_table(tmp_path_factory, STEP)


def new_page(browser, viewport, **kwargs):
    ctx = browser.new_context(viewport=viewport, **kwargs)
    ctx.set_default_timeout(5000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    return page


def page_state(page) -> dict:
    return json.loads(page.text_content("#state-json"))


def seq(page) -> int:
    return int(page.get_attribute("#live .state", "data-seq"))


def click_and_wait(page, locator) -> None:
    """Click, then wait for the page to show the table's next state."""
    before = seq(page)
    locator.click()
    page.wait_for_function(f"document.querySelector('#live .state').dataset.seq > {before}", timeout=5000)


ANN_TO_PLAY = """() => {
  const pub = JSON.parse(document.getElementById('state-json').textContent);
  const s = pub.game && pub.game.state;
  return !!s && (!!s.winner || (s.turn.index === 0 && s.phase === 'rolling' && s.dice === null));
}"""


def best_roll(state: dict) -> tuple[list[int], tuple[dict, ...]]:
    """The roll worth most to the player to move, and how to play it."""
    advisor = Advisor(Position.from_public(state))
    roll = max(SORTED_ROLLS, key=lambda r: advisor.play(r)[0])
    return list(roll), advisor.play(roll)[1]


def play_ann_s_turn(phone) -> None:
    state = page_state(phone)["game"]["state"]
    dice, plan = best_roll(state)
    phone.click("[data-open-roll]")
    for value in dice:
        phone.click(f"#rc-pad [data-pick='{value}']")
    click_and_wait(phone, phone.locator("#rc-send"))
    for command in plan:
        if page_state(phone)["game"]["state"]["winner"]:
            return
        kind = command["type"]
        if kind == "choose":
            click_and_wait(phone, phone.locator("#options button").nth(command["option"]))
        elif kind == "move":
            base = json.dumps({"type": "move", "part": command["part"]}, separators=(",", ":"))
            form = phone.locator(f"#parts form[data-form-command='{base}']")
            if form.locator("select[name=column]").count():
                form.locator("select[name=column]").select_option(command["column"])
            click_and_wait(phone, form.locator("button[type=submit]"))
        else:  # a bonus square, or the end of the turn with a part left unused
            sent = json.dumps(command, separators=(",", ":"))
            click_and_wait(phone, phone.locator(f"#bmu-actions button[data-command='{sent}']"))


def undo_into_the_table_s_turn(phone, tv) -> None:
    """A person undoes one of the table's steps: the table waits (it does not
    fight the undo) until the person lets it play on."""
    for _attempt in range(5):
        phone.wait_for_selector("#undo-button")
        phone.click("#undo-button")  # refused if the table stepped first: try again
        try:
            phone.wait_for_selector("#table-continue", timeout=2000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError
            continue
    else:
        pytest.fail("the table did not wait after an undo")
    tv.wait_for_selector("#table-player[data-waiting='undo']")
    screenshot(phone, "phone-table-waits.png")
    still = seq(phone)
    time.sleep(4 * STEP)
    assert seq(phone) == still  # no step while it waits
    phone.click("#table-continue")
    phone.wait_for_function(f"document.querySelector('#live .state').dataset.seq > {still}", timeout=5000)


def test_a_person_plays_a_whole_game_against_the_table(table, browser):
    phone = new_page(browser, PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    tv = new_page(browser, TV)
    phone.on("dialog", lambda dialog: dialog.accept())
    started = time.monotonic()

    # Set-up: Ann against Robo, the seat played by the table.
    phone.goto(table.base + "/setup")
    sign_in(phone, table.pin)
    phone.check("input[name=kind][value=beam_me_up]")
    phone.fill("#players input[data-i='0']", "Ann")
    phone.fill("#players input[data-i='1']", "Robo")
    phone.check("#players input[data-table='1']")
    screenshot(phone, "setup-table-seat.png", full_page=True)
    phone.click("#start-game")
    phone.wait_for_url(table.base + "/")
    phone.wait_for_selector("#link-status.online")
    tv.goto(table.base + "/tv")
    tv.wait_for_selector("#link-status.online")

    game = table.state()["game"]
    players = game["state"]["players"]
    assert [(p["name"], p["table"]) for p in players] == [("Ann", False), ("Robo", True)]
    # Robo's badge, on the phone and the TV.
    for page in (phone, tv):
        page.wait_for_selector(".board-card[data-player='Robo'] .table-badge")
        assert page.locator(".board-card[data-player='Ann'] .table-badge").count() == 0

    # The table makes Robo's set-up move itself; then it is Ann's turn.
    phone.wait_for_function(ANN_TO_PLAY, timeout=10000)
    seen_table_turn = False
    for _turn in range(MAX_TURNS):
        if page_state(phone)["game"]["state"]["winner"]:
            break
        play_ann_s_turn(phone)
        if page_state(phone)["game"]["state"]["winner"]:
            break
        if not seen_table_turn:
            # Robo's turn: the TV says what the table does next and shows its dice;
            # the phone holds its controls back (people watch, or undo).
            tv.wait_for_selector("#table-player #table-next", timeout=5000)
            tv.wait_for_selector("#roll-dice .die", timeout=5000)
            screenshot(tv, "tv-table-turn.png")
            undo_into_the_table_s_turn(phone, tv)
            seen_table_turn = True
        phone.wait_for_function(ANN_TO_PLAY, timeout=30000)
    else:
        pytest.fail(f"no winner after {MAX_TURNS} turns")

    winner = page_state(phone)["game"]["state"]["winner"]["name"]
    assert seen_table_turn
    phone.wait_for_selector("#bmu-winner")
    assert phone.inner_text("#bmu-winner") == f"{winner} wins!"
    tv.wait_for_selector("#bmu-banner")
    assert f"{winner} wins!" in tv.inner_text("#bmu-banner")
    screenshot(tv, "tv-won-against-the-table.png")
    assert table.state()["game"]["finished"] is True
    # Robo moved: the table played its turns through the commands.
    robo = table.state()["game"]["state"]["players"][1]["counters"]
    assert sum(robo.values()) > 0
    assert phone.errors == [] and tv.errors == []
    print(f"a game against the table in {time.monotonic() - started:.1f} s")
    phone.context.close()
    tv.context.close()
