"""The leaderboard paged, sorted and searched on the server, in a real headless Chromium (issues 28 item 5, 30).

The racing sample has 150 players: two pages of 100.  How many games each player played does not depend on the
rating system, so the expected order of the "games" column is counted from the history itself.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from figures import is_placeholder
from ratings.samples import load_sample
from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import TIMEOUT, open_app, settle

pytestmark = pytest.mark.browser

#: Every row the grid holds (not only those drawn on screen), in its order: [player, games, rank].
GRID_ROWS_JS = """() => {
  const rows = [];
  dash_ag_grid.getApi('standings-leaderboard').forEachNodeAfterFilterAndSort(
    n => rows.push([n.data.player, n.data.games, n.data.rank]));
  return rows;
}"""


def _games_played() -> list[int]:
    history = load_sample("racing")
    counts = Counter(e.player for game in history.games for e in game.entries)
    return sorted(n for player, n in counts.items() if not is_placeholder(player))


def _wait_games(page, want: list[int]) -> None:
    page.wait_for_function(
        f"(want) => JSON.stringify(({GRID_ROWS_JS})().map(r => r[1])) === JSON.stringify(want)",
        arg=want,
        timeout=TIMEOUT,
    )


def test_a_header_sorts_the_whole_leaderboard_and_the_pages_follow(page, app_url):
    games = _games_played()
    assert len(games) == 150
    open_app(page, app_url, "?sample=racing")
    settle(page)
    rows = page.evaluate(GRID_ROWS_JS)
    assert [r[2] for r in rows] == list(range(1, 101))  # page 1: the best hundred
    assert "150 players; showing 1-100" in page.inner_text("#standings-leaderboard-count")
    # a click on the games header: the fewest games of all 150 players first, not just of the hundred held
    page.click("#standings-leaderboard .ag-header-cell[col-id='games'] .ag-header-cell-label")
    _wait_games(page, games[:100])
    # the second page goes on in that order
    page.click("#standings-leaderboard-pages a.page-link:text-is('2')")
    _wait_games(page, games[100:])
    assert "showing 101-150" in page.inner_text("#standings-leaderboard-count")
    # again: the most games first, back on the first page
    page.click("#standings-leaderboard .ag-header-cell[col-id='games'] .ag-header-cell-label")
    _wait_games(page, games[::-1][:100])
    assert "showing 1-100" in page.inner_text("#standings-leaderboard-count")
    screenshot(page, "leaderboard-sorted-by-games")
    # every header on one line beside its sort mark (at 80 px "Games" broke into "Ga / me / s")
    wrapped = page.evaluate(
        """() => {
          const texts = Array.from(document.querySelectorAll('#standings-leaderboard .ag-header-cell-text'))
            .filter(t => t.offsetParent !== null && t.innerText.trim() !== '');
          const line = Math.min(...texts.map(t => t.getBoundingClientRect().height));  // '#': one line
          return texts.filter(t => t.getBoundingClientRect().height > 1.5 * line).map(t => t.innerText);
        }"""
    )
    assert wrapped == []
    # a search: only matching players, whichever page they were on
    page.fill("#standings-leaderboard-search", "zz-no-such-player")
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard-empty').innerText.includes('zz-no-such-player')",
        timeout=TIMEOUT,
    )
    assert page.console_errors == []


def test_counts_of_thousands_are_written_as_the_ratings_are(page, app_url, tmp_path: Path):
    # Two players who met 1,234 times, Ann winning 1,001 of them: the games and wins columns separate the
    # thousands as the rating column does ("1,234", not "1234"), and so does the data's summary line.
    lines = ["game,player,place"]
    for k in range(1234):
        first, second = ("Ann", "Bob") if k < 1001 else ("Bob", "Ann")
        lines += [f"g{k},{first},1", f"g{k},{second},2"]
    club = tmp_path / "rivals.csv"
    club.write_text("\n".join(lines) + "\n")
    open_app(page, app_url)
    page.set_input_files("#data-upload input[type=file]", str(club))
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Ann')", timeout=TIMEOUT
    )
    settle(page)
    cells = page.evaluate(
        """() => Array.from(document.querySelectorAll('#standings-leaderboard .ag-row'))
             .filter(r => r.querySelector("[col-id='games']"))
             .map(r => [r.querySelector("[col-id='games']").innerText, r.querySelector("[col-id='wins']").innerText])"""
    )
    assert sorted(cells) == [["1,234", "1,001"], ["1,234", "233"]]
    assert "1,234 games, 2 players" in page.inner_text("#data-summary")
    screenshot(page, "leaderboard-thousands")
