"""Player names that look like code (issue 24, finding 13): the Bridge vote
form, in a real headless Chromium against a real `tablepi run --simulate`,
records votes for players called "A.B", "__proto__" and "constructor"."""

from __future__ import annotations

import pytest
from browser_support import TablePiProcess, launch, page_errors, require_browser, sign_in

pytestmark = pytest.mark.browser

NAMES = ["A.B", "__proto__", "constructor", "Dan", "Eve", "Fay"]


def test_finding_13_the_vote_form_takes_names_that_look_like_code(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    table = TablePiProcess(tmp_path / "table").start()
    try:
        table.command({"type": "new_game", "kind": "outer_space", "settings": {"players": NAMES}})
        for command in (
            {"type": "leader", "player": "Dan"},
            {"type": "partner", "player": "Eve"},
            {"type": "next_phase"},
            {"type": "next_phase"},
            {"type": "next_phase"},
        ):
            table.command(command)
        assert table.state()["game"]["state"]["phase"] == "Bridge"
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(5000)
            errors = page_errors(page)
            page.goto(table.base + "/")
            sign_in(page, table.pin)
            page.wait_for_selector("body.authed")
            for name, votes in (("A.B", 3), ("__proto__", 2), ("constructor", 1)):
                page.locator(f'input[data-map="votes"][data-key="{name}"]').fill(str(votes))
            page.click('form.cmd-form[data-form-command=\'{"type":"vote"}\'] button[type=submit]')
            page.wait_for_function("document.querySelector('#live .state').dataset.seq === '6'")
            browser.close()
        state = table.state()["game"]["state"]
        assert state["mission"] == 2 and state["leader"] == "A.B"
        assert state["history"][-1]["votes"] == {"A.B": 3, "__proto__": 2, "constructor": 1}
        assert errors == []
    finally:
        table.stop()
