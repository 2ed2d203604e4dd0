"""The Games and Player tabs in a real headless Chromium, at desktop and phone width (screenshots saved)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.browser.conftest import hover, screenshot
from tests.browser.test_app_browser import TIMEOUT, open_app, param_selector, settle

pytestmark = pytest.mark.browser

SAMPLE = Path(__file__).resolve().parents[2] / "ratings" / "samples" / "poker.csv"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def pick(page, dropdown: str, value: str) -> None:
    """Open the dcc.Dropdown with id ``dropdown`` and click the option whose value is ``value``."""
    page.click(f"#{dropdown}")
    page.click(f"[role=option]:has(input[value='{value}'])", timeout=TIMEOUT)
    settle(page)


def first_row_cells(page) -> dict[str, str]:
    return page.evaluate(
        """() => Object.fromEntries(Array.from(
            document.querySelectorAll('#games-grid .ag-center-cols-container .ag-row[row-index="0"] .ag-cell,'
              + '#games-grid .ag-pinned-left-cols-container .ag-row[row-index="0"] .ag-cell'))
            .map(c => [c.getAttribute('col-id'), c.innerText]))"""
    )


def open_games(page, app_url: str) -> None:
    open_app(page, app_url)
    page.click("#page-tabs .nav-link:text-is('Games')")
    page.wait_for_selector("#games-grid .ag-row", timeout=TIMEOUT)
    settle(page)


def test_games_list_filters_pages_and_shows_a_clicked_game(page, app_url):
    open_games(page, app_url)
    assert "150 games, newest first; showing 1-25" in page.inner_text("#games-count")
    row = first_row_cells(page)
    assert row["number"] == "150"
    assert row["order"].startswith("1. ")
    assert "+" in row["changes"] or "−" in row["changes"]
    assert page.is_visible("#games-game-chart .main-svg")
    screenshot(page, "games-desktop")

    # next page: games 125 down to 101
    page.click("#games-pages >> text=2")
    page.wait_for_function(
        "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.includes('showing 26-50')",
        timeout=TIMEOUT,
    )
    assert first_row_cells(page)["number"] == "125"

    # filter by dates (the browser's own date fields): the games of the second half of 2023, counted here from
    # the bundled file itself (one game per row, its date in the first column)
    with SAMPLE.open(newline="") as handle:
        dates = [row["date"] for row in csv.DictReader(handle)]
    expected = sum("2023-07-01" <= day <= "2023-12-31" for day in dates)
    assert 0 < expected < len(dates) == 150
    page.fill("#games-date-from", "2023-07-01")
    page.fill("#games-date-to", "2023-12-31")
    page.wait_for_function(
        "want => (document.querySelector('#games-count') || {innerText: ''}).innerText.startsWith(want)",
        arg=f"{expected} of 150 games, newest first; showing 1-",
        timeout=TIMEOUT,
    )
    assert first_row_cells(page)["date"] <= "2023-12-31"
    screenshot(page, "games-desktop-dates")
    for field in ("#games-date-from", "#games-date-to"):
        page.fill(field, "")
    page.wait_for_function(
        "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.startsWith('150 games')",
        timeout=TIMEOUT,
    )

    # filter by a player: every listed game has them, with their place and change
    pick(page, "games-player", "Marta")
    page.wait_for_function(
        "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.includes(' of 150 games')"
    )
    row = first_row_cells(page)
    assert "Marta" in row["order"]
    assert " of " in row["place"]

    # a click on a game shows it beside the list
    page.click('#games-grid .ag-center-cols-container .ag-row[row-index="1"] [col-id="order"]')
    number = first_row_cells(page)["number"]  # the list did not move
    second = page.evaluate(
        """() => document.querySelector('#games-grid .ag-pinned-left-cols-container .ag-row[row-index="1"]')
            .innerText.trim()"""
    )
    page.wait_for_function(
        "want => (document.querySelector('#games-game') || {innerText: ''}).innerText.startsWith('Game ' + want)",
        arg=second,
        timeout=TIMEOUT,
    )
    assert number != second
    title = page.evaluate("() => document.querySelector('#games-game-chart .gtitle').textContent")
    assert title.startswith(f"Game {second}")
    screenshot(page, "games-desktop-filtered")
    assert page.console_errors == []


def test_games_list_at_phone_width(browser, app_url):
    context = browser.new_context(**PHONE)
    small = context.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_games(small, app_url)
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    assert first_row_cells(small)["number"] == "150"
    small.click('#games-grid .ag-center-cols-container .ag-row[row-index="2"] [col-id="order"]')
    small.wait_for_function(
        "() => (document.querySelector('#games-game') || {innerText: ''}).innerText.startsWith('Game 148')",
        timeout=TIMEOUT,
    )
    screenshot(small, "games-phone")
    assert errors == []
    context.close()


def open_player(page, app_url: str, query: str = "") -> None:
    open_app(page, app_url, query)
    page.click("#page-tabs .nav-link:text-is('Player')")
    page.wait_for_selector("#player-head-to-head .ag-row", timeout=TIMEOUT)
    page.wait_for_selector("#player-trajectory .scatterlayer .trace", timeout=TIMEOUT)
    settle(page)


def test_player_page_defaults_to_the_leader_and_switches(page, app_url, browser):
    open_player(page, app_url)
    assert page.inner_text("#player-player").strip() == "1. Marta"  # the leader (see the Standings test)
    summary = page.inner_text("#player-summary")
    assert "rank\n1" in summary.replace("\t", "\n")  # the leader is picked by default
    assert "wins" in summary and "last 10 places" in summary
    title = page.evaluate("() => document.querySelector('#player-trajectory .gtitle').textContent")
    assert title.endswith("rating and rank after each game")
    assert page.locator("#player-head-to-head .ag-center-cols-container .ag-row").count() >= 5
    # why the rating changed in Marta's newest game: one row per opponent, then the total
    page.wait_for_selector("#player-explain .ag-row", timeout=TIMEOUT)
    explanation = page.inner_text("#player-explain")
    assert explanation.startswith("Marta in Game 150")
    assert "total" in explanation and "The rows sum exactly to the change." in explanation
    screenshot(page, "player-desktop")

    pick(page, "player-player", "Dmitri")
    page.wait_for_function(
        "() => document.querySelector('#player-trajectory .gtitle').textContent.startsWith('Dmitri:')",
        timeout=TIMEOUT,
    )
    opponents = page.inner_text("#player-head-to-head")
    assert "Dmitri" not in opponents.split("opponent", 1)[-1]  # nobody meets themself
    assert page.console_errors == []

    context = browser.new_context(**PHONE)
    small = context.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_player(small, app_url)
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    screenshot(small, "player-phone")
    assert errors == []
    context.close()


def test_player_page_explains_a_clicked_game_under_trueskill(page, app_url):
    open_player(page, app_url, "?system=trueskill")
    page.wait_for_selector("#player-explain .ag-row", timeout=TIMEOUT)
    # a click on the chart's first point explains that game (the player's first)
    first = page.evaluate("() => document.querySelector('#player-trajectory .js-plotly-plot')._fullData[0].x[0]")
    box = page.locator("#player-trajectory .scatterlayer .trace .point").first.bounding_box()
    hover(page, "#player-trajectory", box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "n => /in Game \\d+/.exec(document.querySelector('#player-explain').innerText)[0] === 'in Game ' + n",
        arg=first,
        timeout=TIMEOUT,
    )
    text = page.inner_text("#player-explain")
    assert "mu" in text and "sigma" in text and "shown rating" in text
    assert "Shown rating = mean − 2 × uncertainty" in text
    screenshot(page, "player-desktop-trueskill")
    assert page.console_errors == []


def test_compare_tab_against_a_pinned_baseline(page, app_url, browser):
    open_app(page, app_url)
    page.click("#page-tabs .nav-link:text-is('Compare')")
    page.wait_for_function(
        "() => (document.querySelector('#compare-status') || {innerText: ''}).innerText.startsWith('Pin a baseline')",
        timeout=TIMEOUT,
    )
    page.click("#baseline-pin")
    page.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    box = page.locator(param_selector("param", "base"))
    box.fill("2")
    box.press("Enter")
    page.wait_for_selector("#compare-grid .ag-center-cols-container .ag-row", timeout=TIMEOUT)
    page.wait_for_function("() => location.search.includes('base=2')", timeout=TIMEOUT)
    settle(page)
    assert page.locator("#compare-grid .ag-center-cols-container .ag-row").count() == 10
    assert "rating now (Elo points)" in page.inner_text("#compare-grid .ag-header")
    changes = page.evaluate(
        """() => Array.from(document.querySelectorAll(
            '#compare-grid .ag-center-cols-container [col-id="rating_change"]')).map(c => c.innerText)"""
    )
    assert any(c.startswith(("+", "-", "−")) for c in changes)  # base 2 moved some ratings
    with page.expect_download() as download:
        page.click("#compare-csv-button")
    path = download.value.path()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("player,rank now,rank before,places moved")
    assert len(lines) == 11
    screenshot(page, "compare-desktop")
    assert page.console_errors == []

    context = browser.new_context(**PHONE)
    small = context.new_page()
    assert "tab=compare" in page.url
    small.goto(app_url + "/?" + page.url.split("?", 1)[1])  # the shared address holds the baseline and the tab
    small.wait_for_selector("#compare-grid .ag-center-cols-container .ag-row", timeout=TIMEOUT)
    settle(small)
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    screenshot(small, "compare-phone")
    context.close()


def test_names_are_text_in_the_games_list_and_player_page(page, app_url, tmp_path: Path):
    """A name that looks like markup is shown as typed, never as a live element."""
    open_app(page, app_url)
    upload = tmp_path / "club.csv"
    upload.write_text(
        "game,date,player,place\n"
        "1,2024-03-01,<b>Zed</b>,1\n1,2024-03-01,Yan,2\n"
        "2,2024-03-08,Yan,1\n2,2024-03-08,<b>Zed</b>,2\n"
    )
    page.set_input_files("#data-upload input[type=file]", str(upload))
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('2 games')")
    page.click("#page-tabs .nav-link:text-is('Games')")
    page.wait_for_function(
        "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.startsWith('2 games')",
        timeout=TIMEOUT,
    )
    settle(page)
    assert first_row_cells(page)["order"] == "1. Yan  2. <b>Zed</b>"
    assert page.locator("#games-grid b").count() == 0
    page.click("#page-tabs .nav-link:text-is('Player')")
    page.wait_for_selector("#player-explain .ag-row", timeout=TIMEOUT)
    settle(page)
    assert "<b>Zed</b>" in page.inner_text("#player-player") + page.inner_text("#player-head-to-head")
    assert page.locator("#player-trajectory b, #player-head-to-head b, #player-explain b").count() == 0
    assert page.console_errors == []


# ---------------------------------------------------------------- aliases, seasons, phone navigation
#: A second page opened on a shared link renders from scratch; on a loaded 2-core machine that took 15-19 s.
SLOW = 60_000


def open_slow(page, app_url: str, query: str = "") -> None:
    """:func:`open_app` with the longer wait."""
    page.goto(app_url + "/" + query)
    page.wait_for_selector(".leaderboard .ag-row", timeout=SLOW)
    page.wait_for_function("() => !document.querySelector('[data-dash-is-loading]')", timeout=SLOW)


def _club_csv(tmp_path: Path) -> Path:
    """Ann plays five nights; on the sixth the sheet says "Anne" (one game): a likely duplicate."""
    rows = ["game,date,player,place"]
    for night in range(1, 7):
        first = "Anne" if night == 6 else "Ann"
        order = [first, "Bob", "Cid"] if night % 2 else ["Bob", first, "Cid"]
        rows += [f"{night},2024-0{night}-01,{p},{i + 1}" for i, p in enumerate(order)]
    rows += ["7,2024-07-01,Ann,1", "7,2024-07-01,Cid,2"]
    upload = tmp_path / "club.csv"
    upload.write_text("\n".join(rows) + "\n")
    return upload


def board_games(page) -> dict[str, str]:
    """Leaderboard player -> games, as the grid shows them (the player column is pinned: rows joined by index)."""
    return page.evaluate(
        """() => {
            const cell = (col) => Object.fromEntries(Array.from(
                document.querySelectorAll(`#standings-leaderboard .ag-row [col-id="${col}"]`))
                .map(c => [c.closest('.ag-row').getAttribute('row-index'), c.innerText]));
            const players = cell('player'), games = cell('games');
            return Object.fromEntries(Object.keys(players).map(i => [players[i], games[i] || '']));
        }"""
    )


def test_a_declared_alias_merges_players_and_the_link_and_a_reload_keep_it(page, app_url, tmp_path: Path, browser):
    open_slow(page, app_url)
    page.set_input_files("#data-upload input[type=file]", str(_club_csv(tmp_path)))
    page.wait_for_function("() => document.querySelector('#data-summary').innerText.includes('7 games')")
    page.wait_for_selector("#aliases-suspects .alert", timeout=SLOW)
    settle(page)
    warning = page.inner_text("#aliases-suspects")
    assert "'Anne' (1 game) and 'Ann' (6 games): one letter apart" in warning, warning
    assert "Anne" in board_games(page)
    # the name boxes suggest the file's players, written into the datalist as plain options (layouts.datalist)
    suggested = page.eval_on_selector_all("#aliases-names option", "options => options.map(o => o.value)")
    assert suggested == sorted(board_games(page), key=str.casefold) and "Anne" in suggested
    assert page.eval_on_selector_all("#aliases-names option", "options => options.every(o => !o.children.length)")
    screenshot(page, "aliases-warning-desktop")

    # a conflict is refused with the game named: Bob and Cid played together
    page.fill("#aliases-alias", "Cid")
    page.fill("#aliases-name", "Bob")
    page.click("#aliases-merge")
    page.wait_for_selector("#aliases-message .alert-danger", timeout=SLOW)
    assert "game '1' (played 2024-01-01) has both 'Bob' and 'Cid'" in page.inner_text("#aliases-message")

    page.click("#aliases-suspects button:has-text(\"merge 'Anne' into 'Ann'\")")
    page.wait_for_function(
        "() => !document.querySelector('#standings-leaderboard').innerText.includes('Anne')", timeout=SLOW
    )
    settle(page)
    games = board_games(page)
    assert set(games) == {"Ann", "Bob", "Cid"}
    assert games["Ann"] == "7"
    assert "'Anne' is 'Ann'" in page.inner_text("#aliases-list")
    assert "1 alias declared" in page.inner_text("#data-summary")
    assert page.inner_text("#aliases-suspects").strip() == ""
    assert "aliases=" in page.url
    screenshot(page, "aliases-merged-desktop")

    page.reload()
    page.wait_for_selector(".leaderboard .ag-row", timeout=SLOW)
    settle(page)
    assert board_games(page).get("Ann") == "7" and "Anne" not in board_games(page)

    other = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    other.goto(page.url)
    other.wait_for_selector(".leaderboard .ag-row", timeout=SLOW)
    settle(other)
    assert board_games(other).get("Ann") == "7" and "Anne" not in board_games(other)
    assert "'Anne' is 'Ann'" in other.inner_text("#aliases-list")

    # removing the alias brings Anne back
    page.click("#aliases-list button:has-text('remove')")
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Anne')", timeout=SLOW
    )
    assert page.console_errors == []


def apply_season(page, start: str, end: str, last: str = "", shows: str | None = None) -> None:
    """Fill the Season's boxes, press Apply and, with ``shows``, wait until the data summary says it."""
    page.fill("#range-from", start)
    page.fill("#range-to", end)
    page.fill("#range-last", last)
    page.click("#range-apply")
    if shows is not None:
        page.wait_for_function(
            f"() => document.querySelector('#data-summary').innerText.includes({shows!r})", timeout=SLOW
        )


