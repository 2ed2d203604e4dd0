"""What must stay whole on a phone (390 px, 360 px) and on a desktop screen: every system's "why did the rating
change?" table, the leaderboard (with and without a pinned baseline's column), and the trajectory chart's "initial
rating" label."""

from __future__ import annotations

import pytest

from ratings import SYSTEM_NAMES
from tests.browser.conftest import TIMEOUT, open_phone_controls, screenshot, settle
from tests.browser.test_app_browser import param_selector
from tests.browser.test_pages import pick

pytestmark = pytest.mark.browser

#: (name, browser context options): a phone as the other phone tests use, a narrow phone (360 px, common among
#: Android phones), and the desktop size of ``page``.
SCREENS = [
    ("phone", {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}),
    ("narrow-phone", {"viewport": {"width": 360, "height": 780}, "is_mobile": True, "has_touch": True}),
    ("desktop", {"viewport": {"width": 1366, "height": 900}}),
]

#: The standings' explanation table as drawn: its box, the screen's width, how far its columns run past the grid's
#: own edge (its horizontal scroll), and the texts of cells and headers cut short (wider than their box).
EXPLANATION_FIT_JS = """() => {
  const grid = document.querySelector('#game-explain-table');
  const box = grid.getBoundingClientRect();
  const body = grid.querySelector('.ag-center-cols-viewport');
  const cut = Array.from(grid.querySelectorAll('.ag-cell-value, .ag-header-cell-text'))
    .filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => c.innerText);
  return {left: box.left, right: box.right, screen: document.documentElement.clientWidth,
          past: body.scrollWidth - body.clientWidth, cut};
}"""

#: The leaderboard grid as drawn: its box, the screen's width, the page's own width (a page wider than the screen
#: scrolls sideways), how far its columns run past the grid's edge, the columns shown, and the texts of cells and
#: headers cut short (wider than their box).
LEADERBOARD_FIT_JS = """() => {
  const grid = document.querySelector('#standings-leaderboard');
  const box = grid.getBoundingClientRect();
  const bodies = Array.from(grid.querySelectorAll('.ag-center-cols-viewport'));
  const cut = Array.from(grid.querySelectorAll('.ag-cell-value, .ag-header-cell-text'))
    .filter(c => c.offsetParent !== null && c.scrollWidth > c.clientWidth + 1)
    .map(c => c.innerText);
  const columns = Array.from(grid.querySelectorAll('.ag-header-cell'))
    .filter(c => c.offsetParent !== null).map(c => c.getAttribute('col-id'));
  return {left: box.left, right: box.right, screen: document.documentElement.clientWidth,
          page: document.documentElement.scrollWidth,
          past: Math.max(0, ...bodies.map(b => b.scrollWidth - b.clientWidth)), columns, cut};
}"""

#: A grid as drawn (the selector's): the same measures as LEADERBOARD_FIT_JS.
GRID_FIT_JS = LEADERBOARD_FIT_JS.replace("() => {", "(selector) => {").replace("'#standings-leaderboard'", "selector")

#: The "initial rating" label of the trajectory chart: its text's box, the plot area and the screen, the opacity of
#: the label's background, and how many drawn line segments (or markers) of the chart's traces pass under the text.
#: Points are placed with plotly's own axis maps (calc value -> pixel), as plotly drew them.
INITIAL_LABEL_JS = """() => {
  const gd = document.querySelector('#standings-trajectories .js-plotly-plot');
  const label = Array.from(gd.querySelectorAll('.annotation'))
    .find(a => a.querySelector('.annotation-text').textContent === 'initial rating');
  const text = label.querySelector('.annotation-text').getBoundingClientRect();
  const bg = label.querySelector('rect.bg');
  const svg = gd.querySelector('.main-svg').getBoundingClientRect();
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const pad = 2;  // half a marker: a point this close to the text covers part of it
  const r = {l: text.left - pad, r: text.right + pad, t: text.top - pad, b: text.bottom + pad};
  const inside = (p) => p.x >= r.l && p.x <= r.r && p.y >= r.t && p.y <= r.b;
  // does the segment a-b meet the rectangle?  (Liang-Barsky clipping)
  const meets = (a, b) => {
    let t0 = 0, t1 = 1;
    const dx = b.x - a.x, dy = b.y - a.y;
    for (const [p, q] of [[-dx, a.x - r.l], [dx, r.r - a.x], [-dy, a.y - r.t], [dy, r.b - a.y]]) {
      if (p === 0) { if (q < 0) return false; continue; }
      const t = q / p;
      if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; }
      else { if (t < t0) return false; if (t < t1) t1 = t; }
    }
    return true;
  };
  let under = 0;
  for (const trace of gd.calcdata) {
    const t = trace[0].trace;
    if (t.visible !== true || (t.yaxis && t.yaxis !== 'y')) continue;
    const points = trace.filter(p => Number.isFinite(p.x) && Number.isFinite(p.y))
      .map(p => ({x: svg.left + xa._offset + xa.c2p(p.x), y: svg.top + ya._offset + ya.c2p(p.y)}));
    const lines = t.mode.includes('lines');
    points.forEach((p, i) => {
      if (inside(p) || (lines && i > 0 && meets(points[i - 1], p))) under += 1;
    });
  }
  return {text: [text.left, text.right, text.top, text.bottom],
          plot: [svg.left + xa._offset, svg.left + xa._offset + xa._length],
          screen: document.documentElement.clientWidth,
          background: +getComputedStyle(bg).fillOpacity, under};
}"""


