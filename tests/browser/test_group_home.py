"""A group's home in a real browser (issue 24), served by gunicorn (the Procfile's workers) on a SQLite database:
the organiser signs in and makes a member link; a phone opens it and records three games; the organiser corrects
one and the leaderboard changes; a visitor's what-if edit changes the visitor's standings only.  Screenshots of
desktop and phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sources.groups import service
from sources.groups.database import database_url, engine_for, sessions, upgrade
from sources.record import new_game
from tests.browser.conftest import screenshot
from tests.browser.test_app_browser import BOARD_CHANGED_JS, TIMEOUT, leaderboard_text, settle
from tests.browser.test_extras import edit_cell
from tests.servers import gunicorn

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def group_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """The app with one group 'club' (title Catan, two games); its URL, passphrase and database URL."""
    data = tmp_path_factory.mktemp("group-data")
    env = {"RATINGS_DATA_DIR": str(data), "RATINGS_PROXY_HOPS": "0"}
    url = database_url(env)
    upgrade(url)
    engine = engine_for(url)
    with sessions(engine)() as session:
        group, passphrase = service.create_group(session, "club", "Thursday Club", titles=["Catan", "Go"])
        service.record_game(session, group.titles[1], new_game("2024-01-01", [("Gil", 1), ("Hal", 2)]), who="setup")
        for date, result in [
            ("2024-01-05", [("Ann", 1), ("Bob", 2), ("Cid", 3)]),
            ("2024-01-12", [("Bob", 1), ("Ann", 2)]),
        ]:
            service.record_game(session, group.titles[0], new_game(date, result), who="setup")
        session.commit()
    engine.dispose()
    with gunicorn(env, tmp_path_factory.mktemp("group-logs")) as base:
        yield base, passphrase, url


def _open(page, address: str, timeout: float = TIMEOUT) -> None:  # type: ignore[no-untyped-def]
    page.goto(address)
    page.wait_for_selector("#group-bar .card", state="visible", timeout=timeout)
    page.wait_for_selector(".leaderboard .ag-row", timeout=timeout)
    settle(page)


def _record(page, players: list[tuple[str, str]], date: str) -> None:  # type: ignore[no-untyped-def]
    page.click("#page-tabs >> text=Edit history")
    page.wait_for_selector("#record-submit", state="visible", timeout=TIMEOUT)
    settle(page)
    page.fill("#record-date", date)
    for i, (player, place) in enumerate(players):
        page.fill(f'[id=\'{{"index":{i},"type":"record-player"}}\']', player)
        page.fill(f'[id=\'{{"index":{i},"type":"record-place"}}\']', place)
    page.click("#record-submit")
    page.wait_for_selector("#record-status .alert-success", timeout=TIMEOUT)
    settle(page)


def _board(page) -> str:  # type: ignore[no-untyped-def]
    page.click("#page-tabs >> text=Standings")
    page.wait_for_selector("#standings-leaderboard", state="visible", timeout=TIMEOUT)
    settle(page)
    return leaderboard_text(page)


def _games(url: str) -> list[tuple[str, list[tuple[str, int | None]]]]:
    engine = engine_for(url)
    try:
        with sessions(engine)() as session:
            group = service.find_group(session, "club")
            assert group is not None
            history = service.history(session, group.titles[0])
            return [(g.id, [(e.player, e.place) for e in g.entries]) for g in history.games]
    finally:
        engine.dispose()


def test_a_member_records_from_a_phone_the_organiser_corrects_a_visitor_plays_privately(  # type: ignore[no-untyped-def]
    browser, group_app
):
    base, passphrase, url = group_app
    desktop = browser.new_context(viewport={"width": 1366, "height": 900})
    organiser = desktop.new_page()
    # the address's title is the one shown, in the bar and the data; the server's first group page (its worker loads
    # SQLAlchemy and the groups' modules on first use, and reads the title cold) may take longer on a loaded machine
    _open(organiser, base + "/g/club?title=Go", timeout=3 * TIMEOUT)
    assert organiser.inner_text("#group-header") == "Thursday Club"
    assert "Go" in organiser.inner_text("#group-title") and "Thursday Club: Go" in organiser.inner_text("#data-summary")
    _open(organiser, base + "/g/club")
    assert "visitor" in organiser.inner_text("#group-role")
    organiser.fill("#group-passphrase", passphrase)
    organiser.click("#group-sign-in")
    organiser.wait_for_selector("#group-tools", state="visible", timeout=TIMEOUT)
    organiser.fill("#group-link-label", "Kim")
    organiser.click("#group-make-link")
    organiser.wait_for_selector("#group-new-link code", timeout=TIMEOUT)
    link = organiser.inner_text("#group-new-link code")
    assert link.startswith(base + "/g/club#member=")
    screenshot(organiser, "group-organiser-desktop")

    phone_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone = phone_context.new_page()
    _open(phone, link)
    phone.wait_for_function(
        "() => document.querySelector('#group-role').innerText.includes('member link')", timeout=TIMEOUT
    )
    assert "#member=" not in phone.url  # the secret is out of the address bar once it signed in
    for day, result in [
        ("2024-02-01", [("Cid", "1"), ("Ann", "2"), ("Bob", "3")]),
        ("2024-02-08", [("Cid", "1"), ("Bob", "2")]),
        ("2024-02-15", [("Ann", "1"), ("Cid", "2")]),
    ]:
        _record(phone, result, day)
    assert "as game 'g5'" in phone.inner_text("#record-status")
    assert "goes into the group's games at once" in phone.inner_text("#record-access")
    # a member's main action comes first on a phone: the form above the what-if grid (below it for a visitor)
    form, grid = (phone.locator(s).bounding_box() for s in ("#record-panel", "#edit-grid"))
    assert form is not None and grid is not None and form["y"] + form["height"] <= grid["y"], (form, grid)
    screenshot(phone, "group-member-phone")
    assert [g for g, _ in _games(url)] == ["g1", "g2", "g3", "g4", "g5"]

    # the organiser sees the member's games, then corrects g3 (Cid won) to Bob winning
    organiser.reload()
    _open(organiser, base + "/g/club")
    before = _board(organiser)
    cid = next(row.split("\t") for row in before.splitlines() if "\tCid\t" in row)
    assert cid[3] == "4"  # Cid's games: g1 and the member's three
    organiser.click("#group-game")
    organiser.get_by_role("option", name="g3", exact=True).click()
    _record(organiser, [("Bob", "1"), ("Cid", "2"), ("Ann", "3")], "2024-02-01")
    assert "Game 'g3' of Catan corrected" in organiser.inner_text("#record-status")
    organiser.click("#page-tabs >> text=Standings")
    organiser.wait_for_function(BOARD_CHANGED_JS, arg=before, timeout=TIMEOUT)
    settle(organiser)
    after = leaderboard_text(organiser)
    assert after != before
    assert dict(_games(url))["g3"] == [("Bob", 1), ("Cid", 2), ("Ann", 3)]
    screenshot(organiser, "group-corrected-desktop")

    # a visitor (a fresh browser) edits the group's first game privately: the visitor's standings change, the
    # group's games do not
    visitor = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    _open(visitor, base + "/g/club")
    shown = _board(visitor)
    assert shown == after
    visitor.click("#page-tabs >> text=Edit history")
    visitor.wait_for_selector("#edit-grid [row-index='0'] [col-id='place']", timeout=TIMEOUT)
    assert "sign in on the group's bar" in visitor.inner_text("#record-access")
    edit_cell(visitor, 0, "place", "3")
    edit_cell(visitor, 2, "place", "1")
    visitor.click("#edit-apply")
    visitor.wait_for_selector("#edit-status .alert-success", timeout=TIMEOUT)
    visitor.click("#page-tabs >> text=Standings")
    visitor.wait_for_function(BOARD_CHANGED_JS, arg=shown, timeout=TIMEOUT)
    assert "what-if edit" in visitor.inner_text("#data-summary")
    assert dict(_games(url))["g1"] == [("Ann", 1), ("Bob", 2), ("Cid", 3)]
    _open(organiser, base + "/g/club")
    assert _board(organiser) == after  # the group's standings are as the organiser left them
    screenshot(visitor, "group-visitor-what-if")
    phone_context.close()
    desktop.close()