def last_twenty_then_whole_history(page) -> None:
    """Empty the Season's dates, Apply "the last 20 games", then *Whole history* once that is drawn."""
    apply_season(page, "", "", "20", shows="the last 20 games: 20 of 150")
    settle(page)  # the season's boxes are rewritten from the new data after it arrives: let that finish first
    page.click("#range-clear")
    page.wait_for_function("() => !document.querySelector('#data-summary').innerText.includes(' of 150')", timeout=SLOW)


def test_a_season_of_no_games_or_fewer_is_refused_with_a_message(page, app_url):
    open_app(page, app_url)
    for last in ("0", "-3"):
        apply_season(page, "", "", last)
        page.wait_for_function(
            "() => document.querySelector('#range-message').innerText.includes('whole number from 1')", timeout=TIMEOUT
        )
        assert "the last number of games must be a whole number from 1 to" in page.inner_text("#range-message")
        assert "150 games" in page.inner_text("#data-summary")  # the data in use stays
        screenshot(page, f"season-refused-{last}-desktop", "#range-message")
        page.click("#range-message .btn-close")
    assert page.console_errors == []


def test_a_season_restricts_the_rating_and_says_what_is_shown(page, app_url, browser):
    open_slow(page, app_url)
    apply_season(page, "2024-01-01", "30/06/2024", shows="games from 2024-01-01 to 2024-06-30")
    settle(page)
    summary = page.inner_text("#data-summary")
    assert summary.split(" games,")[0] + " of 150" in summary  # "N games, ..., games from ...: N of 150"
    assert "from=2024-01-01" in page.url and "to=2024-06-30" in page.url
    shown = int(summary.split(" games,")[0])
    assert 0 < shown < 150
    page.click("#page-tabs .nav-link:text-is('Games')")
    page.wait_for_function(
        f"() => (document.querySelector('#games-count') || {{innerText: ''}}).innerText.startsWith('{shown} games')",
        timeout=SLOW,
    )
    screenshot(page, "season-desktop")

    # a range with no game: a clear message, and the season in use stays
    apply_season(page, "2030-01-01", "")
    page.wait_for_selector("#range-message .alert-danger", timeout=SLOW)
    assert "no game was played in the range (games from 2030-01-01)" in page.inner_text("#range-message")
    assert f"{shown} of 150" in page.inner_text("#data-summary")

    # the link keeps the season (the boxes show it), the last N games work, Whole history clears it
    other = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    assert "tab=games" in page.url
    other.goto(page.url)  # opens on the Games tab, as the link says
    other.wait_for_selector("#games-grid .ag-row", timeout=SLOW)
    settle(other)
    assert other.inner_text("#games-count").startswith(f"{shown} games")
    assert f"{shown} of 150" in other.inner_text("#data-summary")
    assert other.input_value("#range-from") == "2024-01-01"
    last_twenty_then_whole_history(other)
    assert page.console_errors == []