def open_screen(browser, app_url: str, options: dict, query: str = "") -> object:
    context = browser.new_context(**options)
    pg = context.new_page()
    pg.goto(app_url + "/" + query)
    # the explanation is the page load's last view (data, then the game, then its player, then the table): on a
    # loaded machine it came at 21 s once, so it gets three times a view's wait
    pg.wait_for_selector("#game-explain-table .ag-row", timeout=3 * TIMEOUT)
    settle(pg)
    return pg


@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_every_systems_explanation_table_is_whole_and_on_screen(browser, app_url, screen, options):
    pg = open_screen(browser, app_url, options)
    problems = {}
    phone = screen != "desktop"
    for system in SYSTEM_NAMES:
        if system != SYSTEM_NAMES[0]:  # the first is the page's default; each next one chosen as a visitor would
            if phone and not pg.is_visible("#params-system"):
                open_phone_controls(pg)
            pick(pg, "params-system", system)
            pg.wait_for_function(f"() => location.search.includes('system={system}')", timeout=TIMEOUT)
            if phone and pg.is_visible("#params-system"):  # the settings panel closed, as a visitor would
                pg.click("#page-controls-toggle")
                pg.wait_for_selector("#params-system", state="hidden", timeout=TIMEOUT)
            pg.wait_for_selector("#game-explain-table .ag-row", timeout=TIMEOUT)
            settle(pg)
        fit = pg.evaluate(EXPLANATION_FIT_JS)
        wrong = []
        if fit["left"] < 0 or fit["right"] > fit["screen"]:
            wrong.append(f"table at {fit['left']:.0f}-{fit['right']:.0f} px on a {fit['screen']} px screen")
        if fit["past"] > 0:
            wrong.append(f"columns run {fit['past']} px past the table's edge")
        if fit["cut"]:
            wrong.append(f"cut short: {fit['cut']}")
        if wrong:
            problems[system] = wrong
        if system == "glicko2":  # the longest numbers (volatility, its change in e-05)
            screenshot(pg, f"explain-{screen}-{system}", "#game-explain-view")
    screenshot(pg, f"explain-{screen}")
    assert problems == {}
    pg.context.close()


def grid_problems(fit: dict) -> list[str]:
    wrong = []
    if fit["left"] < 0 or fit["right"] > fit["screen"]:
        wrong.append(f"grid at {fit['left']:.0f}-{fit['right']:.0f} px on a {fit['screen']} px screen")
    if fit["page"] > fit["screen"]:
        wrong.append(f"the page is {fit['page']} px wide on a {fit['screen']} px screen (it scrolls sideways)")
    if fit["past"] > 0:
        wrong.append(f"columns run {fit['past']} px past the grid's edge")
    if fit["cut"]:
        wrong.append(f"cut short: {fit['cut']}")
    return wrong


