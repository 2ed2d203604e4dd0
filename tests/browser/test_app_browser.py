"""End-to-end checks in a real headless Chromium: what only a browser shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratings import SYSTEM_NAMES, get_system
from tests.browser.conftest import TIMEOUT, open_phone_controls, screenshot, settle

pytestmark = pytest.mark.browser

GOOD_CSV = "game,date,player,place\n1,2024-03-01,Zed,1\n1,2024-03-01,Yan,2\n2,2024-03-08,Yan,1\n2,2024-03-08,Xia,DNF\n"
BROKEN_CSV = "game,date,player,place\n1,2024-03-01,Zed,first\n1,2024-03-01,,2\n"


def param_selector(kind: str, name: str) -> str:
    """CSS selector of a pattern-matching parameter control (Dash writes dict ids as sorted JSON)."""
    return f"[id='{json.dumps({'name': name, 'type': kind}, separators=(',', ':'))}']"


def open_app(page, app_url: str, query: str = "") -> None:
    page.goto(app_url + "/" + query)
    page.wait_for_selector(".leaderboard .ag-row", timeout=TIMEOUT)
    page.wait_for_function("() => !document.querySelector('[data-dash-is-loading]')", timeout=TIMEOUT)


def wait_value(page, selector: str, expected: str, attribute: str | None = None) -> None:
    """Wait until the element's value (or attribute) equals ``expected``."""
    page.wait_for_function(
        """([sel, want, attr]) => {
            const el = document.querySelector(sel);
            return el !== null && (attr ? el.getAttribute(attr) : el.value) === want;
        }""",
        arg=[selector, expected, attribute],
        timeout=TIMEOUT,
    )


#: The leaderboard as the user sees it: header, then each row, cells in column order (tab-separated).  The grid
#: keeps its row and cell elements across results and places them by position, so the elements' order in the
#: page (what ``innerText`` follows) is not the order on screen.
BOARD_JS = """() => {
    const grid = document.querySelector('#standings-leaderboard');
    const byColumn = (a, b) => +a.getAttribute('aria-colindex') - +b.getAttribute('aria-colindex');
    const text = (cells) => cells.sort(byColumn).map(c => c.innerText.trim()).join('\\t');
    const rows = {};
    grid.querySelectorAll('.ag-row').forEach(r => {
        const i = +r.getAttribute('row-index');
        (rows[i] = rows[i] || []).push(...r.querySelectorAll('.ag-cell'));
    });
    const head = text(Array.from(grid.querySelectorAll('.ag-header-cell')));
    return [head, ...Object.keys(rows).sort((a, b) => a - b).map(i => text(rows[i]))].join('\\n');
}"""
#: True once the leaderboard as seen (BOARD_JS) differs from ``old``.
BOARD_CHANGED_JS = f"(old) => ({BOARD_JS})() !== old"


def leaderboard_text(page) -> str:
    return page.evaluate(BOARD_JS)


def trajectory_data(page) -> list[dict]:
    """The traces the plotly chart actually drew (name, dash, first y values)."""
    return page.evaluate(
        """() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData.map(t => (
            {name: t.name, dash: (t.line || {}).dash || 'solid', y: Array.from(t.y).slice(0, 5)}))"""
    )


def test_page_loads_without_console_errors_and_screenshots(page, app_url, browser):
    open_app(page, app_url)
    assert "150 games" in page.inner_text("#data-summary")
    assert "Marta" in leaderboard_text(page)
    assert len(trajectory_data(page)) >= 2
    # every stylesheet and script came from this server (no CDN)
    hosts = page.evaluate("() => performance.getEntriesByType('resource').map(r => new URL(r.name).host)")
    assert set(hosts) <= {app_url.split("//")[1]}
    assert (
        page.evaluate("() => getComputedStyle(document.querySelector('.navbar')).backgroundColor") != "rgba(0, 0, 0, 0)"
    )
    screenshot(page, "desktop")
    page.click("text=All games")
    # the first heatmap of the whole suite: the server's first render of it, on a cold worker (timed out once in CI)
    page.wait_for_selector("#standings-heatmap .heatmaplayer", timeout=3 * TIMEOUT)
    screenshot(page, "desktop-all-games")
    assert page.console_errors == []

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    small = phone.new_page()
    errors: list[str] = []
    small.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_app(small, app_url)
    width = small.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways at phone width ({width}px)"
    assert not small.is_visible("#params-system")  # controls folded away
    screenshot(small, "phone")
    open_phone_controls(small)
    screenshot(small, "phone-controls")
    assert errors == []
    phone.close()