def test_whole_history_empties_the_season_boxes_and_the_address(page, app_url):
    open_slow(page, app_url, "?sample=poker&from=2024-01-01&to=2024-06-30")
    last_twenty_then_whole_history(page)
    page.wait_for_function("() => document.querySelector('#range-last').value === ''", timeout=SLOW)
    page.wait_for_function("() => !window.location.search.includes('last=')", timeout=SLOW)


def tab_rows(page) -> list[int]:
    """The distinct tops of the tab links (one value: one row)."""
    return page.evaluate(
        """() => [...new Set(Array.from(document.querySelectorAll('#page-tabs .nav-link'))
            .map(a => Math.round(a.getBoundingClientRect().top)))]"""
    )


def test_phone_tabs_are_one_row_that_scrolls_sideways(browser, app_url):
    context = browser.new_context(**PHONE)
    small = context.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_slow(small, app_url)
    assert len(tab_rows(small)) == 1, tab_rows(small)
    bar = small.evaluate(
        "() => { const b = document.querySelector('#page-tabs'); "
        "return [b.scrollWidth, b.clientWidth, b.getBoundingClientRect().height]; }"
    )
    assert bar[0] > bar[1], "the eight tabs fit at 390 px: nothing to scroll"
    assert bar[2] < 50, f"the tab bar is {bar[2]} px high"
    screenshot(small, "nav-phone-standings")
    small.click("#page-tabs .nav-link:text-is('Player')")  # off screen to the right: scrolled to, then clicked
    small.wait_for_selector("#player-head-to-head .ag-row", timeout=SLOW)
    settle(small)
    assert small.evaluate("() => document.querySelector('#page-tabs').scrollLeft") > 0
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 391
    screenshot(small, "nav-phone-player")
    small.click("#page-tabs .nav-link:text-is('Games')")
    small.wait_for_selector("#games-grid .ag-row", timeout=SLOW)
    settle(small)
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 391
    screenshot(small, "nav-phone-games")
    assert errors == []
    context.close()