@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_the_leaderboard_is_whole_and_on_screen(browser, app_url, screen, options):
    # the racing sample: 150 players (three-digit ranks, the longest names), its leaders at the top
    pg = open_screen(browser, app_url, options, "?sample=racing")
    pg.wait_for_selector("#standings-leaderboard .ag-row", timeout=TIMEOUT)
    fit = pg.evaluate(LEADERBOARD_FIT_JS)
    screenshot(pg, f"leaderboard-{screen}", "#standings-leaderboard")
    assert grid_problems(fit) == [], fit
    phone = screen != "desktop"
    assert ("trend" in fit["columns"]) is not phone, fit["columns"]  # a phone keeps the five columns that fit
    # a pinned baseline, then K doubled, adds the column of places moved (▲12, ▼3): still whole; on a phone the
    # controls open from the bar
    if phone:
        open_phone_controls(pg)
    pg.click("#baseline-pin")
    pg.wait_for_selector("#baseline-unpin:not([disabled])", timeout=TIMEOUT)
    box = pg.locator(param_selector("param", "k"))
    box.fill("64")
    box.press("Enter")
    pg.wait_for_function("() => location.search.includes('k=64')", timeout=TIMEOUT)
    if phone:
        pg.click("#page-controls-toggle")
    pg.wait_for_function(
        "() => Array.from(document.querySelectorAll('#standings-leaderboard [col-id=shift]'))"
        ".some(c => /[▲▼]/.test(c.innerText))",
        timeout=TIMEOUT,
    )
    settle(pg)
    fit = pg.evaluate(LEADERBOARD_FIT_JS)
    screenshot(pg, f"leaderboard-{screen}-pinned", "#standings-leaderboard")
    assert "shift" in fit["columns"]
    assert grid_problems(fit) == [], fit
    # the bottom of the first page (100 rows of 150): three-digit ranks
    pg.evaluate("() => { document.querySelector('#standings-leaderboard .ag-body-viewport').scrollTop = 1e6; }")
    pg.wait_for_selector("#standings-leaderboard .ag-row[row-index='99']", timeout=TIMEOUT)
    fit = pg.evaluate(LEADERBOARD_FIT_JS)
    screenshot(pg, f"leaderboard-{screen}-pinned-bottom", "#standings-leaderboard")
    assert grid_problems(fit) == [], fit
    pg.context.close()


@pytest.mark.parametrize(("screen", "options"), SCREENS[:2], ids=[name for name, _ in SCREENS[:2]])
def test_the_widest_ratings_a_control_accepts_fit_a_phone(browser, app_url, screen, options):
    # TrueSkill's mean at the lowest value its box accepts: ratings down to "−1,000,005" (ten characters, which the
    # 76 px column cut short)
    pg = open_screen(browser, app_url, options, "?sample=poker&system=trueskill&mu=-1000000")
    pg.wait_for_function(
        "() => Array.from(document.querySelectorAll('#standings-leaderboard [col-id=rating].ag-cell'))"
        ".some(c => c.innerText.startsWith('−1,000,0'))",
        timeout=TIMEOUT,
    )
    fit = pg.evaluate(LEADERBOARD_FIT_JS)
    screenshot(pg, f"leaderboard-{screen}-widest", "#standings-leaderboard")
    assert grid_problems(fit) == [], fit
    pg.context.close()


def _open_grid(browser, app_url, options, query, tab, grid):
    """A page at the screen ``options`` on ``query``, the tab ``tab`` open and its grid ``grid`` drawn and scrolled
    into view; the page and the grid's measured fit (GRID_FIT_JS)."""
    pg = open_screen(browser, app_url, options, query)
    pg.click(f"#page-tabs .nav-link:text-is('{tab}')")
    pg.wait_for_selector(f"{grid} .ag-row", timeout=TIMEOUT)
    settle(pg)
    fit = pg.evaluate(GRID_FIT_JS, grid)
    pg.locator(grid).scroll_into_view_if_needed()
    return pg, fit


@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_the_head_to_head_is_whole_and_on_screen(browser, app_url, screen, options):
    # the racing sample's leader has met 140-odd opponents, the longest names among them
    pg, fit = _open_grid(browser, app_url, options, "?sample=racing", "Player", "#player-head-to-head")
    screenshot(pg, f"head-to-head-{screen}", "#player-head-to-head")
    screenshot(pg, f"head-to-head-{screen}-header", "#player-head-to-head .ag-header")
    assert fit["columns"] == ["opponent", "games", "ahead", "behind", "ties", "ahead_share"]
    assert grid_problems(fit) == [], fit
    pg.context.close()


@pytest.mark.parametrize("sample", ["poker", "racing"])
@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_the_edit_grid_is_whole_and_on_screen(browser, app_url, screen, options, sample):
    pg, fit = _open_grid(browser, app_url, options, f"?sample={sample}", "Edit history", "#edit-grid")
    screenshot(pg, f"edit-grid-{screen}-{sample}", "#edit-grid")
    assert grid_problems(fit) == [], fit
    pg.context.close()


@pytest.mark.parametrize(("screen", "options"), SCREENS, ids=[name for name, _ in SCREENS])
def test_the_initial_rating_label_is_readable_over_the_lines(browser, app_url, screen, options):
    pg = open_screen(browser, app_url, options)
    pg.wait_for_selector("#standings-trajectories .annotation", timeout=TIMEOUT)
    label = pg.evaluate(INITIAL_LABEL_JS)
    left, right, _, _ = label["text"]
    assert label["plot"][0] <= left and right <= label["plot"][1] <= label["screen"], label
    # lines do pass under it (the sample's lines end around the initial rating): it must sit on its own background
    assert label["under"] == 0 or label["background"] >= 0.8, label
    screenshot(pg, f"trajectories-{screen}", "#standings-trajectories")
    pg.context.close()