def test_moving_a_parameter_changes_leaderboard_and_chart(page, app_url):
    open_app(page, app_url)
    before_table, before_chart = leaderboard_text(page), trajectory_data(page)
    thumb = page.locator(param_selector("param-slider", "k") + " [role=slider]")
    thumb.focus()
    page.keyboard.press("End")  # K to the top of its range (100)
    wait_value(page, param_selector("param", "k"), "100")
    page.wait_for_function(BOARD_CHANGED_JS, arg=before_table, timeout=TIMEOUT)
    settle(page)
    assert trajectory_data(page) != before_chart
    assert "k=100" in page.url
    # an exact value typed into the number box moves the slider too
    box = page.locator(param_selector("param", "k"))
    box.fill("7")
    box.press("Enter")
    wait_value(page, param_selector("param-slider", "k") + " [role=slider]", "7", "aria-valuenow")
    page.wait_for_function("() => location.search.includes('k=7')", timeout=TIMEOUT)
    assert page.console_errors == []


def test_invalid_parameter_shows_the_message_and_keeps_the_result(page, app_url):
    open_app(page, app_url)
    table = leaderboard_text(page)
    box = page.locator(param_selector("param", "d"))
    box.fill("0")
    box.press("Enter")
    page.wait_for_selector("#params-error", state="visible", timeout=TIMEOUT)
    assert "parameter 'd'" in page.inner_text("#params-error")
    settle(page)
    assert leaderboard_text(page) == table
    # a valid value again: the message goes and the result follows
    box.fill("500")
    box.press("Enter")
    page.wait_for_selector("#params-error", state="hidden", timeout=TIMEOUT)
    page.wait_for_function(BOARD_CHANGED_JS, arg=table, timeout=TIMEOUT)


def bar_values(page) -> list[float]:
    """The one-game chart's bar heights as drawn."""
    return page.evaluate(
        "() => Array.from(document.querySelector('#standings-game-changes .js-plotly-plot')._fullData[0].y)"
    )


def test_a_failed_computation_keeps_every_view_of_the_last_good_result(page, app_url, failing_replay):
    # A replay that stops at game 6 with a ComputationError (injected: every accepted setting computes).  Every
    # view must keep the default result, none half-updated.
    open_app(page, app_url, "?system=thurstonian")
    table, lines, bars = leaderboard_text(page), trajectory_data(page), bar_values(page)
    box = page.locator(param_selector("param", "eta"))
    box.fill(str(failing_replay["params"]["eta"]))
    box.press("Enter")
    page.wait_for_function(
        "() => (document.querySelector('#page-error') || {}).innerText?.includes('game 6')", timeout=TIMEOUT
    )
    settle(page)
    assert "Anything drawn before stays on screen" in page.inner_text("#page-error")
    assert leaderboard_text(page) == table
    assert trajectory_data(page) == lines
    assert bar_values(page) == bars
    screenshot(page, "failed-computation")
    # a good value again: every view moves on together
    box.fill("0.5")
    box.press("Enter")
    page.wait_for_function(BOARD_CHANGED_JS, arg=table, timeout=TIMEOUT)
    settle(page)
    assert trajectory_data(page) != lines and bar_values(page) != bars


@pytest.mark.parametrize("system", SYSTEM_NAMES)
def test_switching_system_rebuilds_controls_and_results(page, app_url, system):
    open_app(page, app_url, "?system=multielo" if system != "multielo" else "?system=elo-mmr")
    page.click("#params-system")
    page.get_by_role("option", name=get_system(system).title, exact=True).click()
    first = get_system(system).parameters()[0]
    page.wait_for_selector(f'[id*=\'"name":"{first.name}"\']', timeout=TIMEOUT)
    page.wait_for_function(f"() => location.search.includes('system={system}')", timeout=TIMEOUT)
    settle(page)
    # the grid draws its new rows a frame after the answer arrives: wait for them (a leaderboard left empty fails)
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Marta')", timeout=TIMEOUT
    )
    assert not page.is_visible("#params-error")
    assert page.console_errors == []