def test_desktop_keeps_the_tabs_on_one_row(page, app_url):
    open_slow(page, app_url)
    assert page.locator("#page-tabs .nav-link").count() == 8
    assert len(tab_rows(page)) == 1, tab_rows(page)
    assert page.evaluate(
        "() => { const b = document.querySelector('#page-tabs'); return b.scrollWidth <= b.clientWidth; }"
    )
    page.click("#page-tabs .nav-link:text-is('Player')")
    page.wait_for_selector("#player-head-to-head .ag-row", timeout=SLOW)
    screenshot(page, "nav-desktop-player")
    assert page.console_errors == []


def test_a_clicked_trajectory_point_explains_that_players_change(page, app_url):
    from tests.browser.test_fixes import click_trajectory_point

    open_slow(page, app_url)
    page.wait_for_selector("#game-explain-view .ag-row", timeout=SLOW)
    settle(page)
    # the fourth marker of the second drawn line: that player, in that game
    name, game = page.evaluate(
        """() => { const t = document.querySelector('#standings-trajectories .js-plotly-plot')._fullData[1];
                   const c = t.customdata[3];  // [game index, place, field size] (or the index alone)
                   return [t.name, Array.isArray(c) ? c[0] : c]; }"""
    )
    click_trajectory_point(page, 1, 3)
    page.wait_for_function(
        "want => document.querySelector('#game-explain-view').innerText.startsWith(want + ' in Game ' )",
        arg=name,
        timeout=SLOW,
    )
    settle(page)
    header = page.inner_text("#game-explain-view").splitlines()[0]
    assert header.startswith(f"{name} in Game {game + 1}"), header
    table = page.inner_text("#game-explain-table")
    assert "opponent" in table and "total" in table  # multiplayer Elo: one term per opponent, then the total
    page.locator("#game-explain-view").scroll_into_view_if_needed()
    screenshot(page, "standings-explain-desktop")
    assert page.console_errors == []


