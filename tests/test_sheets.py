"""The Google Sheets adapter, against a local fake of the Sheets API spoken over real HTTP (tests/sheets_server.py).

gspread itself runs unmodified: only its requests Session is routed to 127.0.0.1.  Expected histories are
written by hand from the sheet contents in each test.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
from collections.abc import Iterator
from typing import Any

import gspread
import pytest

from ratings.history import Entry, HistoryError
from sources.cache import LastGoodCache
from sources.sheets import (
    CONFIG_MESSAGE,
    GspreadBackend,
    PublicCsvBackend,
    RetryPolicy,
    SheetError,
    SheetRead,
    SheetRef,
    SheetSource,
    load_settings,
    open_configured_source,
    parse_sheet_ref,
    service_account_email,
    sharing_hint,
)
from tests.sheets_server import Clock, FakeSheets, routed_session

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF"
RETRY = RetryPolicy(attempts=3, first_delay=0.5)
EMAIL = "ratings-app@game-night.iam.gserviceaccount.com"

WIDE = [
    ["date", "1st", "2nd", "3rd", "DNF"],
    ["2024-01-05", "Ann", "Bob / Cid", "", "Dee"],
    ["2024-01-12", "Cid", "Ann", "Bob"],
]
LONG = [
    ["game", "date", "player", "place"],
    ["g1", "2024-02-01", "Ann", "2"],
    ["g1", "2024-02-01", "Bob", "1"],
    ["g2", "2024-02-08", "Bob", "DNF"],
    ["g2", "2024-02-08", "Eve", "1"],
]
# Hand-read from WIDE: game 1 = Ann 1st, Bob and Cid tied 2nd, Dee DNF; game 2 = Cid, Ann, Bob.
WIDE_GAMES = [
    {Entry("Ann", 1), Entry("Bob", 2), Entry("Cid", 2), Entry("Dee", None)},
    {Entry("Cid", 1), Entry("Ann", 2), Entry("Bob", 3)},
]
LONG_GAMES = [{Entry("Ann", 2), Entry("Bob", 1)}, {Entry("Bob", None), Entry("Eve", 1)}]


@pytest.fixture
def fake() -> Iterator[FakeSheets]:
    with FakeSheets() as server:
        server.add_spreadsheet(KEY, {"Results": WIDE, "Long": LONG})  # gids 0 and 1000
        yield server


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sleeps() -> list[float]:
    return []


def api_source(
    fake: FakeSheets,
    ref: SheetRef,
    clock: Clock,
    sleeps: list[float],
    *,
    timeout: float = 2.0,
    retry: RetryPolicy = RETRY,
) -> SheetSource:
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    return SheetSource(
        ref,
        GspreadBackend(client, email=EMAIL, timeout=timeout),
        cache=LastGoodCache(clock),
        cache_seconds=60,
        retry=retry,
        sleep=sleeps.append,
    )


def games(read: SheetRead) -> list[set[Entry]]:
    return [set(g.entries) for g in read.history.games]


# ------------------------------------------------------------------------------------------------ reading
def test_reads_a_wide_sheet_by_worksheet_name(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    read = api_source(fake, SheetRef(KEY, worksheet="Results"), clock, sleeps).read()
    assert read.shape == "wide"
    assert games(read) == WIDE_GAMES
    assert read.history.dates == (dt.date(2024, 1, 5), dt.date(2024, 1, 12))
    assert read.rows[0] == WIDE[0]
    assert not read.stale and read.message is None
    # gspread: metadata (open_by_key), metadata again (worksheet lookup), then the values of 'Results'.
    assert [path for _, path, _ in fake.requests] == [
        f"/v4/spreadsheets/{KEY}",
        f"/v4/spreadsheets/{KEY}",
        f"/v4/spreadsheets/{KEY}/values/'Results'",
    ]
    assert all(fake.authorized)


def test_reads_a_long_sheet_by_gid(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    read = api_source(fake, SheetRef(KEY, gid=1000), clock, sleeps).read()
    assert read.shape == "long"
    assert games(read) == LONG_GAMES
    assert [g.id for g in read.history.games] == ["g1", "g2"]


def test_gid_from_a_pasted_url_picks_the_worksheet(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    ref = parse_sheet_ref(f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=1000")
    assert games(api_source(fake, ref, clock, sleeps).read()) == LONG_GAMES


def test_first_worksheet_when_none_is_named(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    assert games(api_source(fake, SheetRef(KEY), clock, sleeps).read()) == WIDE_GAMES


def test_unknown_worksheet_lists_the_real_ones(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    with pytest.raises(SheetError) as info:
        api_source(fake, SheetRef(KEY, worksheet="Scores"), clock, sleeps).read()
    assert info.value.reason == "no-worksheet"
    assert "'Scores'" in info.value.message and "'Results', 'Long'" in info.value.message
    with pytest.raises(SheetError, match="gid 77"):
        api_source(fake, SheetRef(KEY, gid=77), clock, sleeps).read()


# ------------------------------------------------------------------------------------------------ addresses
@pytest.mark.parametrize(
    ("text", "worksheet", "expected"),
    [
        (KEY, None, SheetRef(KEY)),
        (f"  {KEY}\n", None, SheetRef(KEY)),
        (f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=123", None, SheetRef(KEY, gid=123)),
        (f"https://docs.google.com/spreadsheets/d/{KEY}/edit?gid=456#gid=456", None, SheetRef(KEY, gid=456)),
        (f"https://docs.google.com/spreadsheets/d/{KEY}/edit?usp=sharing", None, SheetRef(KEY)),
        (f"https://docs.google.com/spreadsheets/d/{KEY}", None, SheetRef(KEY)),
        (f"docs.google.com/spreadsheets/d/{KEY}/edit#gid=0", None, SheetRef(KEY, gid=0)),
        (f"https://docs.google.com/spreadsheets/u/0/d/{KEY}/edit".replace("/u/0", ""), None, SheetRef(KEY)),
        (f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=123", "Results", SheetRef(KEY, "Results")),
        (f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=123", "99", SheetRef(KEY, gid=99)),
        (KEY, " 7 ", SheetRef(KEY, gid=7)),
        (KEY, "", SheetRef(KEY)),
    ],
)
def test_parse_sheet_ref_accepts_links_and_keys(text: str, worksheet: str | None, expected: SheetRef) -> None:
    assert parse_sheet_ref(text, worksheet) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        f"https://example.com/spreadsheets/d/{KEY}/edit",
        f"https://docs.google.com.evil.example/spreadsheets/d/{KEY}/edit",
        f"https://docs.google.com/document/d/{KEY}/edit",
        f"https://drive.google.com/file/d/{KEY}/view",
        f"ftp://docs.google.com/spreadsheets/d/{KEY}",
        "https://docs.google.com/spreadsheets/d/e/2PACX-1vQabcdefghijklmnopqrstuvwxyz/pubhtml",
        "https://docs.google.com/spreadsheets/d/short/edit",
        "javascript:alert(1)",
        "too-short",
        "a key with spaces in it that is long enough",
        f"{KEY}/../../etc",
    ],
)
def test_parse_sheet_ref_refuses_anything_else(text: str) -> None:
    with pytest.raises(SheetError) as info:
        parse_sheet_ref(text)
    assert info.value.reason == "address"
    assert "Google Sheets" in info.value.message or "sheet" in info.value.message


def test_refused_link_message_says_what_is_accepted() -> None:
    with pytest.raises(SheetError, match=r"is not a Google Sheets link.*docs\.google\.com/spreadsheets/d/<key>"):
        parse_sheet_ref("https://example.com/games.csv")


# ------------------------------------------------------------------------------------------------ public CSV
def csv_source(fake: FakeSheets, ref: SheetRef, clock: Clock, *, timeout: float = 2.0) -> SheetSource:
    backend = PublicCsvBackend(routed_session(fake.base_url, token=None), timeout=timeout)
    return SheetSource(ref, backend, cache=LastGoodCache(clock), retry=RetryPolicy(1, 0.0))


def test_public_sheet_is_read_through_the_csv_export_without_credentials(fake: FakeSheets, clock: Clock) -> None:
    read = csv_source(fake, SheetRef(KEY, gid=1000), clock).read()
    assert games(read) == LONG_GAMES
    assert fake.requests == [("GET", f"/spreadsheets/d/{KEY}/export", {"format": ["csv"], "gid": ["1000"]})]
    assert fake.authorized == [False]


def test_public_sheet_without_gid_exports_the_first_worksheet(clock: Clock) -> None:
    with FakeSheets() as server:
        server.add_spreadsheet(KEY, {"Long": LONG, "Results": WIDE}, first_gid=812)  # the first gid is not 0
        read = csv_source(server, SheetRef(KEY), clock).read()
        assert games(read) == LONG_GAMES
        assert server.requests == [("GET", f"/spreadsheets/d/{KEY}/export", {"format": ["csv"]})]


def test_public_mode_needs_a_gid_not_a_name(fake: FakeSheets, clock: Clock) -> None:
    with pytest.raises(SheetError, match="gid") as info:
        csv_source(fake, SheetRef(KEY, worksheet="Long"), clock).read()
    assert info.value.reason == "config"
    assert fake.requests == []


def test_private_sheet_without_service_account_says_to_share_it(fake: FakeSheets, clock: Clock) -> None:
    fake.add_spreadsheet(KEY, {"Results": WIDE}, public=False)
    with pytest.raises(SheetError) as info:
        csv_source(fake, SheetRef(KEY), clock).read()
    assert info.value.reason == "not-public"
    assert "not shared publicly" in info.value.message and "Anyone with the link" in info.value.message


def test_public_csv_404(fake: FakeSheets, clock: Clock) -> None:
    with pytest.raises(SheetError, match="no Google Sheet with the key") as info:
        csv_source(fake, SheetRef("0" * 44), clock).read()
    assert info.value.reason == "not-found"


# ------------------------------------------------------------------------------------------------ errors
def test_403_says_how_to_share_without_naming_the_account(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    fake.add_spreadsheet(KEY, {"Results": WIDE}, shared=False)
    with pytest.raises(SheetError) as info:
        api_source(fake, SheetRef(KEY), clock, sleeps).read()
    assert info.value.reason == "not-shared"
    assert "Share the sheet with this app's Google service account" in info.value.message
    assert EMAIL not in info.value.message  # any visitor can paste any address: the account is the host's to name
    assert "HTTP 403" in info.value.message
    assert sleeps == []  # a refusal is not retried


def test_404_says_there_is_no_such_sheet(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    missing = "9" * 44
    with pytest.raises(SheetError) as info:
        api_source(fake, SheetRef(missing), clock, sleeps).read()
    assert info.value.reason == "not-found"
    assert missing in info.value.message and "check the link" in info.value.message
    assert sleeps == []


def test_429_is_retried_with_exponential_backoff(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    fake.plan(429, times=2)
    read = api_source(fake, SheetRef(KEY, worksheet="Results"), clock, sleeps).read()
    assert games(read) == WIDE_GAMES and not read.stale
    assert sleeps == [0.5, 1.0]  # first_delay, then doubled
    assert fake.count() == 2 + 3  # two refused tries, then metadata, metadata, values


def test_429_that_persists_gives_up_after_the_configured_attempts(
    fake: FakeSheets, clock: Clock, sleeps: list[float]
) -> None:
    fake.plan(429, times=50)
    with pytest.raises(SheetError) as info:
        api_source(fake, SheetRef(KEY), clock, sleeps, retry=RetryPolicy(attempts=4, first_delay=0.1)).read()
    assert info.value.reason == "rate-limited"
    assert "Tried 4 times" in info.value.message
    assert sleeps == pytest.approx([0.1, 0.2, 0.4])
    assert fake.count() == 4


def test_persistent_500_keeps_the_last_good_copy(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    source = api_source(fake, SheetRef(KEY, worksheet="Results"), clock, sleeps)
    first = source.read()
    clock.now += 61  # the cached copy is now due for a refresh
    fake.plan(500, times=50)
    again = source.read()
    assert again.stale
    assert again.history is first.history
    assert again.message is not None
    assert "server error (HTTP 500)" in again.message and "Tried 3 times" in again.message
    assert "Showing the copy read at" in again.message
    assert again.fetched_at == first.fetched_at
    asked = fake.count()
    clock.now += 30  # the next callbacks within a cache period get the kept copy without asking Google again
    assert source.read() is again
    assert fake.count() == asked
    assert source.read(force=True).stale  # an explicit refresh does ask (and still fails)
    assert fake.count() == asked + 3


def test_500_without_a_good_copy_raises(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    fake.plan(500, times=50)
    with pytest.raises(SheetError, match="HTTP 500") as info:
        api_source(fake, SheetRef(KEY), clock, sleeps).read()
    assert info.value.reason == "server-error"


def test_slow_answer_times_out_and_keeps_the_last_good_copy(
    fake: FakeSheets, clock: Clock, sleeps: list[float]
) -> None:
    source = api_source(fake, SheetRef(KEY, worksheet="Results"), clock, sleeps, timeout=0.3)
    first = source.read()
    fake.plan("slow", seconds=1.5, times=1)
    again = source.read(force=True)
    assert again.stale and again.history is first.history
    assert again.message is not None and "did not answer within 0.3 seconds" in again.message
    assert sleeps == []  # a timeout is not retried: the user should not wait several timeouts


def test_slow_public_csv_times_out_with_a_clear_error(fake: FakeSheets, clock: Clock) -> None:
    fake.plan("slow", seconds=1.5, times=1)
    with pytest.raises(SheetError, match="did not answer within 0.3 seconds") as info:
        csv_source(fake, SheetRef(KEY), clock, timeout=0.3).read()
    assert info.value.reason == "timeout"


def test_unreachable_host_is_a_network_error(clock: Clock, sleeps: list[float]) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = PublicCsvBackend(routed_session(f"http://127.0.0.1:{port}", token=None), timeout=1.0)
    with pytest.raises(SheetError, match="Could not reach Google Sheets") as info:
        SheetSource(SheetRef(KEY), backend, cache=LastGoodCache(clock)).read()
    assert info.value.reason == "network"


def test_sheet_edited_into_a_bad_state_keeps_the_last_good_copy(
    fake: FakeSheets, clock: Clock, sleeps: list[float]
) -> None:
    source = api_source(fake, SheetRef(KEY, worksheet="Long"), clock, sleeps)
    first = source.read()
    fake.add_spreadsheet(KEY, {"Results": WIDE, "Long": [*LONG, ["g3", "2024-02-09", "Ann", "first!"]]})
    again = source.read(force=True)
    assert again.stale and again.history is first.history
    assert again.message is not None and "row 6" in again.message and "first!" in again.message
    fresh = api_source(fake, SheetRef(KEY, worksheet="Long"), clock, sleeps)  # no good copy: the problems
    with pytest.raises(HistoryError):
        fresh.read()


# ------------------------------------------------------------------------------------------------ caching
def test_reads_are_cached_until_the_ttl_and_refresh_forces_a_read(
    fake: FakeSheets, clock: Clock, sleeps: list[float]
) -> None:
    source = api_source(fake, SheetRef(KEY, worksheet="Results"), clock, sleeps)
    first = source.read()
    assert fake.count() == 3
    clock.now += 59
    assert source.read() is first
    assert fake.count() == 3  # served from the cache
    clock.now += 2  # 61 s after the read: older than the 60 s time to live
    second = source.read()
    assert fake.count() == 6 and second is not first and not second.stale
    assert source.read(force=True) is not second
    assert fake.count() == 9


def test_cache_is_shared_per_sheet_and_worksheet(fake: FakeSheets, clock: Clock, sleeps: list[float]) -> None:
    cache: LastGoodCache[SheetRead] = LastGoodCache(clock)
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    wide = SheetSource(SheetRef(KEY, worksheet="Results"), GspreadBackend(client), cache=cache)
    long = SheetSource(SheetRef(KEY, worksheet="Long"), GspreadBackend(client), cache=cache)
    wide_again = SheetSource(SheetRef(KEY, worksheet="Results"), GspreadBackend(client), cache=cache)
    assert games(wide.read()) == WIDE_GAMES
    assert games(long.read()) == LONG_GAMES
    wide_again.read()  # another SheetSource object for the same worksheet (as a later callback makes)
    assert fake.count() == 6


# ------------------------------------------------------------------------------------------------ settings
def key_json(**overrides: Any) -> str:
    info = {"type": "service_account", "client_email": EMAIL, "private_key": "not used here"}
    info.update(overrides)
    return json.dumps(info)


def test_settings_defaults_and_values() -> None:
    empty = load_settings({})
    assert (empty.sheet, empty.worksheet, empty.service_account_json) == (None, None, None)
    assert (empty.cache_seconds, empty.timeout_seconds, empty.retry) == (60.0, 5.0, RetryPolicy(3, 0.5))
    assert not empty.configured and not empty.can_write
    full = load_settings(
        {
            "RATINGS_SHEET": KEY,
            "RATINGS_WORKSHEET": "Results",
            "GOOGLE_SERVICE_ACCOUNT_JSON": key_json(),
            "RATINGS_SHEET_CACHE_SECONDS": "15",
            "RATINGS_SHEET_TIMEOUT_SECONDS": "2.5",
            "RATINGS_SHEET_ATTEMPTS": "5",
            "RATINGS_SHEET_BACKOFF_SECONDS": "0",
        }
    )
    assert full.configured and full.can_write
    assert (full.cache_seconds, full.timeout_seconds, full.retry) == (15.0, 2.5, RetryPolicy(5, 0.0))
    assert "private_key" not in repr(full)


def test_settings_are_read_when_called(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_SHEET", KEY)
    monkeypatch.setenv("RATINGS_SHEET_CACHE_SECONDS", "5")
    assert load_settings().cache_seconds == 5.0
    monkeypatch.setenv("RATINGS_SHEET_CACHE_SECONDS", "7")
    assert load_settings().cache_seconds == 7.0


@pytest.mark.parametrize(
    ("name", "value"),
    [("RATINGS_SHEET_CACHE_SECONDS", "soon"), ("RATINGS_SHEET_ATTEMPTS", "0"), ("RATINGS_SHEET_ATTEMPTS", "2.5")],
)
def test_bad_numbers_in_settings_are_named(name: str, value: str) -> None:
    with pytest.raises(SheetError, match=name) as info:
        load_settings({name: value})
    assert info.value.reason == "config"


def test_service_account_email_and_hint() -> None:
    settings = load_settings({"GOOGLE_SERVICE_ACCOUNT_JSON": key_json()})
    assert service_account_email(settings) == EMAIL
    assert service_account_email(load_settings({})) is None
    assert EMAIL not in sharing_hint(EMAIL) and "Editor" in sharing_hint(EMAIL)


@pytest.mark.parametrize(("text", "logged"), [("{oops", "not valid JSON"), (None, "not a service-account key")])
def test_a_bad_key_is_logged_for_the_host_and_plain_for_the_visitor(
    text: str | None, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    value = text if text is not None else key_json(type="authorized_user")
    with pytest.raises(SheetError) as info:
        service_account_email(load_settings({"GOOGLE_SERVICE_ACCOUNT_JSON": value}))
    assert info.value.reason == "config" and info.value.message == CONFIG_MESSAGE
    assert "GOOGLE_SERVICE_ACCOUNT_JSON" not in info.value.message
    assert logged in caplog.text and "GOOGLE_SERVICE_ACCOUNT_JSON" in caplog.text


def test_configured_source_picks_the_backend(fake: FakeSheets, clock: Clock) -> None:
    assert open_configured_source(load_settings({})) is None
    session = routed_session(fake.base_url, token=None)
    public = open_configured_source(
        load_settings({"RATINGS_SHEET": f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=1000"}),
        session=session,
        cache=LastGoodCache(clock),
    )
    assert public is not None and not public.writable
    assert games(public.read()) == LONG_GAMES
    client = gspread.Client(auth=None, session=routed_session(fake.base_url))  # type: ignore[arg-type]
    private = open_configured_source(
        load_settings(
            {"RATINGS_SHEET": KEY, "RATINGS_WORKSHEET": "Results", "GOOGLE_SERVICE_ACCOUNT_JSON": key_json()}
        ),
        client=client,
        cache=LastGoodCache(clock),
    )
    assert private is not None and private.writable
    assert isinstance(private.backend, GspreadBackend) and private.backend.email == EMAIL
    assert games(private.read()) == WIDE_GAMES


def test_unusable_service_account_key_is_a_config_error() -> None:
    settings = load_settings({"RATINGS_SHEET": KEY, "GOOGLE_SERVICE_ACCOUNT_JSON": key_json()})
    with pytest.raises(SheetError) as info:
        open_configured_source(settings)  # "not used here" is no private key
    assert info.value.reason == "config" and info.value.message == CONFIG_MESSAGE


def test_service_account_refused_by_google_is_explained(
    fake: FakeSheets, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    # A real, freshly generated key whose token endpoint is the fake: the sign-in is refused there
    # (the fake's /token refuses it as Google does a deleted key), before any request leaves for the Sheets API.
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    text = key_json(private_key=pem, private_key_id="test-refused", token_uri=fake.base_url + "/token")
    source = open_configured_source(
        load_settings({"RATINGS_SHEET": KEY, "GOOGLE_SERVICE_ACCOUNT_JSON": text}), cache=LastGoodCache(clock)
    )
    assert source is not None and source.writable
    with pytest.raises(SheetError) as info:
        source.read()
    assert info.value.reason == "config" and info.value.message.startswith(CONFIG_MESSAGE)
    # the visitor sees neither the account, nor the variable, nor the token endpoint's answer; the log has them
    assert EMAIL not in info.value.message and "invalid_grant" not in info.value.message
    assert f"Google refused to sign in {EMAIL}" in caplog.text
    assert [path for _, path, _ in fake.requests] == ["/token"]


@pytest.mark.parametrize(
    "address",
    [
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit?gid=1e9",
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=1e9",
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=\u0663",
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=99999999999",
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit?gid=",
    ],
)
def test_a_gid_that_is_not_a_plain_worksheet_number_is_refused(address: str) -> None:
    # "gid=1e9" once selected gid 1 (the digits before the 'e'): the whole value must be the number
    with pytest.raises(SheetError) as info:
        parse_sheet_ref(address)
    assert info.value.reason == "address" and "gid" in info.value.message


def test_gids_and_worksheet_numbers_in_plain_digits() -> None:
    assert parse_sheet_ref(f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=1234").gid == 1234
    assert parse_sheet_ref(f"https://docs.google.com/spreadsheets/d/{KEY}/edit?usp=sharing&gid=0#x").gid == 0
    assert parse_sheet_ref(KEY, "77").gid == 77
    assert parse_sheet_ref(KEY, "\u0663").worksheet == "\u0663"  # not ASCII digits: a worksheet's name