def test_uploaded_csv_shows_its_players_and_a_broken_one_keeps_them(page, app_url, tmp_path: Path):
    open_app(page, app_url)
    good = tmp_path / "club.csv"
    good.write_text(GOOD_CSV)
    page.set_input_files("#data-upload input[type=file]", str(good))
    page.wait_for_function(
        "() => document.querySelector('#standings-leaderboard').innerText.includes('Zed')", timeout=TIMEOUT
    )
    assert "2 games, 3 players" in page.inner_text("#data-summary")
    for name in ("Zed", "Yan", "Xia"):
        assert name in leaderboard_text(page)

    broken = tmp_path / "broken.csv"
    broken.write_text(BROKEN_CSV)
    page.set_input_files("#data-upload input[type=file]", str(broken))
    page.wait_for_selector("#data-messages .alert-danger", timeout=TIMEOUT)
    message = page.inner_text("#data-messages")
    assert "Could not read broken.csv" in message
    assert "row 2" in message and "row 3" in message
    assert "Still using the previous data (upload club.csv)" in message
    settle(page)
    assert "Zed" in leaderboard_text(page)
    assert "2 games, 3 players" in page.inner_text("#data-summary")
    screenshot(page, "broken-upload")


def test_pinned_baseline_draws_dashed_lines_and_rank_shifts(page, app_url):
    open_app(page, app_url)
    assert all(t["dash"] == "solid" for t in trajectory_data(page))
    page.click("#baseline-pin")
    page.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    box = page.locator(param_selector("param", "base"))
    box.fill("2")
    box.press("Enter")
    page.wait_for_function(
        """() => document.querySelector('#standings-trajectories .js-plotly-plot').data
            .some(t => t.line && t.line.dash === 'dash')""",
        timeout=TIMEOUT,
    )
    settle(page)
    traces = trajectory_data(page)
    dashed = [t for t in traces if t["dash"] == "dash"]
    solid = [t for t in traces if t["dash"] == "solid"]
    assert dashed and len(dashed) == len(solid)
    assert "±" in page.inner_text("#standings-leaderboard .ag-header")
    assert any(ch in leaderboard_text(page) for ch in "▲▼")
    screenshot(page, "baseline")
    page.click("#baseline-unpin")
    page.wait_for_function(
        """() => document.querySelector('#standings-trajectories .js-plotly-plot').data
            .every(t => !t.line || t.line.dash !== 'dash')""",
        timeout=TIMEOUT,
    )


def test_shared_address_restores_the_parameters(page, app_url):
    open_app(page, app_url, "?sample=chess&system=multielo&k=12&dummy=900")
    wait_value(page, param_selector("param", "k"), "12")
    assert page.locator(param_selector("param", "dummy")).input_value() == "900"
    assert page.locator(param_selector("param-on", "dummy")).is_checked()
    settle(page)
    assert "chess" in page.inner_text("#data-summary")
    assert "k=12" in page.url and "dummy=900" in page.url and "sample=chess" in page.url
    assert page.console_errors == []


def test_natural_scale_shown_as_points_and_list_errors(page, app_url):
    open_app(page, app_url, "?system=plackett-luce")
    page.wait_for_selector("#standings-scale-row", state="visible", timeout=TIMEOUT)
    header = page.inner_text("#standings-leaderboard .ag-header")
    assert "1500" in header and "200" in header and "natural-scale" in header
    assert "natural-scale" in page.evaluate(
        "() => document.querySelector('#standings-trajectories .js-plotly-plot').layout.yaxis.title.text"
    )
    table = leaderboard_text(page)
    knots = page.locator(param_selector("param-list", "eta_knots"))
    knots.fill("0, 1.5")
    knots.press("Enter")
    page.wait_for_selector("#params-error", state="visible", timeout=TIMEOUT)
    assert "eta_knots and eta_values must be given together" in page.inner_text("#params-error")
    settle(page)
    assert leaderboard_text(page) == table
    values = page.locator(param_selector("param-list", "eta_values"))
    values.fill("0.4, 0.2")
    values.press("Enter")
    page.wait_for_selector("#params-error", state="hidden", timeout=TIMEOUT)
    page.wait_for_function("() => location.search.includes('eta_values=0.4%2C0.2')", timeout=TIMEOUT)
    screenshot(page, "natural-scale")
    assert page.console_errors == []


def test_comparing_two_systems_through_the_baseline(page, app_url):
    open_app(page, app_url)
    page.click("#baseline-pin")
    page.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    page.click("#params-system")
    page.get_by_role("option", name=get_system("trueskill").title, exact=True).click()
    page.wait_for_function(
        """() => document.querySelector('#standings-trajectories .js-plotly-plot')._fullData
            .some(t => t.line && t.line.dash === 'dash' && t.yaxis === 'y2')""",
        timeout=TIMEOUT,
    )
    settle(page)
    assert any(ch in leaderboard_text(page) for ch in "▲▼=")
    screenshot(page, "baseline-two-systems")
    assert page.console_errors == []