def test_a_parameter_change_keeps_the_games_page_and_new_data_goes_back_to_page_one(page, app_url):
    """The Games tab's views learn why their gate opened (callbacks/gates.py): before, every change reset the page."""
    open_games(page, app_url)
    page.click("#games-pages >> text=3")
    showing = "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.includes('showing 51-75')"
    page.wait_for_function(showing, timeout=TIMEOUT)
    before = first_row_cells(page)["changes"]
    box = page.locator(param_selector("param", "k"))
    box.fill("7")
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('k=7')", timeout=TIMEOUT)
    page.wait_for_function(
        "old => (document.querySelector('#games-grid .ag-row[row-index=\"0\"]') || {innerText: old}).innerText"
        ".indexOf(old) < 0",
        arg=before,
        timeout=TIMEOUT,
    )
    settle(page)
    assert "showing 51-75" in page.inner_text("#games-count")  # same page, new changes
    assert first_row_cells(page)["number"] == "100"
    # new data: back to page 1 (the newest games of the chess sample)
    page.click("#data-sample")
    page.get_by_role("option", name="chess", exact=True).click()
    page.wait_for_function(
        "() => (document.querySelector('#games-count') || {innerText: ''}).innerText.includes('showing 1-25')",
        timeout=TIMEOUT,
    )
    settle(page)
    assert page.console_errors == []
