"""Rounding shown as a change, in the page: Elo-MMR on the poker sample, Marta's game 122, where her uncertainty sits
at its limit 80 and moved by one unit in the last place (1.421e-14); the Player tab's explanation must read 0.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import TIMEOUT, screenshot, settle
from tests.browser.test_pages import PHONE, open_player, pick

pytestmark = pytest.mark.browser

#: The explanation table's rows as drawn: each row's cells by column id.
ROWS_JS = """() => Array.from(document.querySelectorAll('#player-explain-table .ag-center-cols-container .ag-row'))
  .map(r => Object.fromEntries(Array.from(r.querySelectorAll('.ag-cell'))
    .map(c => [c.getAttribute('col-id'), c.innerText])))"""


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_elo_mmr_uncertainty_at_its_limit_reads_0(page, browser, app_url, screen):
    pg = page if screen == "desktop" else browser.new_context(**PHONE).new_page()
    open_player(pg, app_url, "?system=elo-mmr")
    pick(pg, "player-player", "Marta")
    pg.click("#player-game")
    pg.fill(".dash-dropdown-search", "Game 122,")  # the list of 150 games draws only the options in view
    pg.click("[role=option]:has(input[value='121'])", timeout=TIMEOUT)
    pg.wait_for_function(
        "() => document.querySelector('#player-explain').innerText.startsWith('Marta in Game 122')", timeout=TIMEOUT
    )
    settle(pg)
    rows = {r["part"]: r for r in pg.evaluate(ROWS_JS)}
    assert rows["sigma"] == {"part": "sigma", "before": "80", "after": "80", "change": "0"}
    notes = pg.inner_text("#player-explain-notes")
    assert "e-14" not in notes and "the uncertainty by 0." in notes
    pg.locator("#player-explain").scroll_into_view_if_needed()
    screenshot(pg, f"rounding-explain-{screen}", "#player-explain")
