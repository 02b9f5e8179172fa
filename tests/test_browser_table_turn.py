"""The table's turn is its own, in a real headless Chromium against a real
`tablepi run --simulate`: while the table plays a seat, the phone lists the
roll's options without a way to choose one and the API refuses a person's
move for it; undo and "Let the table play" are what people have, and what
they say reads as sentences.

The table steps slowly here (``--table-step``), so that the page can be
looked at between two of its steps.
"""

from __future__ import annotations

import json

import pytest
from browser_support import PHONE, page_errors, sign_in, table_playing_table

pytestmark = pytest.mark.browser

STEP = 2.5


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    yield from table_playing_table(tmp_path_factory, STEP)


def phone_page(browser):
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    ctx.set_default_timeout(8000)
    page = ctx.new_page()
    page.errors = page_errors(page)
    return page


def post(page, path: str, body: dict) -> dict:
    """POST from the page itself, with its signed-in session, as its scripts do."""
    return page.evaluate(
        """async ([path, body]) => {
            const r = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: JSON.stringify(body), credentials: "same-origin"});
            return {status: r.status, body: await r.json()};
        }""",
        [path, body],
    )


def test_in_the_table_s_turn_people_watch_and_may_only_undo(table, browser):
    robo_first = {
        "players": [{"name": "Robo", "board": "A", "table": True}, {"name": "Ann", "board": "B"}],
        "advantage": False,
    }
    table.command({"type": "new_game", "kind": "beam_me_up", "settings": robo_first})
    phone = phone_page(browser)
    phone.goto(table.base + "/")
    sign_in(phone, table.pin)

    # The table throws Robo's first roll; the phone shows its options, nothing to choose them with.
    phone.wait_for_selector("#options .option")
    state = json.loads(phone.text_content("#state-json"))["game"]["state"]
    assert state["turn"]["name"] == "Robo" and state["options"]
    assert phone.locator("#options button").count() == 0
    assert phone.locator("#bmu-actions").count() == 0
    seq = table.state()["seq"]
    refused = post(phone, "/api/commands", {"type": "choose", "option": 0})
    assert refused["status"] == 409 and refused["body"]["rule"] == "table-turn", refused
    assert "the table plays it" in refused["body"]["error"]
    assert table.state()["seq"] == seq

    # Undo is open: the table waits, and the person may play the step or let it play.
    assert phone.inner_text("#undo-button") == "Undo the roll thrown by the table"
    phone.click("#undo-button")
    phone.wait_for_selector("#table-continue")
    assert phone.inner_text("#undone") == "Undone: the roll thrown by the table."
    assert phone.inner_text("#table-player").startswith("The table waits before playing Robo's turn. An undo")
    assert phone.locator("#table-player[data-waiting='undo']").count() == 1
    phone.click("#table-continue")
    phone.wait_for_selector("#table-player[data-waiting='']")
    assert phone.errors == []
    phone.context.close()
